"""memlib.eval: measure a memory strategy on planted-fact conversations (notebook 11).

- `dataset`: the JSONL format (sessions of timestamped messages, questions of LongMemEval's five
  types with gold answers and evidence turns), `load_dataset` / `save_dataset` with validation.
- `generator`: `generate_case` / `generate_dataset`, long synthetic histories deterministic by seed.
- `strategies`: full history, sliding window, token trimming, summary rotation, episodic recall,
  semantic memory, notebook 09's agent, a wrong-on-purpose one, and `function_strategy` for a
  reader's own agent (a function from messages to an answer).
- `metrics`: grading and per-type accuracy, stale rate, abstention, recall@k, tokens, calls, latency.
- `trace`: `TracedStore` records every store read and write with the turn that caused it.
- `harness`: `evaluate(cases, strategy)`, `sweep` over history lengths; `python -m memlib.eval`.
- `longmemeval`: LongMemEval's published JSON as cases; session recall@k with no chat model.

Leaves out: model-graded answers, and questions asked mid-history.
"""

from memlib.eval.dataset import QUESTION_TYPES, load_dataset, save_dataset, validate_case
from memlib.eval.generator import SCALE, generate_case, generate_dataset
from memlib.eval.harness import EvalRun, evaluate, sweep
from memlib.eval.longmemeval import load_longmemeval, session_recall
from memlib.eval.metrics import format_summary, grade, says_dont_know, summarize
from memlib.eval.strategies import STRATEGIES, Strategy, function_strategy
from memlib.eval.trace import Trace, TracedStore

__all__ = [
    "QUESTION_TYPES",
    "SCALE",
    "STRATEGIES",
    "EvalRun",
    "Strategy",
    "Trace",
    "TracedStore",
    "evaluate",
    "format_summary",
    "function_strategy",
    "generate_case",
    "generate_dataset",
    "grade",
    "load_longmemeval",
    "load_dataset",
    "save_dataset",
    "says_dont_know",
    "session_recall",
    "summarize",
    "sweep",
    "validate_case",
]
