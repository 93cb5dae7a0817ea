"""Prompt tokens per turn by memory strategy, and what trimming a long history costs per turn.

1. Strategies. The 200-turn `long_chat` fixture (notebook 01: a learner and a Python tutor, with
   run_python tool calls) is repeated with fresh message and tool-call ids to `--turns` turns
   (1,000 by default) and replayed turn by turn. Before each reply we count, with real tiktoken
   (o200k_base) and OpenAI's per-message overhead, the prompt each strategy would send (the new
   user message included): `full` (FullBuffer), `window` (SlidingWindowBuffer, last 6 turns),
   `token trim` (TokenTrimBuffer, 600 tokens), `summary buffer` (SummaryBuffer, 600 tokens, an
   80-word summary written by the offline chat model) and `rotation` (notebook 06's compress node:
   above 8 messages in state after a turn, all but the last 2 are folded into a 120-word summary
   and deleted). The parameters are notebook 01's and notebook 06's. The replies come from the
   fixture, so only the summary buffer and rotation call the chat model, to summarize.
2. Trimming cost. For histories of 500, 1,000 and 2,000 messages (the same repeated fixture,
   each ending on the user's new question, as a LangGraph node sees it), the time of one call
   that cuts the prompt to `--budget` tokens (4,000 by default): `trim_to_budget` (memlib.buffers,
   walks back from the newest message over cached per-message counts) against plain langchain_core
   `trim_messages` with the same options and the same warm TokenCounter. Each call is timed on
   the histories of `--repeats` consecutive turns, with the garbage collector paused as timeit
   does; p50 and p95 of the wall time per size, and the p50 of this process's CPU time (less
   sensitive to other work on a shared machine; the load average is recorded). Both must return
   the same messages (checked on every call).

Usage: python benchmarks/tokens.py [--quick] [--turns N] [--sizes 500 1000 2000] [--budget N]
       [--repeats N] [--out PATH]
Writes benchmarks/results/tokens.json (tokens_quick.json with --quick) and prints two tables.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("MEMLIB_LLM", "offline")  # deterministic, no network

from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)

from memlib.buffers import (  # noqa: E402
    FullBuffer,
    SlidingWindowBuffer,
    SummaryBuffer,
    TokenTrimBuffer,
    load_conversation,
    trim_to_budget,
    turns,
)
from memlib.rotation import compress_node, prompt_with_summary  # noqa: E402
from memlib.tokens import TOKENS_PER_REPLY, TokenCounter  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
FIXTURE = "long_chat"
WINDOW_TURNS = 6  # notebook 01
TOKEN_BUDGET = 600  # notebook 01: token trim and summary buffer
SUMMARY_WORDS = 80  # notebook 01
ROTATION_THRESHOLD = 8  # notebook 06
ROTATION_KEEP_LAST = 2  # notebook 06
ROTATION_WORDS = 120  # memlib.rotation's default
STRATEGIES = ("full", "window", "token trim", "summary buffer", "rotation")
TARGET_MS = 1.0  # trim_to_budget per turn at the largest size
FLAT_RATIO = 2.0  # p50 at the largest size / p50 at the smallest: "flat as the history grows"


# --- data ---------------------------------------------------------------------------------------


def _fresh(message: BaseMessage, tag: str) -> BaseMessage:
    """A copy with its id (and tool-call ids) tagged, so each repetition is a new message."""
    update: dict = {"id": f"{tag}-{message.id}"}
    if isinstance(message, AIMessage) and message.tool_calls:
        update["tool_calls"] = [{**c, "id": f"{tag}-{c['id']}"} for c in message.tool_calls]
    if isinstance(message, ToolMessage):
        update["tool_call_id"] = f"{tag}-{message.tool_call_id}"
    return message.model_copy(update=update)


def conversation(n_turns: int) -> tuple[SystemMessage, list[list[BaseMessage]]]:
    """The fixture's system prompt and n_turns turns: its 200 turns repeated with fresh ids."""
    if n_turns < 1:
        raise ValueError(f"n_turns must be >= 1, got {n_turns}")
    chat = load_conversation(FIXTURE)
    system, base = chat[0], turns(chat[1:])
    out = []
    for i in range(n_turns):
        rep, turn = divmod(i, len(base))
        out.append([_fresh(m, f"r{rep}") for m in base[turn]])
    return system, out


