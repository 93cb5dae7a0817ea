"""Notebook figures and the notebook runner.

`record(name, value)` displays a figure under a custom MIME type, so it survives in the executed
notebook's outputs; `run_notebooks()` executes notebooks with papermill, each in a fresh kernel
with its own timeout and output directory, and collects every recorded figure into
build/notebooks/records.json as {notebook file name: {figure name: value}}.

Three ways to run them (`VARIANTS`), each into its own build directory: `offline`, the offline
model in the kernel (build/notebooks/, what `make run` does); `openai`, langchain-openai's
ChatOpenAI and OpenAIEmbeddings against a local OpenAI-compatible server (offline_model.server)
answering with the offline model and refusing, with HTTP 400, what the OpenAI API refuses
(build/notebooks-openai/); `reworded`, the same server rewording every reply while keeping its
meaning, standing in for the variety of real models (build/notebooks-reworded/). The server
variants also write calls.json (chat and embedding requests per notebook). Command line:
`python -m memlib [--variant V] [NOTEBOOK ...]` runs the given notebooks (default: all).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from memlib.checks import check_kind

RECORD_MIME = "application/vnd.memlib.record+json"
RECORDS_MIME = "application/vnd.memlib.records+json"
ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / "build" / "notebooks"
KERNEL = "memlib"
DEFAULT_TIMEOUT = 300  # seconds a notebook may take, unless its metadata sets memlib.timeout
VARIANTS = ("offline", "openai", "reworded")
SERVER_MODES = {"openai": "plain", "reworded": "reworded"}
# The model names the kernel asks the local server for; the server answers every name alike.
# The embedding model is not an OpenAI name, so embedding_dims() asks the server for the size.
SERVED_CHAT_MODEL = "gpt-4o-mini"
SERVED_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
_BACKEND_VARS = """MEMLIB_LLM MEMLIB_EMBEDDINGS MEMLIB_OPENAI_MODEL MEMLIB_OPENAI_EMBEDDING_MODEL
OPENAI_API_KEY OPENAI_BASE_URL MEMLIB_STRUCTURED_OUTPUT""".split()


_PENDING: list[tuple[str, bool | int | float | str]] = []
_HOOKED = False


def record(name: str, value) -> None:
    """Keep a figure for the test runner; each cell shows its figures once, as one table. Used in
    every Checks section.

    Returns None, so a record(...) at the end of a cell does not echo the value a second time.
    Outside IPython (a plain script) each figure is displayed at once instead.
    """
    global _HOOKED
    check_kind(name, str, "record name", "a str")
    if not name.strip():
        raise ValueError(f"record name must be a non-empty string, got {name!r}")
    value = value.item() if hasattr(value, "item") else value  # numpy scalars
    check_kind(
        value, bool | int | float | str, f"record {name!r}: value", "a number, string or bool"
    )
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"record {name!r}: value must be finite, got {value!r}")
    from IPython import get_ipython

    shell = get_ipython()
    _PENDING.append((name, value))
    if shell is None:
        show_records()
        return
    if not _HOOKED:
        # after each cell, like matplotlib's inline figures: the cell's figures, one table
        shell.events.register("post_execute", show_records)
        _HOOKED = True


def show_records() -> None:
    """Display the figures recorded since the last call as one table (and clear them)."""
    if not _PENDING:
        return
    from html import escape

    from IPython.display import display

    figures = [{"name": n, "value": v} for n, v in _PENDING]
    _PENDING.clear()
    width = max(len(f["name"]) for f in figures)
    text = "\n".join(f"recorded {f['name']:<{width}}  {f['value']!r}" for f in figures)
    rows = "".join(
        f"<tr><td><code>{escape(f['name'])}</code></td><td>{escape(repr(f['value']))}</td></tr>"
        for f in figures
    )
    html = (
        f"<details><summary>{len(figures)} figure(s) recorded for the test runner</summary>"
        f"<table><tr><th>figure</th><th>value</th></tr>{rows}</table></details>"
    )
    display({RECORDS_MIME: {"figures": figures}, "text/html": html, "text/plain": text}, raw=True)


def read_records(notebook_path: str | os.PathLike) -> dict:
    """Every figure an executed notebook recorded, in order."""
    nb = json.loads(Path(notebook_path).read_text(encoding="utf-8"))
    found = {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if item := data.get(RECORD_MIME):  # one figure an output (before they were grouped)
                found[item["name"]] = item["value"]
            for item in data.get(RECORDS_MIME, {}).get("figures", []):
                found[item["name"]] = item["value"]
    return found


def _check_variant(variant: str | None) -> str | None:
    check_kind(variant, str | None, "variant", "a str or None")
    if variant is not None and variant not in VARIANTS:
        raise ValueError(f"variant {variant!r} is not one of {VARIANTS} (or None)")
    return variant


def build_dir(variant: str | None = None) -> Path:
    """Where one variant's executed notebooks go: build/notebooks[-<variant>]/.

    None (the backend the environment chooses) and "offline" share build/notebooks/.
    """
    return (
        BUILD
        if _check_variant(variant) in (None, "offline")
        else BUILD.with_name(f"notebooks-{variant}")
    )


def output_dir(notebook: str | os.PathLike, variant: str | None = None) -> Path:
    """Where a notebook writes its files: build/notebooks[-<variant>]/<stem>/."""
    return build_dir(variant) / Path(notebook).stem


def variant_env(variant: str | None, base_url: str | None = None) -> dict[str, str] | None:
    """The backend environment variables a kernel gets for one variant (None: leave it be)."""
    check_kind(base_url, str | None, "base_url", "a str or None")
    if _check_variant(variant) is None:
        return None
    if variant == "offline":
        return {"MEMLIB_LLM": "offline", "MEMLIB_EMBEDDINGS": "offline"}
    if not base_url:
        raise ValueError(f"variant {variant!r} needs the local server's base_url, got {base_url!r}")
    env = {
        "MEMLIB_LLM": "openai",
        "MEMLIB_EMBEDDINGS": "openai",
        "MEMLIB_OPENAI_MODEL": SERVED_CHAT_MODEL,
        "MEMLIB_OPENAI_EMBEDDING_MODEL": SERVED_EMBEDDING_MODEL,
        "OPENAI_API_KEY": "sk-local-test-server",
        "OPENAI_BASE_URL": base_url,
    }
    if variant == "reworded":  # the other structured-output path: a forced tool call
        env["MEMLIB_STRUCTURED_OUTPUT"] = "function_calling"
    return env


@contextlib.contextmanager
def backend_environment(env: dict[str, str] | None):
    """Set the backend variables (and clear the other ones) for kernels started inside.

    None leaves the environment as it is."""
    if env is None:
        yield
        return
    saved = {k: os.environ.pop(k) for k in _BACKEND_VARS if k in os.environ}
    try:
        os.environ.update(env)
        yield
    finally:
        for k in _BACKEND_VARS:
            os.environ.pop(k, None)
        os.environ.update(saved)


@contextlib.contextmanager
def serving(variant: str | None):
    """Yield (env, server) for a variant: the local OpenAI-compatible server runs inside."""
    if _check_variant(variant) in (None, "offline"):
        yield variant_env(variant), None
        return
    from offline_model.server import OpenAICompatibleServer

    with OpenAICompatibleServer(port=0, mode=SERVER_MODES[variant]) as server:
        yield variant_env(variant, server.base_url), server


def ensure_kernel() -> None:
    """Register this interpreter as the 'memlib' Jupyter kernel (inside its prefix) if missing."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    with contextlib.suppress(NoSuchKernel):
        spec = KernelSpecManager().get_kernel_spec(KERNEL)
        if Path(spec.argv[0]).resolve() == Path(sys.executable).resolve():
            return
    from ipykernel.kernelspec import install

    install(kernel_name=KERNEL, display_name="Python (memlib)", prefix=sys.prefix)


