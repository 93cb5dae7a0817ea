"""Build the book: the executed notebooks as a static HTML site in build/book/ (`make book`).

Sphinx with myst-nb renders each notebook with its saved outputs (nothing is executed here; `make
book` runs `make run` first for notebooks that have no executed copy). This script stages what
Sphinx reads in build/book-src/:
- index.md: the README, its links to notebooks and docs pointed at their pages;
- one page per notebook, in file-name order: the executed copy from build/notebooks/ when it is
  complete and newer than its source, else the un-executed notebook with a note saying so;
- the Checks figures (memlib.testing's `application/vnd.memlib.records+json`) as an open table;
- widgets as a static rendering of their saved state (no widget manager from a CDN);
- Mermaid fences as <pre class="mermaid">, drawn as SVG in the browser by the mermaid.min.js the
  `mmdc` wheel bundles (Mermaid 11, MIT): no CDN, and it works opened from disk (file://);
- benchmarks.md: the tables in benchmarks/results/*.json and the offline model's
  offline_model/benchmarks/results/*.json;
- docs/*.md as reference pages.
build/book-src/book-manifest.json lists each page and what it was built from (the tests read it).

Usage: python scripts/build_book.py [--out build/book] [--unexecuted]
"""

from __future__ import annotations

import argparse
import hashlib
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
EXECUTED = ROOT / "build" / "notebooks"
CONF = ROOT / "docs" / "book"
DOCS = ROOT / "docs"
RESULTS = ROOT / "benchmarks" / "results"
# The offline model's benchmark and its results live beside it, in offline_model/benchmarks/.
OFFLINE_RESULTS = ROOT / "offline_model" / "benchmarks" / "results"
OFFLINE_SCRIPT = ROOT / "offline_model" / "benchmarks" / "offline_eval.py"
STAGE = ROOT / "build" / "book-src"
OUT = ROOT / "build" / "book"
MANIFEST = "book-manifest.json"