def questions_at(size: int, repeats: int) -> tuple[SystemMessage, list[list[BaseMessage]]]:
    """Histories of about `size` messages (system prompt included), each ending on the user's new
    question: the last `repeats` such cuts at or below size, oldest first."""
    n_turns = size // 2 + repeats + 10  # turns average more than two messages: enough
    system, chat = conversation(n_turns)
    flat = [system, *(m for turn in chat for m in turn)]
    ends = [i + 1 for i, m in enumerate(flat) if isinstance(m, HumanMessage) and i + 1 <= size]
    if len(ends) < repeats:
        raise ValueError(f"size {size} holds fewer than {repeats} user turns")
    return system, [flat[:end] for end in ends[-repeats:]]


# --- 1 · prompt tokens per turn by strategy ------------------------------------------------------


class Rotation:
    """Notebook 06's summary rotation on a replayed conversation: the state's messages and summary,
    compressed after every turn by memlib.rotation.compress_node."""

    def __init__(self, system: str, model):
        self.system = system
        self.messages: list[BaseMessage] = []
        self.summary = ""
        self.calls = 0
        self.compress = compress_node(
            model,
            threshold=ROTATION_THRESHOLD,
            keep_last=ROTATION_KEEP_LAST,
            summary_words=ROTATION_WORDS,
        )

    def prompt(self) -> list[BaseMessage]:
        return prompt_with_summary(self.messages, self.summary, self.system)

    def end_turn(self) -> None:
        update = self.compress({"messages": self.messages, "summary": self.summary})
        if update:
            self.calls += 1
            self.summary = update["summary"]
            gone = {r.id for r in update["messages"] if isinstance(r, RemoveMessage)}
            self.messages = [m for m in self.messages if m.id not in gone]


def strategy_tokens(n_turns: int) -> dict:
    """Prompt tokens before each reply, per strategy, over n_turns turns; and summarizer calls."""
    from memlib import get_chat_model

    system, chat = conversation(n_turns)
    count = TokenCounter()
    model = get_chat_model()
    text = system.content
    buffers = {
        "full": FullBuffer(text, count),
        "window": SlidingWindowBuffer(text, max_turns=WINDOW_TURNS, token_counter=count),
        "token trim": TokenTrimBuffer(text, max_tokens=TOKEN_BUDGET, token_counter=count),
        "summary buffer": SummaryBuffer(
            text, model, max_tokens=TOKEN_BUDGET, summary_words=SUMMARY_WORDS, token_counter=count
        ),
    }
    rotation = Rotation(text, model)
    series: dict[str, list[int]] = {name: [] for name in STRATEGIES}
    seconds = dict.fromkeys(STRATEGIES, 0.0)
    for turn in chat:
        for name, buf in buffers.items():
            t0 = time.perf_counter()
            buf.add(turn[0])
            series[name].append(count(buf.messages))
            buf.extend(turn[1:])
            seconds[name] += time.perf_counter() - t0
        t0 = time.perf_counter()
        rotation.messages.append(turn[0])
        series["rotation"].append(count(rotation.prompt()))
        rotation.messages.extend(turn[1:])
        rotation.end_turn()
        seconds["rotation"] += time.perf_counter() - t0
    calls = {"summary buffer": buffers["summary buffer"].summaries, "rotation": rotation.calls}
    rows = []
    for name in STRATEGIES:
        s = series[name]
        rows.append(
            {
                "strategy": name,
                "turns": len(s),
                "tokens_first": s[0],
                "tokens_t100": s[min(99, len(s) - 1)],
                "tokens_last": s[-1],
                "tokens_mean": round(statistics.fmean(s), 1),
                "tokens_max": max(s),
                "tokens_total": sum(s),
                "share_of_full": round(sum(s) / sum(series["full"]), 4),
                "summary_calls": calls.get(name, 0),
                "summary_calls_per_turn": round(calls.get(name, 0) / len(s), 4),
                "seconds": round(seconds[name], 2),
            }
        )
    return {"rows": rows, "series": series}


