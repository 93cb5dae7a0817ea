import json

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