RECORDS_MIME = "application/vnd.memlib.records+json"
RECORD_MIME = "application/vnd.memlib.record+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# mmdc 0.7.0's assets/mermaid.js is byte for byte the npm release mermaid@11.12.0
# dist/mermaid.min.js (checked when it was pinned); a different file is refused, not served.
MERMAID_SHA256 = "07e37dfa97b337ccc85365d57eddf99b9706f09db3b59b260d0333b23b343c4b"

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```mermaid[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")
EXTERNAL = ("http://", "https://", "mailto:", "#", "data:")


# ---------------------------------------------------------------------------- sources


def notebooks() -> list[Path]:
    """The notebooks in teaching order (file name), as memlib.testing.all_notebooks() lists them."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def executed_copy(source: Path) -> tuple[dict | None, str]:
    """The executed copy of `source` if usable, and why (not)."""
    path = EXECUTED / source.name
    if not path.exists():
        return None, "no executed copy in build/notebooks/ (run `make run`)"
    if path.stat().st_mtime < source.stat().st_mtime:
        return None, "the executed copy is older than the notebook (run `make run`)"
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # being written by a running `make run`
        return None, f"the executed copy cannot be read ({exc.__class__.__name__})"
    code = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    if any(c.get("execution_count") is None for c in code):
        return None, "the executed copy is incomplete (a cell did not run)"
    return nb, "executed"


# ---------------------------------------------------------------------------- markdown


def mermaid_to_html(text: str) -> str:
    """```mermaid fences -> a raw <pre class="mermaid"> block that mermaid.min.js draws."""

    def sub(m: re.Match) -> str:
        body = html.escape(m.group("body").rstrip("\n"), quote=False)
        return f'```{{raw}} html\n<pre class="mermaid">\n{body}\n</pre>\n```'

    return FENCE.sub(sub, text)


def rewrite_links(text: str, base: Path, here: Path, pages: dict[Path, Path]) -> str:
    """Point relative links at their pages in the book; unlink what the book does not contain.

    base: the directory the links are relative to in the repository; here: the staged file's
    directory; pages: {repository path: staged path}."""

    def sub(m: re.Match) -> str:
        target, text_ = m.group("target"), m.group("text")
        if target.startswith(EXTERNAL):
            return m.group(0)
        path, _, fragment = target.partition("#")
        resolved = (base / path).resolve()
        if resolved in pages:
            new = os.path.relpath(pages[resolved], here).replace(os.sep, "/")
            return f"{m.group('bang')}[{text_}]({new}{'#' + fragment if fragment else ''})"
        if m.group("bang") and resolved.is_file():  # an image: copy it next to the page
            dest = STAGE / "_assets" / resolved.name
            write_if_changed(dest, resolved.read_bytes())
            return f"![{text_}]({os.path.relpath(dest, here).replace(os.sep, '/')})"
        shown = path.removeprefix("../")
        return text_ if text_.strip("`") == shown or not shown else f"{text_} (`{shown}`)"

    return LINK.sub(sub, text)


def markdown(text: str, base: Path, here: Path, pages: dict[Path, Path]) -> str:
    return rewrite_links(mermaid_to_html(text), base, here, pages)


# ---------------------------------------------------------------------------- outputs


def records_html(figures: list[dict]) -> tuple[str, str]:
    rows = "".join(
        f"<tr><td><code>{html.escape(str(f['name']))}</code></td>"
        f"<td>{html.escape(repr(f['value']))}</td></tr>"
        for f in figures
    )
    caption = f"Checks: {len(figures)} figure(s) recorded for the test runner"
    table = (
        f'<table class="memlib-checks"><caption>{caption}</caption>'
        f"<thead><tr><th>figure</th><th>value</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    width = max((len(str(f["name"])) for f in figures), default=0)
    text = "\n".join(f"recorded {f['name']:<{width}}  {f['value']!r}" for f in figures)
    return table, text


def widget_html(model_id: str, state: dict, depth: int = 0) -> str:
    """A static, disabled rendering of a widget from the notebook's saved widget state."""
    model = state.get(model_id)
    if model is None or depth > 30:
        return ""
    s = model.get("state", {})
    layout = state.get(str(s.get("layout", "")).removeprefix("IPY_MODEL_"), {}).get("state", {})
    if layout.get("display") == "none" or layout.get("visibility") == "hidden":
        return ""
    name = model.get("model_name", "")
    desc = html.escape(str(s.get("description", "")))
    label = f"<label>{desc}</label> " if desc else ""
    children = "".join(
        widget_html(str(c).removeprefix("IPY_MODEL_"), state, depth + 1)
        for c in s.get("children", [])
    )
    classes = " ".join(html.escape(str(c)) for c in s.get("_dom_classes", []))
    if name in ("VBoxModel", "BoxModel", "GridBoxModel", "AccordionModel", "TabModel"):
        return f'<div class="w-vbox {classes}">{children}</div>'
    if name == "HBoxModel":
        return f'<div class="w-hbox {classes}">{children}</div>'
    if name in ("HTMLModel", "HTMLMathModel"):
        return f'<div class="{classes}">{label}{s.get("value", "")}</div>'
    if name == "LabelModel":
        return f"<span>{html.escape(str(s.get('value', '')))}</span>"
    if name in ("ButtonModel", "ToggleButtonModel"):
        return f'<button type="button" disabled class="{classes}">{desc}</button>'
    if name in ("DropdownModel", "SelectModel", "RadioButtonsModel"):
        labels = s.get("_options_labels", [])
        index = s.get("index")
        options = "".join(
            f"<option{' selected' if i == index else ''}>{html.escape(str(o))}</option>"
            for i, o in enumerate(labels)
        )
        return f"<span>{label}<select disabled>{options}</select></span>"
    if name in ("TextModel", "TextareaModel", "PasswordModel", "IntTextModel", "FloatTextModel"):
        value = html.escape(str(s.get("value", "")), quote=True)
        hint = html.escape(str(s.get("placeholder", "")), quote=True)
        return (
            f'<span>{label}<input type="text" disabled value="{value}" placeholder="{hint}"></span>'
        )
    if name in ("IntProgressModel", "FloatProgressModel"):
        return (
            f'<span>{label}<progress value="{s.get("value", 0)}" max="{s.get("max", 100)}">'
            f"</progress></span>"
        )
    if name in ("CheckboxModel",):
        checked = " checked" if s.get("value") else ""
        return f'<span><input type="checkbox" disabled{checked}> {desc}</span>'
    if name == "OutputModel":
        return f'<div class="{classes}">{children}</div>'
    return f"<span>{label}{html.escape(str(s.get('value', '')))}</span>"


