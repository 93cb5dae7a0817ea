"""Notebook figures and the notebook runner.

`record(name, value)` displays a figure under a custom MIME type, so it survives in the executed
notebook's outputs; `run_notebooks()` executes notebooks with papermill, each in a fresh kernel
with its own timeout and output directory, and collects every recorded figure into
build/notebooks/records.json as {notebook file name: {figure name: value}}.

Command line: `python -m memlib [NOTEBOOK ...]` runs the given notebooks (default: all).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

RECORD_MIME = "application/vnd.memlib.record+json"
ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / "build" / "notebooks"
KERNEL = "memlib"
DEFAULT_TIMEOUT = 300  # seconds a notebook may take, unless its metadata sets memlib.timeout


def record(name: str, value) -> None:
    """Show a figure in the notebook and keep it for the test runner. Used in every Checks section.

    Returns None, so a record(...) at the end of a cell does not echo the value a second time.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"record name must be a non-empty string, got {name!r}")
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if not isinstance(value, bool | int | float | str):
        raise TypeError(f"record {name!r}: value must be a number, string or bool, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"record {name!r}: value must be finite, got {value!r}")
    from IPython.display import display

    display(
        {RECORD_MIME: {"name": name, "value": value}, "text/plain": f"recorded {name} = {value!r}"},
        raw=True,
    )


def read_records(notebook_path: str | os.PathLike) -> dict:
    """Every figure an executed notebook recorded, in order."""
    nb = json.loads(Path(notebook_path).read_text())
    found = {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if RECORD_MIME in data:
                item = data[RECORD_MIME]
                found[item["name"]] = item["value"]
    return found


def output_dir(notebook: str | os.PathLike) -> Path:
    """Where a notebook writes its files: build/notebooks/<stem>/."""
    return BUILD / Path(notebook).stem


def ensure_kernel() -> None:
    """Register this interpreter as the 'memlib' Jupyter kernel (inside its prefix) if missing."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL)
        if Path(spec.argv[0]).resolve() == Path(sys.executable).resolve():
            return
    except NoSuchKernel:
        pass
    from ipykernel.kernelspec import install

    install(kernel_name=KERNEL, display_name="Python (memlib)", prefix=sys.prefix)


def notebook_timeout(notebook: str | os.PathLike) -> int:
    """A notebook's time budget: metadata {"memlib": {"timeout": N}} or DEFAULT_TIMEOUT."""
    meta = json.loads(Path(notebook).read_text()).get("metadata", {})
    return int(meta.get("memlib", {}).get("timeout", DEFAULT_TIMEOUT))


def execute(notebook: str | os.PathLike, timeout: int | None = None, parameters=None) -> dict:
    """Execute one notebook in a fresh kernel into build/notebooks/; return its recorded figures.

    No cell may run longer than the notebook's budget, and the whole run must fit in it too.
    """
    import papermill as pm

    src = Path(notebook).resolve()
    timeout = timeout or notebook_timeout(src)
    start = time.perf_counter()
    out_dir = output_dir(src)
    out_dir.mkdir(parents=True, exist_ok=True)
    dest = BUILD / src.name
    params = {"OUTPUT_DIR": str(out_dir), **(parameters or {})}
    pm.execute_notebook(
        str(src),
        str(dest),
        parameters=params,
        kernel_name=KERNEL,
        cwd=str(src.parent),
        execution_timeout=timeout,
        progress_bar=False,
        report_mode=False,
        start_timeout=120,  # kernel start-up; a loaded 2-core machine can take tens of seconds
    )
    elapsed = time.perf_counter() - start
    if elapsed > timeout:
        raise TimeoutError(f"{src.name} took {elapsed:.0f} s, over its {timeout} s budget")
    return read_records(dest)


def write_records(records: dict) -> Path:
    """Merge figures into build/notebooks/records.json."""
    path = BUILD / "records.json"
    merged = json.loads(path.read_text()) if path.exists() else {}
    merged.update(records)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dict(sorted(merged.items())), indent=2) + "\n")
    tmp.replace(path)
    return path


def all_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def run_notebooks(notebooks=None, timeout: int | None = None) -> dict:
    """Execute notebooks one by one, each in a fresh kernel; write records.json; return records."""
    ensure_kernel()
    paths = [Path(n) for n in notebooks] if notebooks else all_notebooks()
    records, failures = {}, []
    for path in paths:
        start = time.perf_counter()
        try:
            records[path.name] = execute(path, timeout=timeout)
            status = "ok"
        except Exception as exc:  # report every notebook, then fail
            failures.append((path.name, exc))
            status = f"FAILED: {type(exc).__name__}"
        print(f"{path.name:45s} {time.perf_counter() - start:6.1f} s  {status}", flush=True)
    write_records(records)
    if failures:
        for name, exc in failures:
            print(f"\n--- {name} ---\n{exc}", file=sys.stderr)
        raise SystemExit(f"{len(failures)} notebook(s) failed")
    return records


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook paths (default: all)")
    parser.add_argument("--timeout", type=int, default=None, help="seconds per notebook")
    args = parser.parse_args(argv)
    run_notebooks(args.notebooks or None, timeout=args.timeout)
    print(f"records: {BUILD / 'records.json'}")


if __name__ == "__main__":
    main()
