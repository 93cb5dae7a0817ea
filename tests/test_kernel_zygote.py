"""Kernels forked from a zygote (tests/kernel_zygote.py) are fresh processes that behave as the
usual ones: their own pid, module state, environment and working directory; a dead kernel and a
cell over its timeout are reported as with kernels started the usual way."""

from __future__ import annotations

import os
import sys
import threading
import time

import kernel_zygote
import nbformat
import pytest

from memlib import testing


@pytest.fixture(scope="module")
def zygote():
    from jupyter_client.kernelspec import KernelSpecManager

    testing.ensure_kernel()
    argv = KernelSpecManager().get_kernel_spec(testing.KERNEL).argv
    zygote = kernel_zygote.Zygote(argv[1 : argv.index("-m")])
    assert zygote.start(), "the zygote did not start"
    yield zygote
    zygote.stop()
    assert zygote.process.poll() is not None and not os.path.exists(zygote.path)


@pytest.fixture
def run(zygote, tmp_path, monkeypatch):
    """run(code, timeout) executes a notebook of one cell in a kernel forked from the zygote."""
    monkeypatch.setattr(testing, "BUILD", tmp_path / "build")
    base = testing._private_ipc_kernel_manager()
    monkeypatch.setattr(testing, "_private_ipc_kernel_manager", lambda: zygote.manager_class(base))
    (tmp_path / "nb").mkdir()

    def run(code: str, timeout: int = 120) -> dict:
        nb = nbformat.v4.new_notebook(metadata={"language_info": {"name": "python"}})
        params = nbformat.v4.new_code_cell("OUTPUT_DIR = 'x'", metadata={"tags": ["parameters"]})
        nb.cells = [params, nbformat.v4.new_code_cell(code)]
        nbformat.write(nb, source := tmp_path / "nb" / "00_forked.ipynb")
        return testing.execute(source, timeout=timeout)

    return run


STATE = """
import json, os, sys
from memlib import record
record("pid", os.getpid())
record("parent", os.getppid())
record("cwd", os.getcwd())
record("variable", os.environ.get("MEMLIB_ZYGOTE_PROBE", "unset"))
record("marked before", hasattr(json, "zygote_mark"))
json.zygote_mark = True
record("spacy loaded", "spacy" in sys.modules)
"""


def test_each_kernel_is_a_fresh_process_forked_from_the_zygote(zygote, run, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLIB_ZYGOTE_PROBE", "first")
    first = run(STATE)
    monkeypatch.setenv("MEMLIB_ZYGOTE_PROBE", "second")
    second = run(STATE)
    assert first["parent"] == second["parent"] == zygote.process.pid  # forked, not started
    assert len({first["pid"], second["pid"], zygote.process.pid, os.getpid()}) == 4
    assert first["cwd"] == second["cwd"] == str(tmp_path / "nb")
    assert (first["variable"], second["variable"]) == ("first", "second")
    # a module changed by one notebook is as imported in the next: state is never shared
    assert first["marked before"] is second["marked before"] is False
    assert first["spacy loaded"] is True  # imported once, in the zygote


def test_a_dead_kernel_and_a_cell_over_its_timeout_fail_as_usual(run):
    from nbclient.exceptions import CellTimeoutError

    outcome = []
    thread = threading.Thread(
        target=lambda: outcome.append(pytest.raises(RuntimeError, run, "import os\nos._exit(3)")),
        daemon=True,
    )
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "execute() hung on a dead forked kernel"
    assert str(outcome[0].value) == "00_forked.ipynb: the kernel died while running a cell"
    start = time.monotonic()
    with pytest.raises(CellTimeoutError, match="after 5 seconds"):
        run("import time\ntime.sleep(300)", timeout=5)
    assert time.monotonic() - start < 60


def test_a_launch_that_differs_at_start_up_is_started_the_usual_way(zygote):
    argv = [sys.executable, *zygote.options, "-m", "ipykernel_launcher", "-f", "k.json"]
    env = dict(os.environ)
    assert zygote.command(argv, env)[:3] == [sys.executable, "-S", "-c"]  # the shim
    assert zygote.command(argv, {**env, "PYTHONHASHSEED": "7"}) == argv
    other = [sys.executable, *zygote.options, "-m", "other_kernel", "-f", "k.json"]
    assert zygote.command(other, env) == other
    plain = [sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"]  # without -X options
    assert zygote.command(plain, env) == (plain if zygote.options else zygote.command(argv, env))
