"""The offline model: a deterministic, rule-based chat model and a local OpenAI-compatible server
answering with it, so every notebook runs with no network, no API key and no model download.

Modules, each importing only those listed before it (no cycle; tests/test_import_graph.py):

- `rules`: the rule set as data: sentence splitting, entities, fact and question patterns,
  `extract_facts` (-> `Statement`), person rewriting (`to_third_person`, `conjugate`).
- `text`: helpers the others share: `message_text`, `flatten_json`, `SINGLE_VALUED`, `embed`,
  `token_counter`.
- `skills`: the text skills on a `Request`: grade, summarize, answer (`SKILLS`, `classify`).
- `tools`: tool calling and structured output (`plan_tool_calls`): schema filling, trustcall and
  LangMem protocols, the agent-loop policy, tool-call ids.
- `model`: `OfflineChatModel`, the langchain `BaseChatModel` dispatching to tools or a skill.
- `server`: `OpenAICompatibleServer` (`python -m offline_model.server`).

`OfflineChatModel` loads on first use, so importing `offline_model.rules` stays light.
Leaves out: anything a rule does not cover (see docs/offline_model.md).
"""

__all__ = ["OfflineChatModel"]


def __getattr__(name: str):
    if name == "OfflineChatModel":
        from offline_model.model import OfflineChatModel

        return OfflineChatModel
    raise AttributeError(f"module 'offline_model' has no attribute {name!r}")