# --- 2 · trimming cost per turn -------------------------------------------------------------------


def plain_trim(messages: list[BaseMessage], budget: int, counter: TokenCounter) -> list:
    """langchain_core's trim_messages with trim_to_budget's options (its double-charged reply
    overhead given back, so both are asked for the same budget)."""
    return trim_messages(
        messages,
        max_tokens=budget + TOKENS_PER_REPLY,
        token_counter=counter,
        strategy="last",
        include_system=True,
        start_on="human",
    )


def _ms(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return round(statistics.median(samples) * 1000, 4), round(p95 * 1000, 4)


def trimming_cost(sizes: list[int], budget: int, repeats: int) -> list[dict]:
    """Per size: p50 / p95 ms of trim_to_budget and of plain trim_messages, warm counter."""
    rows = []
    for size in sizes:
        _system, histories = questions_at(size, repeats)
        counter = TokenCounter()
        for h in histories:
            counter(h)  # warm: every message counted once, as in a running conversation
        names = ("trim_to_budget", "trim_messages", "trim_to_budget_cpu", "trim_messages_cpu")
        times: dict[str, list[float]] = {name: [] for name in names}
        kept = []
        same = True
        gc.collect()
        gc.disable()  # as timeit does: a collection triggered by earlier garbage is not this call's
        try:
            for h in histories:
                c0, t0 = time.process_time(), time.perf_counter()
                ours = trim_to_budget(h, budget, counter)
                c1, t1 = time.process_time(), time.perf_counter()
                theirs = plain_trim(h, budget, counter)
                c2, t2 = time.process_time(), time.perf_counter()
                times["trim_to_budget"].append(t1 - t0)
                times["trim_messages"].append(t2 - t1)
                times["trim_to_budget_cpu"].append(c1 - c0)
                times["trim_messages_cpu"].append(c2 - c1)
                same &= ours == theirs
                kept.append(len(ours))
        finally:
            gc.enable()
        ours_p50, ours_p95 = _ms(times["trim_to_budget"])
        theirs_p50, theirs_p95 = _ms(times["trim_messages"])
        ours_cpu, theirs_cpu = (
            _ms(times["trim_to_budget_cpu"])[0],
            _ms(times["trim_messages_cpu"])[0],
        )
        rows.append(
            {
                "messages": len(histories[-1]),
                "budget": budget,
                "calls": len(histories),
                "kept_messages_mean": round(statistics.fmean(kept), 1),
                "trim_to_budget_p50_ms": ours_p50,
                "trim_to_budget_p95_ms": ours_p95,
                "trim_messages_p50_ms": theirs_p50,
                "trim_messages_p95_ms": theirs_p95,
                # CPU time of this process: what the calls cost when other work shares the cores
                "trim_to_budget_cpu_p50_ms": ours_cpu,
                "trim_messages_cpu_p50_ms": theirs_cpu,
                "speedup_cpu_p50": round(theirs_cpu / max(ours_cpu, 1e-6), 1),
                "same_result": same,
            }
        )
    return rows


# --- report -----------------------------------------------------------------------------------


def _int(x) -> str:
    return f"{x:,.0f}"


def table(result: dict) -> str:
    """The two Markdown tables the README shows."""
    n = result["strategies"][0]["turns"]
    lines = [
        f"| strategy | tokens at turn 1 | at turn 100 | at turn {n:,} | mean per turn "
        f"| total over {n:,} turns | share of full | summarizer calls per turn |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["strategies"]:
        lines.append(
            f"| {r['strategy']} | {_int(r['tokens_first'])} | {_int(r['tokens_t100'])} "
            f"| {_int(r['tokens_last'])} | {_int(r['tokens_mean'])} | {_int(r['tokens_total'])} "
            f"| {r['share_of_full']:.1%} | {r['summary_calls_per_turn']:.2f} |"
        )
    lines += [
        "",
        "| history (messages) | kept (mean) | trim_to_budget p50 / p95 ms "
        "| trim_messages p50 / p95 ms | CPU p50 ms, ours / theirs | speed-up (CPU p50) | same result |",
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["trimming"]:
        lines.append(
            f"| {r['messages']:,} | {r['kept_messages_mean']:,.0f} "
            f"| {r['trim_to_budget_p50_ms']:.3f} / {r['trim_to_budget_p95_ms']:.3f} "
            f"| {r['trim_messages_p50_ms']:.2f} / {r['trim_messages_p95_ms']:.2f} "
            f"| {r['trim_to_budget_cpu_p50_ms']:.3f} / {r['trim_messages_cpu_p50_ms']:.2f} "
            f"| {r['speedup_cpu_p50']:,.0f}x | {'yes' if r['same_result'] else 'NO'} |"
        )
    return "\n".join(lines)


def check_targets(result: dict) -> list[str]:
    """PASS / FAIL lines for the goals: under 1 ms a turn at the largest size, flat as the history
    grows (at most FLAT_RATIO times the smallest size's p50), the same cut as trim_messages."""
    rows = result["trimming"]
    small, large = rows[0], rows[-1]
    ratio = large["trim_to_budget_p50_ms"] / small["trim_to_budget_p50_ms"]
    checks = [
        (
            large["trim_to_budget_p50_ms"] < TARGET_MS,
            f"trim_to_budget p50 at {large['messages']:,} messages is "
            f"{large['trim_to_budget_p50_ms']:.3f} ms (target < {TARGET_MS:g} ms)",
        ),
        (
            ratio <= FLAT_RATIO,
            f"trim_to_budget p50 grows {ratio:.2f}x from {small['messages']:,} to "
            f"{large['messages']:,} messages (target <= {FLAT_RATIO:g}x)",
        ),
        (all(r["same_result"] for r in rows), "trim_to_budget returns trim_messages' cut"),
    ]
    return [f"{'PASS' if ok else 'FAIL'}  {text}" for ok, text in checks]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 turns; sizes 200 and 500")
    parser.add_argument("--turns", type=int, help="conversation length (default 1,000)")
    parser.add_argument("--sizes", type=int, nargs="+", help="history sizes in messages")
    parser.add_argument("--budget", type=int, default=4000, help="trimming budget in tokens")
    parser.add_argument("--repeats", type=int, default=50, help="timed calls per size")
    parser.add_argument("--out", type=Path, help="JSON output path")
    args = parser.parse_args(argv)
    n_turns = args.turns or (100 if args.quick else 1000)
    sizes = sorted(args.sizes or ([200, 500] if args.quick else [500, 1000, 2000]))
    out = args.out or RESULTS / ("tokens_quick.json" if args.quick else "tokens.json")
    started = time.perf_counter()
    strategies = strategy_tokens(n_turns)
    result = {
        "params": {
            "fixture": FIXTURE,
            "turns": n_turns,
            "window_turns": WINDOW_TURNS,
            "token_budget": TOKEN_BUDGET,
            "summary_words": SUMMARY_WORDS,
            "rotation_threshold": ROTATION_THRESHOLD,
            "rotation_keep_last": ROTATION_KEEP_LAST,
            "rotation_words": ROTATION_WORDS,
            "trim_budget": args.budget,
            "repeats": args.repeats,
            "encoding": TokenCounter().encoding_name,
            "python": sys.version.split()[0],
            "load_average": os.getloadavg(),
        },
        "strategies": strategies["rows"],
        "trimming": trimming_cost(sizes, args.budget, args.repeats),
        "series": strategies["series"],
    }
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(table(result))
    for line in check_targets(result):
        print(line)
    print(f"total {result['seconds']:.0f} s; wrote {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(result))
    return result


def dumps(result: dict) -> str:
    """JSON with one line per series (the per-turn token counts), the rest indented."""
    head = json.dumps({k: v for k, v in result.items() if k != "series"}, indent=1)
    series = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in result["series"].items())
    return f'{head[:-2]},\n "series": {{\n{series}\n }}\n}}\n'


if __name__ == "__main__":
    main()
