"""The book (`make book`, scripts/build_book.py): built here, then read in Chromium from disk.

The build uses the executed notebooks in build/notebooks/ where they are complete and newer than
their source (`make run`, or the offline notebook tests earlier in the same session), and the
un-executed notebooks otherwise; the plot and Checks-table checks run on the executed pages (and
are skipped, saying why, when there is none). Pages are opened as file:// URLs: the site must work
from disk with no network, so any http(s) request a page makes fails the test.

The browser tests are skipped, with what is missing and how to install it, where there is no
Chromium or no Playwright. They are one xdist group, run after the rest of the suite
(tests/conftest.py), and the build first waits for this session's offline notebook runs on
either worker (tests/offline_runs.py), so build/notebooks/ is not being rewritten while the book
is built from it.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import sys
import warnings
from pathlib import Path
from urllib.parse import unquote, urlsplit

import jupyter_browser as browser
import offline_runs
import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "build" / "book"
SCRIPT = ROOT / "scripts" / "build_book.py"
SEARCH_TERM = "RemoveMessage"

needs_browser = pytest.mark.skipif(browser.missing() is not None, reason=str(browser.missing()))
pytestmark = pytest.mark.xdist_group("book")


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_book", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_book", module)
    spec.loader.exec_module(module)
    return module


bb = _load_builder()


# ------------------------------------------------------------------ the build's pieces, no browser


def test_checks_records_become_an_open_table():
    cell = {
        "cell_type": "code",
        "outputs": [
            {
                "output_type": "display_data",
                "data": {
                    bb.RECORDS_MIME: {
                        "figures": [{"name": "a<b", "value": 3}, {"name": "ok", "value": True}]
                    },
                    "text/html": "<details>collapsed</details>",
                    "text/plain": "recorded ...",
                },
            }
        ],
    }
    bb.transform_outputs(cell, {})
    data = cell["outputs"][0]["data"]
    assert set(data) == {"text/html", "text/plain"}
    assert '<table class="memlib-checks">' in data["text/html"]
    assert "<details" not in data["text/html"]
    assert "<code>a&lt;b</code></td><td>3</td>" in data["text/html"]
    assert "2 figure(s)" in data["text/html"]


def test_mermaid_fences_become_pre_blocks_and_other_fences_stay():
    text = "Intro\n\n```mermaid\nflowchart LR\n  A -->|x < y| B\n```\n\n```python\nx = 1\n```\n"
    out = bb.mermaid_to_html(text)
    assert '<pre class="mermaid">\nflowchart LR\n  A --&gt;|x &lt; y| B\n</pre>' in out
    assert "```python\nx = 1\n```" in out
    assert "```mermaid" not in out


def test_links_point_at_pages_or_are_unlinked(tmp_path):
    pages = {(bb.NOTEBOOKS / "02_x.ipynb").resolve(): bb.STAGE / "02_x.ipynb"}
    text = "[next](02_x.ipynb#goals), [code](../memlib/x.py), [web](https://example.org), [a](#b)"
    out = bb.rewrite_links(text, bb.NOTEBOOKS, bb.STAGE, pages)
    assert (
        out == "[next](02_x.ipynb#goals), code (`memlib/x.py`), [web](https://example.org), [a](#b)"
    )


def test_widgets_render_statically_from_saved_state():
    state = {
        "box": {
            "model_name": "VBoxModel",
            "state": {"children": ["IPY_MODEL_html", "IPY_MODEL_dd", "IPY_MODEL_btn"]},
        },
        "html": {"model_name": "HTMLModel", "state": {"value": "<b>Biscuit</b>"}},
        "dd": {
            "model_name": "DropdownModel",
            "state": {"description": "user", "_options_labels": ["ana", "ben"], "index": 1},
        },
        "btn": {"model_name": "ButtonModel", "state": {"description": "Send"}},
    }
    out = bb.widget_html("box", state)
    assert out.startswith('<div class="w-vbox')
    assert "<b>Biscuit</b>" in out
    assert "<option selected>ben</option>" in out
    assert '<button type="button" disabled class="">Send</button>' in out


def test_benchmark_tables_from_records_and_from_nested_splits():
    rows = bb.benchmark_tables(
        [{"store": "faiss", "n": 10, "p50_ms": 0.07}, {"store": "numpy", "n": 10}]
    )
    assert rows.splitlines()[0] == "| store | n | p50_ms |"
    assert rows.splitlines()[3] == "| numpy | 10 |  |"
    nested = bb.benchmark_tables(
        {"dev": {"slots": {"name": {"recall": 0.9}}}, "test": {"slots": {"name": {"recall": 0.8}}}}
    )
    assert "| `slots.name.recall` | 0.9 | 0.8 |" in nested


# ------------------------------------------------------------------ the built book, in Chromium


@pytest.fixture(scope="module")
def book(request):
    """Build the book into build/book/; return its manifest (pages, what each was built from)."""
    offline_runs.wait_for(request.session)
    manifest = bb.build(BOOK)
    assert not manifest["warnings"], "Sphinx warnings:\n" + "\n".join(manifest["warnings"])
    stale = [p["source"] for p in manifest["pages"] if p["executed"] is False]
    if stale:
        warnings.warn(f"the book shows these notebooks without outputs: {stale}", stacklevel=1)
    return manifest


@pytest.fixture(scope="module")
def chrome():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # no network at all: a request to a host fails the page (and is recorded below)
        args = ["--no-sandbox", "--disable-background-networking", "--disable-component-update"]
        instance = p.chromium.launch(executable_path=browser.chromium(), args=args)
        yield instance
        instance.close()


class Page:
    """A page opened from disk, with its console errors, failed loads and network requests."""

    def __init__(self, chrome, relative: str, query: str = ""):
        self.page = chrome.new_page(viewport={"width": 1280, "height": 900})
        self.errors: list[str] = []
        page = self.page
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("requestfailed", lambda r: self.errors.append(f"failed to load {r.url}"))
        page.on(
            "request",
            lambda r: (
                self.errors.append(f"network request {r.url}")
                if r.url.startswith(("http:", "https:"))
                else None
            ),
        )
        page.goto((BOOK / relative).resolve().as_uri() + query, wait_until="load")

    def close(self):
        self.page.close()


def _relative(url: str) -> str:
    """A file:// URL in the book -> its path relative to build/book/ ('' if outside)."""
    path = Path(unquote(urlsplit(url).path))
    return path.relative_to(BOOK).as_posix() if path.is_relative_to(BOOK) else ""


