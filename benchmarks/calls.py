"""Model calls per turn when memory is written on the hot path, in the background, or blended.

A scripted conversation (below: five sessions of ten turns, each session on its own thread; 15
of the 50 turns state something about the user, three of them as an explicit "remember that
...") runs through notebook 07's designs with the offline model, each with its own
InMemoryStore (MiniLM index):
- `hot path`: a `create_agent` agent with LangMem's manage_memory and search_memory tools;
- `background`: a lean graph (memlib.writers.make_load_memory_node, then one answer call) and
  LangMem's `create_memory_store_manager` run by `ReflectionExecutor`, one submit per turn,
  debounced (`--debounce`, 1 s), settled at the end of each session;
- `background, no debounce`: the same with after_seconds=0 (an extraction per turn);
- `blend`: memlib.writers.BlendedWriter: explicit requests to a hot-path agent with the
  manage_memory tool, everything else to the debounced executor.
Calls are counted with memlib.writers.ModelCallCounter: on the user's path (the turn's own
calls, a hot-path write included) and in the background (extraction calls). A "quiet" turn says
nothing to remember; an extra call is any path call beyond the one answer.
Goals: no extra call on quiet turns; at most 0.2 background calls a turn with debouncing.

Usage: python benchmarks/calls.py [--sessions N] [--debounce S] [--designs ...] [--out PATH]
Writes benchmarks/results/calls.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("MEMLIB_LLM", "offline")  # deterministic, no network
os.environ.setdefault("MEMLIB_EMBEDDINGS", "offline")

RESULTS = Path(__file__).resolve().parent / "results"
USER_ID = "ana"
K = 3
WAIT_SECONDS = 120
DESIGNS = ("hot path", "background", "background, no debounce", "blend")
MAX_BACKGROUND_PER_TURN = 0.2

# (thread, [(user message, touches memory)]): ten turns a session, three in ten about the user
SCRIPT = [
    (
        "laptop",
        [
            ("Hi, I'm Ana Lima. I work at Northwind as a data engineer.", True),
            ("How do I read a CSV file with pandas?", False),
            ("And how do I keep only two of its columns?", False),
            ("I live in Lisbon.", True),
            ("What does groupby do?", False),
            ("Thanks, that helps.", False),
            ("Please remember that I prefer metric units.", True),
            ("How do I turn a text column into dates?", False),
            ("What is a left join?", False),
            ("Great, see you tomorrow.", False),
        ],
    ),
    (
        "phone",
        [
            ("Good morning!", False),
            ("My favourite language is Rust.", True),
            ("What is a lifetime in Rust?", False),
            ("Why does the borrow checker complain about two mutable borrows?", False),
            ("Remember that my sister's birthday is June 3.", True),
            ("How do I format a date as ISO 8601?", False),
            ("What's the difference between a tuple and a list?", False),
            ("I moved to Porto last month.", True),
            ("How far is Porto from Lisbon by train?", False),
            ("Thanks, bye.", False),
        ],
    ),
    (
        "tablet",
        [
            ("Hello again.", False),
            ("My dog is called Biscuit.", True),
            ("How often should a puppy be walked?", False),
            ("What does a Python decorator do?", False),
            ("I'm learning Spanish in the evenings.", True),
            ("Can you explain list comprehensions?", False),
            ("And generator expressions?", False),
            ("Remember that I'm vegetarian.", True),
            ("Give me an idea for a quick dinner.", False),
            ("Perfect, thank you.", False),
        ],
    ),
    (
        "laptop-2",
        [
            ("Back at my desk.", False),
            ("I started a new project on data quality checks.", True),
            ("What is a unit test?", False),
            ("How do I run pytest on one file?", False),
            ("My manager is called Rui.", True),
            ("What does a fixture do in pytest?", False),
            ("How do I mark a slow test?", False),
            ("I use VS Code as my editor.", True),
            ("How do I open a terminal in it?", False),
            ("That's all for today.", False),
        ],
    ),
    (
        "phone-2",
        [
            ("Quick question.", False),
            ("What is a Python virtual environment?", False),
            ("I prefer tea to coffee.", True),
            ("How do I install a package into it?", False),
            ("What does pip freeze print?", False),
            ("My favourite city is Kyoto.", True),
            ("What's a good way to learn SQL?", False),
            ("How do I count rows per group in SQL?", False),
            ("I have a cat too, called Mochi.", True),
            ("Thanks, good night.", False),
        ],
    ),
]


def script(sessions: int) -> list[tuple[str, list[tuple[str, bool]]]]:
    """The first `sessions` sessions of SCRIPT (1..5)."""
    if not 1 <= sessions <= len(SCRIPT):
        raise ValueError(f"sessions must be in 1..{len(SCRIPT)}, got {sessions}")
    return SCRIPT[:sessions]


# --- the designs (notebook 07's, built the same way) --------------------------------------------


def _quiet_langmem_warnings() -> None:
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    warnings.filterwarnings("ignore", category=LangGraphDeprecatedSinceV10)


def new_store():
    from langgraph.store.memory import InMemoryStore

    from memlib import embedding_dims, get_embeddings

    return InMemoryStore(index={"dims": embedding_dims(), "embed": get_embeddings()})


def lean_graph(store, model, namespace):
    """load_memory (a store search, no model call) then one answer call."""
    from langchain_core.messages import SystemMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph

    from memlib.writers import make_load_memory_node

    class ChatState(MessagesState):
        memories: list[str]

    def answer(state: ChatState):
        section = "\n".join(f"- {m}" for m in state["memories"]) or "- (nothing yet)"
        system = SystemMessage(f"You are a helpful assistant.\n## Memories\n{section}")
        return {"messages": [model.invoke([system, *state["messages"]])]}

    builder = StateGraph(ChatState)
    builder.add_node("load_memory", make_load_memory_node(namespace, k=K))
    builder.add_node("answer", answer)
    builder.add_edge(START, "load_memory")
    builder.add_edge("load_memory", "answer")
    return builder.compile(checkpointer=InMemorySaver(), store=store)


def store_manager(model, store, namespace):
    from langmem import create_memory_store_manager

    return create_memory_store_manager(
        model,
        namespace=namespace,
        instructions="Extract facts about the user. A newer statement replaces an older one.",
        enable_deletes=True,
        store=store,
    )


def run_design(design: str, sessions, debounce: float) -> dict:
    """Run the script through one design; per-turn path calls and the background totals."""
    _quiet_langmem_warnings()  # before langmem imports trustcall
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
    from langmem import ReflectionExecutor, create_manage_memory_tool, create_search_memory_tool

    from memlib import get_chat_model
    from memlib.writers import BlendedWriter, ModelCallCounter, settle

    store, path, background = new_store(), ModelCallCounter(), ModelCallCounter()
    ns = ("memories", "{user_id}")
    executor = writer = graph = None
    if design == "hot path":
        graph = create_agent(
            get_chat_model(callbacks=[path]),
            tools=[
                create_manage_memory_tool(namespace=ns),
                create_search_memory_tool(namespace=ns),
            ],
            system_prompt="You are a helpful assistant. Search memory before answering; "
            "save what the user tells you about themselves.",
            store=store,
            checkpointer=InMemorySaver(),
        )
    else:
        graph = lean_graph(store, get_chat_model(callbacks=[path]), ns)
        extracted = (*ns, "extracted") if design == "blend" else ns
        manager = store_manager(get_chat_model(callbacks=[background]), store, extracted)
        executor = ReflectionExecutor(manager, store=store)
    delay = 0.0 if design == "background, no debounce" else debounce
    if design == "blend":
        hot_writer = create_agent(
            get_chat_model(callbacks=[path]),  # on the user's path: counted with the turn
            tools=[create_manage_memory_tool(namespace=(*ns, "explicit"))],
            store=store,
        )
        writer = BlendedWriter(hot_writer, executor, after_seconds=delay)
    turns, futures = [], []
    started = time.perf_counter()
    for number, (thread, session) in enumerate(sessions, 1):
        session_futures = []
        for text, touches in session:
            config = {"configurable": {"user_id": USER_ID, "thread_id": f"{thread}-{number}"}}
            calls0 = path.snapshot()[0]
            state = graph.invoke({"messages": [("user", text)]}, config)
            if writer is not None:
                route, result = writer.write(
                    text,
                    state["messages"][-1].content,
                    user_id=USER_ID,
                    thread_id=f"{thread}-{number}",
                )
                if route == "background":
                    session_futures.append(result)
            elif executor is not None:
                session_futures.append(
                    executor.submit(
                        {"messages": state["messages"]},
                        config=config,
                        after_seconds=delay,
                        thread_id=config["configurable"]["thread_id"],
                    )
                )
            turns.append(
                {"session": number, "touches": touches, "calls": path.snapshot()[0] - calls0}
            )
        futures += session_futures
        settle(session_futures, timeout=WAIT_SECONDS)  # the session ends: let it be extracted
    outcome = settle(futures, timeout=WAIT_SECONDS)
    if executor is not None:
        executor.shutdown(wait=True)  # every future settled: nothing live left to drain
    result = row(design, turns, background.calls, outcome, delay, time.perf_counter() - started)
    result["memories"] = len(store.search(("memories", USER_ID), limit=1000))
    return result


def row(design: str, turns: list[dict], background_calls: int, outcome, delay, seconds) -> dict:
    """One design's figures from its per-turn path calls and background totals."""
    quiet = [t for t in turns if not t["touches"]]
    loud = [t for t in turns if t["touches"]]
    n = len(turns)
    return {
        "design": design,
        "debounce_s": delay,
        "turns": n,
        "memory_turns": len(loud),
        "path_calls": sum(t["calls"] for t in turns),
        "path_calls_per_turn": round(sum(t["calls"] for t in turns) / n, 3),
        "max_path_calls": max(t["calls"] for t in turns),
        "quiet_turn_calls_mean": round(sum(t["calls"] for t in quiet) / max(1, len(quiet)), 3),
        "extra_calls_on_quiet_turns": sum(t["calls"] - 1 for t in quiet),
        "quiet_turns_with_extra_calls": sum(t["calls"] > 1 for t in quiet),
        "memory_turn_calls_mean": round(sum(t["calls"] for t in loud) / max(1, len(loud)), 3),
        "background_calls": background_calls,
        "background_calls_per_turn": round(background_calls / n, 3),
        "extractions": outcome.ran,
        "debounced": outcome.cancelled,
        "failed": outcome.failed,
        "seconds": round(seconds, 1),
        "per_turn_calls": [t["calls"] for t in turns],
    }


