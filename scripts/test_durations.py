"""Write tests/durations.json from a pytest JUnit XML report: the order `make test` runs in.

tests/conftest.py sorts the suite longest first from this file, so that on two xdist workers
neither ends long after the other: seconds per test module, and per notebook run
(`tests/test_notebooks.py::<notebook>-<variant>`). Record it from a run on one worker, all tests:

    pytest -n 1 --junitxml=build/junit.xml tests offline_model/tests
    python scripts/test_durations.py build/junit.xml

The figures are wall seconds on whatever machine recorded them: only their order matters.
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "durations.json"


def durations(report: Path) -> dict[str, float]:
    """{module path or notebook run: seconds} from a JUnit XML report."""
    totals: dict[str, float] = {}
    for case in ET.parse(report).iter("testcase"):
        module = case.get("classname", "").replace(".", "/") + ".py"
        name = case.get("name", "").split("@")[0]
        if module.endswith("test_notebooks.py") and "[" in name:
            module += "::" + name[name.index("[") + 1 : -1]
        totals[module] = totals.get(module, 0.0) + float(case.get("time") or 0.0)
    return {k: round(v, 1) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a JUnit XML report (pytest --junitxml=...)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not args.report.is_file():
        raise SystemExit(f"no JUnit XML report at {args.report}")
    table = durations(args.report)
    if not table:
        raise SystemExit(f"{args.report} holds no test cases")
    args.out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"{len(table)} entries, {sum(table.values()):.0f} s in all -> {args.out}")


if __name__ == "__main__":
    main()