def _ids(path: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))


def _pages(manifest) -> list[str]:
    return [p["page"] for p in manifest["pages"]] + ["search.html", "genindex.html"]


def _notebook_pages(manifest) -> list[dict]:
    return [p for p in manifest["pages"] if p["source"].startswith("notebooks/")]


# What each page shows once loaded and its diagrams drawn: read in one visit per page.
FACTS = """() => ({
    broken: [...document.images].filter(i => !(i.naturalWidth > 0)).map(i => i.src),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    plots: [...document.querySelectorAll('.cell_output img')].filter(i => i.naturalWidth > 0).length,
    checks_rows: document.querySelectorAll('table.memlib-checks tbody tr').length,
    checks_in_section: [...document.querySelectorAll('section#checks table.memlib-checks')]
        .filter(t => t.offsetParent !== null).length,
    prev: document.querySelector('a.prev-page')?.href ?? null,
    next: document.querySelector('a.next-page')?.href ?? null,
    sidebar: [...document.querySelectorAll('.sidebar-tree a.reference')].map(a => a.href),
    diagrams: [...document.querySelectorAll('pre.mermaid')].map(b =>
        b.dataset.rendered === 'svg' && b.querySelector('svg') ? 'svg' : String(b.dataset.rendered)),
    text: document.querySelector('article')?.innerText ?? '',
    h1: document.querySelector('article h1')?.innerText ?? '',
    h2: [...document.querySelectorAll('article h2')].map(h => h.textContent),
    tables: document.querySelectorAll('article table').length,
})"""


@pytest.fixture(scope="module")
def visits(book, chrome) -> dict[str, dict]:
    """Every page of the book opened once from disk: {page: what it showed, and its errors}."""
    seen = {}
    newest = _notebook_pages(book)[-1]["page"]
    for relative in _pages(book):
        view = Page(chrome, relative)
        page = view.page
        page.wait_for_function("[...document.images].every(i => i.complete)", timeout=15_000)
        page.wait_for_function(
            "[...document.querySelectorAll('pre.mermaid')].every(b => b.dataset.rendered)",
            timeout=30_000,
        )
        facts = page.evaluate(FACTS)
        if relative == newest:  # a screenshot of the newest notebook, at its first diagram
            if facts["diagrams"]:
                page.locator("pre.mermaid").first.scroll_into_view_if_needed()
            page.screenshot(path=str(BOOK / "screenshot.png"))
        facts["errors"] = list(view.errors)
        view.close()
        seen[relative] = facts
    return seen


