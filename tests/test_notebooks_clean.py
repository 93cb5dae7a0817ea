"""The lint step that keeps executed outputs out of git."""

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "notebooks_clean.py"
spec = importlib.util.spec_from_file_location("notebooks_clean", SCRIPT)
clean = importlib.util.module_from_spec(spec)
spec.loader.exec_module(clean)


def notebook(outputs, count):
    return {
        "metadata": {"kernelspec": {"name": "memlib"}, "widgets": {"state": {}}},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# t"},
            {
                "cell_type": "code",
                "metadata": {"tags": ["parameters"], "execution": {"x": 1}},
                "source": "A = 1",
                "outputs": outputs,
                "execution_count": count,
            },
        ],
    }


@pytest.mark.parametrize(
    "outputs,count,dirty",
    [([], None, []), ([{"output_type": "stream", "text": "x"}], None, [1]), ([], 3, [1])],
)
def test_dirty_cells(outputs, count, dirty):
    assert clean.dirty_cells(notebook(outputs, count)) == dirty


def test_strip_keeps_tags_and_kernel_drops_the_rest():
    nb = clean.strip(notebook([{"output_type": "stream", "text": "x"}], 7))
    assert clean.dirty_cells(nb) == []
    assert nb["cells"][1]["metadata"] == {"tags": ["parameters"]}
    assert nb["metadata"] == {"kernelspec": {"name": "memlib"}}


def test_committed_notebooks_are_clean_and_have_a_parameters_cell():
    for path in sorted((SCRIPT.parent.parent / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text())
        assert clean.dirty_cells(nb) == [], f"{path.name} carries outputs: run make format"
        tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"
        assert nb["metadata"]["kernelspec"]["name"] == "memlib", path.name