# --- report -----------------------------------------------------------------------------------


def table(result: dict) -> str:
    """The Markdown table the README shows."""
    lines = [
        "| design | path calls per turn | on quiet turns (extra) | on memory turns "
        "| background calls per turn | extractions (debounced) | memories stored |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['design']} | {r['path_calls_per_turn']:.2f} "
            f"| {r['quiet_turn_calls_mean']:.2f} ({r['extra_calls_on_quiet_turns']}) "
            f"| {r['memory_turn_calls_mean']:.2f} | {r['background_calls_per_turn']:.2f} "
            f"| {r['extractions']} ({r['debounced']}) | {r['memories']} |"
        )
    return "\n".join(lines)


def check_targets(result: dict) -> list[str]:
    """The goals, for the designs meant to meet them (background and blend, debounced); the hot
    path and the undebounced background are shown for contrast, not judged."""
    lines = []
    for r in result["rows"]:
        if r["design"] not in ("background", "blend"):
            continue
        checks = [
            (
                r["extra_calls_on_quiet_turns"] == 0,
                f"{r['design']}: {r['extra_calls_on_quiet_turns']} extra calls on "
                f"{r['turns'] - r['memory_turns']} quiet turns (goal 0)",
            ),
            (
                r["background_calls_per_turn"] <= MAX_BACKGROUND_PER_TURN,
                f"{r['design']}: {r['background_calls_per_turn']:.2f} background calls a turn "
                f"(goal <= {MAX_BACKGROUND_PER_TURN:g})",
            ),
            (r["failed"] == 0, f"{r['design']}: {r['failed']} failed extractions"),
        ]
        lines += [f"{'PASS' if ok else 'FAIL'}  {text}" for ok, text in checks]
    return lines


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=len(SCRIPT), help="sessions (1..5)")
    parser.add_argument("--debounce", type=float, default=1.0, help="after_seconds for submits")
    parser.add_argument("--designs", nargs="+", choices=DESIGNS, default=list(DESIGNS))
    parser.add_argument("--out", type=Path, help="JSON output path")
    args = parser.parse_args(argv)
    full = args.sessions == len(SCRIPT) and list(args.designs) == list(DESIGNS)
    out = args.out or RESULTS / ("calls.json" if full else "calls_some.json")
    sessions = script(args.sessions)
    rows = []
    for design in args.designs:
        rows.append(run_design(design, sessions, args.debounce))
        print(f"  {design:<24} done in {rows[-1]['seconds']:.0f} s", flush=True)
    result = {
        "params": {
            "sessions": args.sessions,
            "turns": sum(len(s) for _t, s in sessions),
            "debounce_s": args.debounce,
            "backend": os.environ.get("MEMLIB_LLM"),
            "python": sys.version.split()[0],
            "load_average": os.getloadavg(),
        },
        "rows": rows,
    }
    print()
    print(table(result))
    for line in check_targets(result):
        print(line)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return result


if __name__ == "__main__":
    main()