@needs_browser
def test_every_page_loads_with_its_images_and_links(book, visits):
    """No console error, no network request, every image decoded, every internal link resolves."""
    problems = []
    ids_cache: dict[Path, set[str]] = {}
    for relative, facts in visits.items():
        problems += [f"{relative}: image not loaded: {src}" for src in facts["broken"]]
        problems += [f"{relative}: {e}" for e in facts["errors"]]
        for href in facts["links"]:
            parts = urlsplit(href)
            if parts.scheme != "file":
                continue  # external links (the theme's credits) are not fetched
            target = Path(unquote(parts.path))
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{relative}: link to a missing file {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = ids_cache.setdefault(target, _ids(target))
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{relative}: link to a missing anchor {href}")
    assert not problems, "\n".join(problems)


@needs_browser
def test_notebook_pages_show_plots_checks_and_navigation(book, visits):
    entries = _notebook_pages(book)
    sources = [e["source"] for e in entries]
    assert sources == sorted(sources), "notebook pages in file-name order"
    before = {  # every notebook that existed when the build started has its page
        f"notebooks/{p.name}" for p in bb.notebooks() if p.stat().st_mtime < book["started"]
    }
    assert before <= set(sources), f"notebooks without a page: {sorted(before - set(sources))}"
    order = [e["page"] for e in entries]
    for i, entry in enumerate(entries):
        facts = visits[entry["page"]]
        # previous / next in notebook order (the first notebook's previous is the landing page)
        assert _relative(facts["prev"]) == (order[i - 1] if i else "index.html"), entry["page"]
        if i + 1 < len(entries):
            assert _relative(facts["next"]) == order[i + 1], entry["page"]
        sidebar = [_relative(h) for h in facts["sidebar"]]
        assert [h for h in sidebar if h in order] == order, f"{entry['page']}: sidebar {sidebar}"
        if not entry["executed"]:
            assert "without its outputs" in facts["text"], entry["page"]
            continue
        # plots and figures as counted in the executed notebook the build read, before rendering
        assert facts["plots"] >= entry["plots"], (
            f"{entry['page']}: {facts['plots']} plot(s) shown of {entry['plots']}"
        )
        assert entry["figures"], f"{entry['page']}: the executed notebook recorded no figures"
        assert facts["checks_rows"] == entry["figures"], (
            f"{entry['page']}: {facts['checks_rows']} table rows, {entry['figures']} figures"
        )
        assert facts["checks_in_section"] >= 1, f"{entry['page']}: no visible Checks table"
    if not any(e["executed"] for e in entries):
        pytest.skip(
            "no executed notebook in build/notebooks/ (run `make run`): plots and Checks tables "
            "not checked, navigation and structure were"
        )


@needs_browser
def test_mermaid_diagrams_render_to_svg(book, visits):
    """Every ```mermaid fence in a notebook (and a drawn graph in its outputs) becomes an SVG."""
    fence = re.compile(r"^\s*```mermaid", re.M)
    total = 0
    for entry in _notebook_pages(book):
        source = json.loads((ROOT / entry["source"]).read_text(encoding="utf-8"))
        expected = sum(
            len(fence.findall("".join(c["source"])))
            for c in source["cells"]
            if c["cell_type"] == "markdown"
        )
        states = visits[entry["page"]]["diagrams"]
        assert len(states) >= expected, (
            f"{entry['page']}: {len(states)} diagrams, {expected} fences"
        )
        assert all(s == "svg" for s in states), f"{entry['page']}: {states}"
        total += len(states)
    assert total, "no Mermaid diagram in the book"
    assert (BOOK / "screenshot.png").stat().st_size > 10_000


@needs_browser
def test_search_finds_removemessage(book, chrome):
    expected = {
        entry["page"]
        for entry in _notebook_pages(book)
        if SEARCH_TERM in (ROOT / entry["source"]).read_text(encoding="utf-8")
    }
    assert expected, f"no notebook mentions {SEARCH_TERM}"
    view = Page(chrome, "search.html", f"?q={SEARCH_TERM}")
    view.page.wait_for_function(
        "/Search finished|did not match/.test("
        "document.querySelector('#search-results')?.textContent ?? '')",
        timeout=30_000,
    )
    found = view.page.evaluate(
        "[...document.querySelectorAll('#search-results li a')].map(a => a.href)"
    )
    found = {_relative(h.split("?")[0].split("#")[0]) for h in found}
    assert expected <= found, (
        f"search for {SEARCH_TERM} found {sorted(found)}, not {sorted(expected)}"
    )
    assert not view.errors, view.errors
    view.close()


@needs_browser
def test_landing_page_and_benchmarks(book, visits):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", readme, re.M).group(1).strip()
    index = visits["index.html"]
    assert index["h1"].rstrip("#¶ ").strip() == title
    sections = [
        html.unescape(s.replace("`", "")).strip() for s in re.findall(r"^## (.+)$", readme, re.M)
    ]
    missing = [s for s in sections if s not in index["text"]]
    assert not missing, f"README sections missing from the landing page: {missing}"
    results = book["benchmarks"]  # benchmarks/results/*.json when the book was built
    assert results == sorted(results) and results, "no benchmark results"
    bench = visits["benchmarks.html"]
    assert [h.rstrip("#¶ ").strip() for h in bench["h2"]] == results
    assert bench["tables"] >= len(results)
