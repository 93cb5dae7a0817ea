"""Write benchmarks/results/reading.json's figures into the README (the sentence and the table).

tests/test_bench_scripts.py checks that the README says what the JSON holds; run this after
`python benchmarks/reading.py` instead of editing the figures by hand.
"""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
data = json.loads((ROOT / "benchmarks/results/reading.json").read_text())
readme = ROOT / "README.md"
text = readme.read_text()
t = data["total"]
text, n = re.subn(
    r"about [\d.]+ hours: [\d,]+ words of prose\s+and [\d,]+ lines of code in [\d,]+ cells",
    f"about {t['hours']} hours: {t['words']:,} words of prose\nand {t['code_lines']:,} lines of "
    f"code in {t['cells']:,} cells",
    text,
)
assert n == 1, "the README's reading sentence was not found"
for row in data["rows"]:
    stem = row["notebook"]
    text, n = re.subn(
        rf"(\(notebooks/{re.escape(stem)}\.ipynb\) \|[^|\n]*\| )\d+ min \|",
        rf"\g<1>{row['minutes']} min |",
        text,
    )
    assert n == 1, f"no README row for {stem}"
readme.write_text(text)
print(f"README: {t['hours']} hours, {len(data['rows'])} notebooks")