def notebook_timeout(notebook: str | os.PathLike) -> int:
    """A notebook's time budget: metadata {"memlib": {"timeout": N}} or DEFAULT_TIMEOUT."""
    meta = json.loads(Path(notebook).read_text(encoding="utf-8")).get("metadata", {})
    return int(meta.get("memlib", {}).get("timeout", DEFAULT_TIMEOUT))


def execute(
    notebook: str | os.PathLike,
    timeout: int | None = None,
    parameters=None,
    variant: str | None = None,
) -> dict:
    """Execute one notebook in a fresh kernel into build_dir(variant); return its figures.

    The kernel inherits this process's environment: run it inside `backend_environment` to choose
    the backend. No cell may run longer than the notebook's budget, nor the whole run.
    """
    import papermill as pm
    from nbclient.exceptions import DeadKernelError

    src = Path(notebook).resolve()
    timeout = timeout or notebook_timeout(src)
    start = time.perf_counter()
    out_dir = output_dir(src, variant)
    out_dir.mkdir(parents=True, exist_ok=True)
    (dest := build_dir(variant) / src.name).unlink(missing_ok=True)  # a dead run leaves none
    params = {"OUTPUT_DIR": str(out_dir), **(parameters or {})}
    try:
        pm.execute_notebook(
            str(src),
            str(dest),
            parameters=params,
            kernel_name=KERNEL,
            cwd=str(src.parent),
            execution_timeout=timeout,  # a cell still running then is stopped: CellTimeoutError
            progress_bar=False,
            request_save_on_cell_execute=False,  # written once at the end, not twice a cell
            start_timeout=120,  # kernel start-up; a loaded 2-core machine can take tens of seconds
            kernel_manager_class=_private_ipc_kernel_manager(),
        )
    except DeadKernelError as exc:  # os._exit, a crash, the OOM killer: fail now, saying so
        raise RuntimeError(f"{src.name}: the kernel died while running a cell") from exc
    elapsed = time.perf_counter() - start
    if elapsed > timeout:
        raise TimeoutError(f"{src.name} took {elapsed:.0f} s, over its {timeout} s budget")
    return read_records(dest)


