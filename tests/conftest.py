"""Suite-wide test ordering, and the one PostgreSQL the backend tests share."""

import os
import shutil
import tempfile

import pytest


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
