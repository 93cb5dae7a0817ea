"""Suite-wide test ordering, and the one PostgreSQL the backend tests share."""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    """Keep bytecode in build/pycache when PYTHONDONTWRITEBYTECODE is set (containers often set it).

    The virtualenv is installed --no-compile; with the variable set, every kernel, server and CLI
    a test starts compiled the libraries it imports from source again (6-7 s of CPU each, dozens of
    processes in a full run). Children inherit the environment set here; this process writes too.
    Nothing is written into the sources or the virtualenv, and Python checks each cached file
    against its source's time and size, so an edited module is compiled again.

    Also: xdist's `loadgroup` scheduler hands out its groups largest first by default; it hands
    out everything in collection order here, which pytest_collection_modifyitems makes longest
    first (the controller reads this option; the workers collect)."""
    if getattr(config.option, "dist", "no") == "loadgroup":
        config.option.loadscopereorder = False
    _share_embeddings(config)
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(ROOT / "build" / "pycache"))
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False


def _share_embeddings(config) -> None:
    """One file of MiniLM vectors for the whole session (memlib.embeddings, MEMLIB_EMBEDDING_CACHE):
    the kernels and the local servers of the three runs of a notebook, on either xdist worker,
    embed the same memories and questions; each text is computed once. The controller (or the
    only process) makes a fresh directory, the workers and every kernel inherit it, and it goes
    at the session's end: nothing outlives the session, so no vector from older code is read."""
    if hasattr(config, "workerinput") or "MEMLIB_EMBEDDING_CACHE" in os.environ:
        return
    directory = os.environ["MEMLIB_EMBEDDING_CACHE"] = tempfile.mkdtemp(prefix="memlib-vectors-")
    config.add_cleanup(lambda: shutil.rmtree(directory, ignore_errors=True))
    config.add_cleanup(lambda: os.environ.pop("MEMLIB_EMBEDDING_CACHE", None))


# Recorded test durations (seconds, one worker): per module, and per notebook run. Refresh with
# `pytest -n 1 --junitxml=build/junit.xml ...` then `python scripts/test_durations.py build/junit.xml`.
DURATIONS = Path(__file__).resolve().parent / "durations.json"
# Modules that read the offline notebook runs of the same session: they wait for them
# (tests/offline_runs.py), and run after everything else.
READS_OFFLINE_RUNS = ("test_book.py", "test_prose_figures.py")


def _unit(item) -> str:
    """What an item is timed as in DURATIONS: a notebook run by its id, anything else by module."""
    module = item.path.relative_to(ROOT).as_posix()
    if item.path.name == "test_notebooks.py" and hasattr(item, "callspec"):
        return f"{module}::{item.callspec.id}"
    return module


def pytest_collection_modifyitems(config, items):
    """Longest first, so that on two workers neither ends long after the other: by recorded
    duration, each module kept together, a notebook's offline and OpenAI-path runs (one xdist
    group, in that order) as one. The modules that read the session's offline notebook runs go
    where those are over: the book right after the last of them (while the other worker goes on
    with the rest), the prose check (cheap) at the end. With `--dist loadgroup` xdist hands out
    work in this order (pytest_configure turns off its reordering by group size)."""
    durations = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.exists() else {}
    cost: dict[str, float] = {}
    for unit, group in {(_unit(item), _group(item)) for item in items}:
        cost[group or unit] = cost.get(group or unit, 0.0) + durations.get(unit, 0.0)
    items.sort(key=lambda item: (-cost[_group(item) or _unit(item)], _group(item) or _unit(item)))
    readers = [item for item in items if item.path.name in READS_OFFLINE_RUNS]
    rest = [item for item in items if item.path.name not in READS_OFFLINE_RUNS]
    offline = [i for i, item in enumerate(rest) if _is_offline_run(item)]
    at = offline[-1] + 1 if offline else len(rest)
    while at < len(rest) and _group(rest[at]) and _group(rest[at]) == _group(rest[at - 1]):
        at += 1  # past the OpenAI-path run of the same group
    book = [item for item in readers if item.path.name == "test_book.py"]
    items[:] = rest[:at] + book + rest[at:] + [item for item in readers if item not in book]


def pytest_sessionfinish(session):
    """The controller (or the only process) removes the session's offline-run markers."""
    if not hasattr(session.config, "workerinput"):
        import offline_runs

        offline_runs.remove(session.config)


def _is_offline_run(item) -> bool:
    params = getattr(item, "callspec", None) and item.callspec.params
    return item.path.name == "test_notebooks.py" and bool(params) and params["variant"] == "offline"


def _group(item) -> str | None:
    mark = item.get_closest_marker("xdist_group")
    return mark.args[0] if mark else None


@pytest.fixture(scope="session")
def postgres_url():
    """A real PostgreSQL with pgvector, started once per test session (per xdist worker).

    Not under pytest's basetemp: run as root, pgserver opens the path to its own user, and any
    pytest session starting meanwhile resets /tmp/pytest-of-root to 0700 (pg_ctl start failed)."""
    from memlib import local_postgres

    directory = tempfile.mkdtemp(prefix="memlib-pg-tests-")
    try:
        with local_postgres(os.path.join(directory, "data")) as url:
            yield url
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def own_store_url(tmp_path, request):
    """url(scheme, name) -> a store of this test's own: an SQLite file under tmp_path for
    "sqlite", database `name` on the session's PostgreSQL (started only when asked) otherwise."""

    def url(scheme: str, name: str) -> str:
        if scheme == "sqlite":
            return f"sqlite:///{tmp_path}/{name}.db"
        return request.getfixturevalue("fresh_database")(
            request.getfixturevalue("postgres_url"), name
        )

    return url


@pytest.fixture(scope="session")
def fresh_database():
    """create(base_url, name) -> the URL of database `name` on base_url's server, dropped and
    created again with pgvector: a module whose tables must not meet other modules' (vectors of
    another size) takes a database of its own on the session's one PostgreSQL."""
    from urllib.parse import urlsplit

    def create(base_url: str, name: str) -> str:
        import psycopg

        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")
        url = urlsplit(base_url)._replace(path=f"/{name}").geturl()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return url

    return create
