"""Execute every notebook with papermill (fresh kernel each) and assert on its recorded figures.

Each notebook's expected figures live in tests/expectations/<notebook stem>.py as
EXPECT = {figure name: check}, where a check is one of
    ("==", value) | ("between", low, high) | (">=", low) | ("<=", high) | ("true",) | ("false",).
A figure listed there but not recorded fails the test, so a Checks cell cannot be silently dropped.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from memlib.testing import all_notebooks, ensure_kernel, execute, write_records

EXPECTATIONS = Path(__file__).parent / "expectations"


def load_expectations(stem: str) -> dict:
    path = EXPECTATIONS / f"{stem}.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"expect_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXPECT


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


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", all_notebooks(), ids=lambda p: p.stem)
def test_notebook(notebook: Path):
    records = execute(notebook)
    write_records({notebook.name: records})
    expected = load_expectations(notebook.stem)
    assert expected, f"no expectations for {notebook.name} in {EXPECTATIONS}"
    missing = sorted(set(expected) - set(records))
    assert not missing, f"{notebook.name} did not record {missing}"
    for name, rule in expected.items():
        check(name, records[name], rule)