def transform_outputs(cell: dict, widgets: dict) -> None:
    for out in cell.get("outputs", []):
        data = out.get("data")
        if not data:
            continue
        if RECORDS_MIME in data or RECORD_MIME in data:
            figures = list(data.get(RECORDS_MIME, {}).get("figures", []))
            if RECORD_MIME in data:
                figures.append(data[RECORD_MIME])
            table, text = records_html(figures)
            out["data"] = {"text/html": table, "text/plain": text}
        elif "text/markdown" in data:  # e.g. a graph's draw_mermaid() shown as a fence
            text = data["text/markdown"]
            text = "".join(text) if isinstance(text, list) else text
            data["text/markdown"] = mermaid_to_html(text)
        elif WIDGET_VIEW in data:
            model_id = data[WIDGET_VIEW].get("model_id", "")
            body = widget_html(model_id, widgets)
            if body:
                note = (
                    '<div class="memlib-widget-note">A static rendering of the widget as it was '
                    "saved; run the notebook in JupyterLab to use it.</div>"
                )
                out["data"] = {
                    "text/html": f'<div class="memlib-widget-static">{note}{body}</div>',
                    "text/plain": data.get("text/plain", ""),
                }
            else:  # no saved state: the text fallback
                out["data"] = {"text/plain": data.get("text/plain", "")}


def counts(nb: dict) -> dict:
    """Plots and recorded figures in a notebook's outputs, as saved (before any rendering)."""
    outputs = [o.get("data", {}) for c in nb.get("cells", []) for o in c.get("outputs", [])]
    return {
        "plots": sum("image/png" in d or "image/svg+xml" in d for d in outputs),
        "figures": sum(
            len(d.get(RECORDS_MIME, {}).get("figures", [])) + (RECORD_MIME in d) for d in outputs
        ),
    }