@functools.lru_cache(maxsize=1)
def _private_ipc_kernel_manager():
    """An async KernelManager (a blocking one stalled nbclient's event loop: no cell timeout fired,
    a dead kernel hung the run) whose kernel talks over IPC sockets in a directory of its own.

    TCP kernels print "Kernel is running over TCP without encryption" on every start; IPC sockets
    named relative to the working directory collided when two runs started at once. Each kernel
    here gets a fresh temporary directory, removed when the kernel's files are cleaned up."""
    from jupyter_client.manager import AsyncKernelManager

    class PrivateIPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            self._ipc_dir = tempfile.mkdtemp(prefix="memlib-kernel-")
            super().__init__(transport="ipc", ip=os.path.join(self._ipc_dir, "ipc"), **kwargs)

        async def _async_launch_kernel(self, kernel_cmd, **kw) -> None:
            # the Makefile's bytecode rule, for kernels started without make: ~6 s of CPU each
            env = kw["env"] = dict(kw.get("env") or os.environ)
            if env.pop("PYTHONDONTWRITEBYTECODE", None):
                env.setdefault("PYTHONPYCACHEPREFIX", str(ROOT / "build" / "pycache"))
            await super()._async_launch_kernel(kernel_cmd, **kw)

        async def cleanup_resources(self, restart: bool = False) -> None:  # nbclient's last call
            await super().cleanup_resources(restart=restart)
            if not restart:
                shutil.rmtree(self._ipc_dir, ignore_errors=True)

    return PrivateIPCKernelManager


def write_records(records: dict, variant: str | None = None, name: str = "records.json") -> Path:
    """Merge {notebook: figures} into build_dir(variant)/records.json (or another JSON file)."""
    path = build_dir(variant) / name
    merged = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    merged.update(records)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dict(sorted(merged.items())), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def counters(server, since: dict | None = None) -> dict:
    """The server's request counters now, or how much each grew since an earlier reading."""
    check_kind(since, dict | None, "since", "an earlier counters() reading (a dict)")
    now = {k: v for k, v in server.stats.items() if isinstance(v, int)}
    return {k: v - (since or {}).get(k, 0) for k, v in now.items()}


EXPECTATIONS = ROOT / "tests" / "expectations"


def load_expectations(stem: str):
    """tests/expectations/<stem>.py as a module (EXPECT, OPENAI_DIFFERENCES, TECHNIQUE), or None."""
    check_kind(stem, str, "stem", "a notebook's file stem (str)")
    path = EXPECTATIONS / f"{stem}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"expect_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def all_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def run_notebooks(notebooks=None, timeout: int | None = None, variant: str | None = None) -> dict:
    """Execute notebooks one by one, each in a fresh kernel; write records.json; return records."""
    ensure_kernel()
    paths = [Path(n) for n in notebooks] if notebooks else all_notebooks()
    records, calls, failures = {}, {}, []
    with serving(variant) as (env, server), backend_environment(env):
        for path in paths:
            start = time.perf_counter()
            before = counters(server) if server else None
            try:
                records[path.name] = execute(path, timeout=timeout, variant=variant)
                status = "ok"
            except Exception as exc:  # report every notebook, then fail
                failures.append((path.name, exc))
                status = f"FAILED: {type(exc).__name__}"
            if server:
                calls[path.name] = counters(server, since=before)
                status += f"  {calls[path.name]['chat_requests']} model calls"
            print(f"{path.name:45s} {time.perf_counter() - start:6.1f} s  {status}", flush=True)
    write_records(records, variant)
    if calls:
        write_records(calls, variant, name="calls.json")
    if failures:
        for name, exc in failures:
            print(f"\n--- {name} ---\n{exc}", file=sys.stderr)
        raise SystemExit(f"{len(failures)} notebook(s) failed")
    return records


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook paths (default: all)")
    parser.add_argument("--timeout", type=int, default=None, help="seconds per notebook")
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        help="offline: the offline model in the kernel; openai / reworded: ChatOpenAI against "
        "the local server, plain or rewording its replies (default: the backend MEMLIB_LLM and "
        "OPENAI_API_KEY choose)",
    )
    args = parser.parse_args(argv)
    run_notebooks(args.notebooks or None, timeout=args.timeout, variant=args.variant)
    print(f"records: {build_dir(args.variant) / 'records.json'}")
