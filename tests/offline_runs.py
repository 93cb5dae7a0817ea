"""Which offline notebook runs of this test session have finished, across xdist workers.

tests/test_notebooks.py runs each notebook offline into build/notebooks/; the book
(tests/test_book.py) and the prose check (tests/test_prose_figures.py) read those executed copies.
Under `pytest -n 2` they may run on the other worker, so each offline run, passed or failed,
leaves a marker named by the session's xdist test-run id, and a reader waits for the markers of
the runs this session selected (a condition with a deadline, never a fixed sleep). In a run
without xdist the tests run in collection order (tests/conftest.py puts the readers last), so
there is nothing to wait for. A test helper, not part of memlib (tests import it as `offline_runs`).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest

DEADLINE_S = 1800.0  # a loaded machine runs the notebooks ahead of a reader in minutes, not this


def _directory(config: pytest.Config) -> Path | None:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return None
    return Path(tempfile.gettempdir()) / f"memlib-offline-runs-{workerinput['testrunuid']}"


def announce(config: pytest.Config, stem: str) -> None:
    """The offline run of notebook `stem` is over (its executed copy and records are written)."""
    directory = _directory(config)
    if directory is not None:
        directory.mkdir(exist_ok=True)
        (directory / stem).touch()


def selected(session: pytest.Session) -> set[str]:
    """The notebooks whose offline run this session selected (every worker collects them all)."""
    return {
        item.callspec.params["notebook"].stem
        for item in session.items
        if item.path.name == "test_notebooks.py"
        and hasattr(item, "callspec")
        and item.callspec.params.get("variant") == "offline"
    }


def wait_for(session: pytest.Session, stems: set[str] | None = None) -> None:
    """Return once the selected offline runs among `stems` (None: all) have finished; fail, naming
    the runs still missing, after DEADLINE_S."""
    directory = _directory(session.config)
    wanted = selected(session) if stems is None else selected(session) & set(stems)
    if directory is None or not wanted:
        return
    deadline = time.monotonic() + DEADLINE_S
    while missing := sorted(s for s in wanted if not (directory / s).exists()):
        if time.monotonic() > deadline:
            pytest.fail(f"the offline runs of {missing} did not finish within {DEADLINE_S:.0f} s")
        time.sleep(0.5)


def remove(config: pytest.Config) -> None:
    """Remove this session's markers: on the xdist controller, once every worker has finished."""
    dsession = config.pluginmanager.getplugin("dsession")
    uid = getattr(getattr(dsession, "nodemanager", None), "testrunuid", None)
    if uid:
        shutil.rmtree(
            Path(tempfile.gettempdir()) / f"memlib-offline-runs-{uid}", ignore_errors=True
        )
