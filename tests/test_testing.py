import json
import threading
import time

import pytest

from memlib.testing import RECORD_MIME, read_records, record


def test_record_rejects_bad_values():
    with pytest.raises(ValueError, match="non-empty"):
        record(" ", 1)
    with pytest.raises(TypeError, match="'x'"):
        record("x", [1, 2])
    with pytest.raises(ValueError, match="finite"):
        record("x", float("nan"))


def test_read_records_finds_recorded_outputs(tmp_path):
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "x"},
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "data": {RECORD_MIME: {"name": "a", "value": 3}},
                    },
                    {"output_type": "stream", "text": "hello"},
                ],
            },
        ]
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    assert read_records(path) == {"a": 3}


def test_a_cell_shows_its_figures_as_one_table(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    from memlib.testing import KERNEL, RECORDS_MIME, ensure_kernel

    ensure_kernel()
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from memlib import record\nrecord('a', 1)\nrecord('b', 'x')"),
        nbformat.v4.new_code_cell("print('no figures here')"),
        nbformat.v4.new_code_cell("record('c', 2.5)"),
    ]
    NotebookClient(nb, kernel_name=KERNEL, timeout=60, startup_timeout=120).execute()
    tables = [[o for o in cell.outputs if RECORDS_MIME in o.get("data", {})] for cell in nb.cells]
    assert [len(t) for t in tables] == [1, 0, 1]
    assert tables[0][0]["data"][RECORDS_MIME]["figures"] == [
        {"name": "a", "value": 1},
        {"name": "b", "value": "x"},
    ]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    assert read_records(path) == {"a": 1, "b": "x", "c": 2.5}


def test_bad_input_record():
    with pytest.raises(ValueError, match="''"):
        record("", 1)
    with pytest.raises(TypeError, match="record name must be a str, got NoneType"):
        record(None, 1)
    with pytest.raises(TypeError, match=r"\[1, 2\]"):
        record("figure", [1, 2])
    with pytest.raises(ValueError, match="nan"):
        record("figure", float("nan"))


def test_kernels_keep_bytecode_when_the_environment_forbids_writing_it(monkeypatch):
    """With PYTHONDONTWRITEBYTECODE set, a kernel started by memlib.testing (python -m memlib,
    benchmarks/notebooks.py) writes and reads bytecode under build/pycache, as `make` arranges."""
    import asyncio

    from jupyter_client.manager import KernelManager

    from memlib import testing

    launched = {}

    async def launch(self, kernel_cmd, **kw):
        launched.update(kw["env"])

    monkeypatch.setattr(KernelManager, "_async_launch_kernel", launch)
    manager = testing._private_ipc_kernel_manager()(kernel_name="memlib")
    try:
        env = {"PYTHONDONTWRITEBYTECODE": "1", "MEMLIB_LLM": "offline"}
        asyncio.run(manager._async_launch_kernel(["python"], env=env))
        assert "PYTHONDONTWRITEBYTECODE" not in launched and launched["MEMLIB_LLM"] == "offline"
        assert launched["PYTHONPYCACHEPREFIX"] == str(testing.ROOT / "build" / "pycache")
        launched.clear()  # a prefix the caller chose is kept; without the variable, nothing changes
        asyncio.run(manager._async_launch_kernel(["python"], env={"PYTHONPYCACHEPREFIX": "/x"}))
        assert launched == {"PYTHONPYCACHEPREFIX": "/x"}
    finally:
        asyncio.run(manager.cleanup_resources())


def test_execute_writes_the_executed_copy_once_and_a_failed_run_none(tmp_path, monkeypatch):
    """execute() writes build_dir/<notebook> once, when the run ends (papermill wrote the whole
    notebook at every cell's start and end: about 0.5 s of the test process's CPU a notebook), and
    a run that fails before its end (here: no such kernel) leaves no executed copy rather than an
    earlier run's."""
    import nbformat
    import papermill.engines

    import memlib.testing as testing

    monkeypatch.setattr(testing, "BUILD", tmp_path / "build")
    per_cell = []  # papermill's saves at each cell's start and end go through engines.write_ipynb
    monkeypatch.setattr(papermill.engines, "write_ipynb", lambda nb, path: per_cell.append(path))
    testing.ensure_kernel()
    nb = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python"}})
    params = nbformat.v4.new_code_cell("OUTPUT_DIR = 'x'", metadata={"tags": ["parameters"]})
    nb.cells = [params] + [nbformat.v4.new_code_cell(f"x = {i}") for i in range(3)]
    nb.cells.append(nbformat.v4.new_code_cell("from memlib import record\nrecord('x', x)"))
    nbformat.write(nb, source := tmp_path / "00_tiny.ipynb")
    assert testing.execute(source, timeout=120) == {"x": 2}
    assert per_cell == [] and (testing.build_dir() / source.name).exists()

    monkeypatch.setattr(testing, "KERNEL", "no-such-kernel")  # the run fails before any cell
    with pytest.raises(Exception, match="no-such-kernel"):
        testing.execute(source, timeout=120)
    assert not (testing.build_dir() / source.name).exists()


def _one_cell_notebook(tmp_path, monkeypatch, code: str):
    import nbformat

    import memlib.testing as testing

    monkeypatch.setattr(testing, "BUILD", tmp_path / "build")
    testing.ensure_kernel()
    nb = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python"}})
    params = nbformat.v4.new_code_cell("OUTPUT_DIR = 'x'", metadata={"tags": ["parameters"]})
    nb.cells = [params, nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, source := tmp_path / "00_cell.ipynb")
    return source


def test_a_cell_over_its_timeout_is_stopped_when_the_timeout_ends(tmp_path, monkeypatch):
    """The per-cell timeout interrupts a running cell: a 300 s sleep under timeout=5 fails soon
    after its 5 s (measured from the cell's start, so a slow kernel start does not count). It was
    reported only after the sleep ended: the blocking kernel client stalled nbclient's timers."""
    from nbclient.exceptions import CellTimeoutError

    from memlib import testing

    started = tmp_path / "started"
    code = f"import pathlib, time\npathlib.Path({str(started)!r}).write_text(str(time.time()))\n"
    source = _one_cell_notebook(tmp_path, monkeypatch, code + "time.sleep(300)")
    with pytest.raises(CellTimeoutError, match="after 5 seconds"):
        testing.execute(source, timeout=5)
    assert time.time() - float(started.read_text()) < 60
    assert not (testing.build_dir() / source.name).exists()


def test_a_kernel_that_dies_fails_the_run_at_once_saying_so(tmp_path, monkeypatch):
    """A kernel that exits mid-cell (os._exit here; a crash or the OOM killer alike) fails the
    run within seconds, naming the notebook. It hung for ever: nbclient's wait for the cell's
    output blocked its event loop, so the check that the kernel lives never ran. The run goes in
    a thread, so that a hang fails this test instead of stalling the suite."""
    from memlib import testing

    source = _one_cell_notebook(tmp_path, monkeypatch, "import os\nos._exit(3)")
    outcome = []

    def run():
        try:
            testing.execute(source, timeout=300)
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(120)  # kernel start-up on a loaded machine, then a 1 s liveness poll
    assert not thread.is_alive(), "execute() hung on a dead kernel"
    assert len(outcome) == 1 and isinstance(outcome[0], RuntimeError), outcome
    assert str(outcome[0]) == "00_cell.ipynb: the kernel died while running a cell"
    assert not (testing.build_dir() / source.name).exists()
