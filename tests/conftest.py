"""Suite-wide test ordering, and the one PostgreSQL the backend tests share."""

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
    against its source's time and size, so an edited module is compiled again."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(ROOT / "build" / "pycache"))
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False


def pytest_collection_modifyitems(config, items):
    """The book test and the prose check read the executed notebooks the offline runs write: run
    them after those (with `--dist loadgroup` all are in the "main" group, so one worker runs them
    in this order)."""
    items.sort(key=lambda item: item.path.name in ("test_book.py", "test_prose_figures.py"))


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