def stage_notebook(source: Path, nb: dict | None, reason: str, pages: dict[Path, Path]) -> dict:
    executed = nb is not None
    if nb is None:
        nb = json.loads(source.read_text(encoding="utf-8"))
    saved = counts(nb)
    widgets = nb.get("metadata", {}).pop("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    nb.get("metadata", {}).pop("papermill", None)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = markdown(text, NOTEBOOKS, STAGE, pages)
        elif cell.get("cell_type") == "code":
            transform_outputs(cell, widgets)
    if not executed:
        note = (
            ":::{note}\n"
            f"This page shows the notebook without its outputs: {reason}. "
            "`make book` runs it first.\n:::"
        )
        cell = {"cell_type": "markdown", "id": "memlib-book-note", "metadata": {}, "source": note}
        nb["cells"].insert(1, cell)
    write_if_changed(STAGE / source.name, json.dumps(nb, indent=1, ensure_ascii=False))
    return {
        "page": source.stem + ".html",
        "source": str(source.relative_to(ROOT)),
        "executed": executed,
        "why": reason,
        **saved,
    }


# ---------------------------------------------------------------------------- benchmarks


def _flatten(value, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        flat: dict[str, object] = {}
        for k, v in value.items():
            flat.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return flat
    return {prefix: value}


def _cell(value) -> str:
    if isinstance(value, list | dict):
        value = json.dumps(value) if value else "none" if isinstance(value, list) else "{}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _records(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) for r in value)


def benchmark_tables(data, level: int = 3) -> str:
    """A list of records -> one table; {split: nested dict} -> rows of leaf paths, a column per
    split; any other dict -> a figure/value table, with each list of records below as its own."""
    if _records(data):
        rows = [_flatten(r) for r in data]
        header = list(dict.fromkeys(k for r in rows for k in r))
        return _table(header, [[r.get(k, "") for k in header] for r in rows])
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        columns = list(data)
        flat = {c: _flatten(data[c]) for c in columns}
        keys = list(dict.fromkeys(k for c in columns for k in flat[c]))
        rows = [[f"`{k}`", *(flat[c].get(k, "") for c in columns)] for k in keys]
        return _table(["figure", *columns], rows)
    if isinstance(data, dict) and data:
        scalars = {k: v for k, v in data.items() if not _records(v)}
        parts = []
        if scalars:
            flat = _flatten(scalars)
            parts.append(_table(["figure", "value"], [[f"`{k}`", v] for k, v in flat.items()]))
        for key, value in data.items():
            if _records(value):
                parts += [f"{'#' * level} {key}", benchmark_tables(value, level + 1)]
        return "\n\n".join(parts)
    return "```json\n" + json.dumps(data, indent=1) + "\n```"


def results_files() -> dict[str, Path]:
    """Every benchmark results file by name: benchmarks/results/ and the offline model's."""
    return {p.stem: p for d in (RESULTS, OFFLINE_RESULTS) for p in sorted(d.glob("*.json"))}


def results_script(path: Path) -> Path:
    """The benchmark that writes a results file: benchmarks/<name>.py, or the offline model's."""
    if path.stem == "offline_model" and path.parent == OFFLINE_RESULTS:
        return OFFLINE_SCRIPT
    script = ROOT / "benchmarks" / f"{path.stem}.py"  # recall_latency_large.json: recall_latency.py
    return script if script.exists() else script.with_name(f"{path.stem.rsplit('_', 1)[0]}.py")


def benchmarks_page(stems: list[str]) -> str:
    parts = [
        "# Benchmarks",
        "",
        "The tables `make bench` wrote to `benchmarks/results/` (the offline model's to "
        "`offline_model/benchmarks/results/`), as measured on this project's "
        "machine (2 cores, no GPU). Each section is one results file, shown as it is.",
    ]
    files = results_files()
    for path in [files.get(stem, RESULTS / f"{stem}.json") for stem in stems]:
        script = results_script(path)
        where = path.relative_to(ROOT).as_posix()
        parts += ["", f"## {path.stem}", "", f"From `{where}`"]
        if script.exists():
            parts[-1] += f", written by `{script.relative_to(ROOT).as_posix()}`"
        parts[-1] += "."
        try:
            parts += ["", benchmark_tables(json.loads(path.read_text(encoding="utf-8")))]
        except ValueError as exc:
            parts += ["", f"(not valid JSON: {exc})"]
    if not stems:
        parts += ["", "No results yet: run `make bench`."]
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------- staging


def write_if_changed(path: Path, content: str | bytes) -> None:
    """Keep the file's mtime when nothing changed, so Sphinx re-reads only what did."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def mermaid_js() -> Path:
    spec = importlib.util.find_spec("mmdc")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "the book needs the `mmdc` package for its bundled mermaid.js: "
            "pip install -e '.[dev]' (or pip install -r requirements/lock-dev.txt)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "mermaid.js"
    if not path.is_file():
        raise SystemExit(f"mmdc is installed but has no {path}: reinstall it from the lock")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MERMAID_SHA256:
        raise SystemExit(
            f"{path} (sha256 {digest}) is not the pinned mermaid 11.12.0 build: install "
            "mmdc==0.7.0 from requirements/lock-dev.txt, or check the new file against the npm "
            "release and update MERMAID_SHA256 in scripts/build_book.py"
        )
    return path


def stage(unexecuted: bool = False) -> dict:
    STAGE.mkdir(parents=True, exist_ok=True)
    sources = notebooks()
    docs = sorted(DOCS.glob("*.md"))
    pages: dict[Path, Path] = {ROOT / "README.md": STAGE / "index.md"}
    pages.update({nb.resolve(): STAGE / nb.name for nb in sources})
    pages.update({d.resolve(): STAGE / "docs" / d.name for d in docs})
    pages.update({p.resolve(): STAGE / "benchmarks.md" for p in results_files().values()})
    pages[RESULTS.resolve()] = STAGE / "benchmarks.md"
    pages[OFFLINE_RESULTS.resolve()] = STAGE / "benchmarks.md"
    keep = {STAGE / MANIFEST, STAGE / "index.md", STAGE / "benchmarks.md"}

    for item in CONF.rglob("*"):
        if item.is_file():
            write_if_changed(STAGE / item.relative_to(CONF), item.read_bytes())
            keep.add(STAGE / item.relative_to(CONF))
    write_if_changed(STAGE / "_static" / "mermaid.min.js", mermaid_js().read_bytes())
    keep.add(STAGE / "_static" / "mermaid.min.js")

    manifest = {
        "pages": [],
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "started": time.time(),
        "benchmarks": sorted(results_files()),
    }
    for source in sources:
        nb, reason = (None, "built with --unexecuted") if unexecuted else executed_copy(source)
        manifest["pages"].append(stage_notebook(source, nb, reason, pages))
        keep.add(STAGE / source.name)
    for doc in docs:
        text = markdown(doc.read_text(encoding="utf-8"), DOCS, STAGE / "docs", pages)
        write_if_changed(STAGE / "docs" / doc.name, text)
        keep.add(STAGE / "docs" / doc.name)

    readme = markdown((ROOT / "README.md").read_text(encoding="utf-8"), ROOT, STAGE, pages)
    toc = ["", "```{toctree}", ":caption: Notebooks", ":maxdepth: 1", ":hidden:", ""]
    toc += [nb.stem for nb in sources] + ["```", ""]
    toc += ["```{toctree}", ":caption: Reference", ":maxdepth: 1", ":hidden:", "", "benchmarks"]
    toc += [f"docs/{d.stem}" for d in docs] + ["```", ""]
    write_if_changed(STAGE / "index.md", readme.rstrip("\n") + "\n" + "\n".join(toc))
    write_if_changed(STAGE / "benchmarks.md", benchmarks_page(manifest["benchmarks"]))
    manifest["pages"] += [
        {"page": "index.html", "source": "README.md", "executed": None, "why": "landing page"},
        {"page": "benchmarks.html", "source": "benchmarks/results", "executed": None, "why": ""},
    ]
    manifest["pages"] += [
        {"page": f"docs/{d.stem}.html", "source": f"docs/{d.name}", "executed": None, "why": ""}
        for d in docs
    ]
    for path in STAGE.rglob("*"):  # a notebook or doc that is gone: drop its staged copy
        if (
            path.is_file()
            and path not in keep
            and ".doctrees" not in path.parts
            and "_assets" not in path.parts
        ):
            path.unlink()
    (STAGE / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def build(out: Path = OUT, unexecuted: bool = False, quiet: bool = True) -> dict:
    """Stage the sources and run Sphinx; return the manifest (pages, what each was built from)."""
    started = time.monotonic()
    manifest = stage(unexecuted=unexecuted)
    shutil.rmtree(out, ignore_errors=True)
    warnings = STAGE / "sphinx-warnings.txt"
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-d", str(STAGE / ".doctrees")]
    cmd += ["-w", str(warnings), *(["-q"] if quiet else []), str(STAGE), str(out)]
    subprocess.run(cmd, check=True, cwd=ROOT)
    (out / ".nojekyll").touch()  # static hosts that run Jekyll would hide _static/ and _images/
    manifest["seconds"] = round(time.monotonic() - started, 1)
    manifest["warnings"] = [w for w in warnings.read_text().splitlines() if w.strip()]
    (STAGE / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output directory (build/book)")
    parser.add_argument(
        "--unexecuted", action="store_true", help="build from notebooks/ without outputs"
    )
    args = parser.parse_args(argv)
    manifest = build(args.out, unexecuted=args.unexecuted, quiet=True)
    stale = [p for p in manifest["pages"] if p["executed"] is False]
    for page in stale:
        print(f"without outputs: {page['source']}: {page['why']}")
    if manifest["warnings"]:
        print(f"{len(manifest['warnings'])} Sphinx warning(s), in {STAGE / 'sphinx-warnings.txt'}")
    index = (args.out / "index.html").resolve()
    print(f"book: {index.as_uri()} ({len(manifest['pages'])} pages, {manifest['seconds']} s)")


if __name__ == "__main__":
    main()
