"""Execute every notebook with papermill (fresh kernel each), three ways, and check its figures.

The three variants (memlib.testing.VARIANTS):
- offline: the offline model in the kernel. Each recorded figure is checked against
  tests/expectations/<notebook stem>.py, EXPECT = {figure name: check}, where a check is one of
      ("==", value) | ("between", low, high) | (">=", low) | ("<=", high) | ("true",) | ("false",).
  A figure listed there but not recorded fails the test, so a Checks cell cannot be silently dropped.
- openai: ChatOpenAI and OpenAIEmbeddings against the local OpenAI-compatible server answering
  with the offline model. Every figure must equal the offline run's (same session), except those
  named in the expectations' OPENAI_DIFFERENCES = {figure name: why}, which the README lists.
- openai and reworded: the server must refuse no request, but the prompts over the context window
  a notebook sends on purpose, counted in its expectations' CONTEXT_REFUSALS (default 0).
- reworded: the same server rewording each reply. The notebook must run to its end (its own
  asserts hold on any competent model) and record every expected figure; values are not pinned.

A notebook's offline and openai runs are one xdist group, run in that order on one worker
(openai compares with the offline records of the same session); the reworded runs are not grouped,
so `pytest -n 2` spreads the 36 runs over both workers (tests/conftest.py orders them longest
first). A notebook that starts its own PostgreSQL unless MEMLIB_POSTGRES_URL names one (10, 12)
does so offline; its openai and reworded runs get a fresh database on the session's server. Each
offline run, passed or failed, is announced to the tests that read its executed copy (the book,
the prose check; tests/offline_runs.py), which may run on the other worker; records.json and
calls.json are merged under a file lock, as both workers write them.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
from pathlib import Path

import offline_runs
import pytest

from memlib import testing
from memlib.testing import (
    EXPECTATIONS,
    KERNEL,
    all_notebooks,
    backend_environment,
    build_dir,
    counters,
    ensure_kernel,
    execute,
    load_expectations,
    serving,
    write_records,
)

_OFFLINE_RECORDS: dict[str, dict] = {}


def check(name: str, value, rule: tuple) -> None:
    kind = rule[0]
    if kind == "==":
        expected = rule[1]
        if isinstance(expected, float):
            assert math.isclose(value, expected, rel_tol=1e-6), f"{name}: {value!r} != {expected!r}"
        else:
            assert value == expected, f"{name}: {value!r} != {expected!r}"
    elif kind == "between":
        assert rule[1] <= value <= rule[2], f"{name}: {value!r} not in [{rule[1]}, {rule[2]}]"
    elif kind == ">=":
        assert value >= rule[1], f"{name}: {value!r} < {rule[1]!r}"
    elif kind == "<=":
        assert value <= rule[1], f"{name}: {value!r} > {rule[1]!r}"
    elif kind == "true":
        assert value is True, f"{name}: expected True, got {value!r}"
    elif kind == "false":
        assert value is False, f"{name}: expected False, got {value!r}"
    else:
        raise ValueError(f"unknown check {rule!r} for {name}")


@pytest.fixture(scope="session", autouse=True)
def _kernel():
    ensure_kernel()


@pytest.fixture(scope="session", autouse=True)
def _kernels_forked(_kernel):
    """Every notebook kernel of this worker forked from one process that has imported the heavy
    libraries (tests/kernel_zygote.py): a fresh process each still, without 2-3 s of CPU of
    imports each. MEMLIB_KERNEL_ZYGOTE=0 starts them the usual way, as does a zygote that fails."""
    import kernel_zygote
    from jupyter_client.kernelspec import KernelSpecManager

    argv = KernelSpecManager().get_kernel_spec(KERNEL).argv
    zygote = kernel_zygote.Zygote(argv[1 : argv.index("-m")] if "-m" in argv else [])
    if os.environ.get("MEMLIB_KERNEL_ZYGOTE") == "0" or not zygote.start():
        yield
        return
    base = testing._private_ipc_kernel_manager()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                testing, "_private_ipc_kernel_manager", lambda: zygote.manager_class(base)
            )
            yield
    finally:
        zygote.stop()


@pytest.fixture(scope="session")
def servers():
    """One local server per server variant, started on first use, stopped at session end."""
    with contextlib.ExitStack() as stack:
        started = {}

        def get(variant):
            if variant not in started:
                started[variant] = stack.enter_context(serving(variant))
            return started[variant]

        yield get


def _cases():
    for notebook in all_notebooks():
        for variant in ("offline", "openai", "reworded"):
            marks = [pytest.mark.notebook]
            if variant != "reworded":
                marks.append(pytest.mark.xdist_group(f"notebook-{notebook.stem}"))
            yield pytest.param(notebook, variant, id=f"{notebook.stem}-{variant}", marks=marks)


@pytest.mark.parametrize(("notebook", "variant"), list(_cases()))
def test_notebook(notebook: Path, variant: str, servers, request, monkeypatch):
    if variant != "offline" and "MEMLIB_POSTGRES_URL" in notebook.read_text(encoding="utf-8"):
        # The offline run starts the notebook's own PostgreSQL, as a reader's run does; the client
        # path runs take a fresh database on the session's one server (conftest.py), where each
        # started another PostgreSQL (initdb, start, stop: about 4 s each)
        create = request.getfixturevalue("fresh_database")
        url = create(
            request.getfixturevalue("postgres_url"), f"notebook_{notebook.stem[:2]}_{variant}"
        )
        monkeypatch.setenv("MEMLIB_POSTGRES_URL", url)
    if variant != "offline":
        _run_and_check(notebook, variant, servers)
        return
    try:
        _run_and_check(notebook, variant, servers)
    finally:
        offline_runs.announce(request.config, notebook.stem)


@contextlib.contextmanager
def _locked(variant: str):
    """One writer at a time of a variant's records.json and calls.json, across xdist workers."""
    directory = build_dir(variant)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".records.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run_and_check(notebook: Path, variant: str, servers) -> None:
    module = load_expectations(notebook.stem)
    assert module is not None, f"no expectations for {notebook.name} in {EXPECTATIONS}"
    expected = module.EXPECT
    env, server = servers(variant)
    before = counters(server) if server else None
    with backend_environment(env):
        records = execute(notebook, variant=variant)
    with _locked(variant):
        write_records({notebook.name: records}, variant)
    if server:
        calls = counters(server, since=before)
        with _locked(variant):
            write_records({notebook.name: calls}, variant, "calls.json")
        rejected = calls["rejected_requests"]
        refused = server.stats["rejections"][-rejected:] if rejected else []
        # a prompt over the context window is refused on purpose where a notebook shows it (12);
        # every other refusal is a request the OpenAI API would refuse: a bug
        too_long = [r for r in refused if r["code"] == "context_length_exceeded"]
        others = [r for r in refused if r["code"] != "context_length_exceeded"]
        assert not others, (
            f"{notebook.name} ({variant}) sent requests the OpenAI API refuses: {others}"
        )
        assert len(too_long) == getattr(module, "CONTEXT_REFUSALS", 0), (
            f"{notebook.name} ({variant}): {len(too_long)} prompts refused as over the context "
            f"window, expected CONTEXT_REFUSALS = {getattr(module, 'CONTEXT_REFUSALS', 0)}"
        )
    missing = sorted(set(expected) - set(records))
    assert not missing, f"{notebook.name} ({variant}) did not record {missing}"
    if variant == "offline":
        _OFFLINE_RECORDS[notebook.name] = records
        for name, rule in expected.items():
            check(name, records[name], rule)
    elif variant == "openai":
        differences = getattr(module, "OPENAI_DIFFERENCES", {})
        offline = _OFFLINE_RECORDS.get(notebook.name)
        if offline is None:  # run alone (-k): fall back to the pinned expectations
            for name, rule in expected.items():
                if name not in differences:
                    check(name, records[name], rule)
            return
        unequal = {
            name: (offline[name], records.get(name))
            for name in offline
            if name not in differences and records.get(name) != offline[name]
        }
        assert not unequal, (
            f"{notebook.name}: figures on the OpenAI client path differ from the offline run "
            f"(offline, openai): {unequal}; name them in OPENAI_DIFFERENCES with the reason"
        )
