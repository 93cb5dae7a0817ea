"""Real-browser tests: JupyterLab on a free local port, driven by Playwright in Chromium.

Skipped, with what is missing and how to install it, where there is no Chromium or no Playwright
(`.ci/run` installs Debian's chromium package first). Screenshots land in build/notebooks/.
"""

from __future__ import annotations

import contextlib
import json
import shutil

import jupyter_browser as browser
import pytest

from memlib.testing import BUILD, KERNEL, ensure_kernel

pytestmark = pytest.mark.skipif(browser.missing() is not None, reason=str(browser.missing()))

INSPECTOR_CELL = """\
from langgraph.store.memory import InMemoryStore
from memlib import MemoryInspector
store = InMemoryStore()
store.put(("users", "ana", "facts"), "f1", {"content": "Ana works at Globex."})
store.put(("users", "ana", "facts"), "f2", {"content": "Ana has a dog called Biscuit."})
store.put(("users", "ben", "facts"), "f3", {"content": "Ben lives in Oslo."})
MemoryInspector(store, prefix=("users", "ana"))
"""


def _notebook(cells: list[str]) -> dict:
    return {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": c,
                "outputs": [],
                "execution_count": None,
            }
            for c in cells
        ],
        "metadata": {
            "kernelspec": {"name": KERNEL, "language": "python", "display_name": "Python (memlib)"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    ensure_kernel()
    with sync_playwright() as p:
        chrome = p.chromium.launch(executable_path=browser.chromium(), args=["--no-sandbox"])
        page = chrome.new_page(viewport={"width": 1280, "height": 900})
        # Errors are collected while JupyterLab serves the page. A test stops collecting
        # (page.server_up = False) before the server shuts down: after that the page's own polling
        # fails ("Server Connection Error") at a moment set by the load, not by our code.
        page.console_errors, page.server_up = [], True

        def error(text):
            if page.server_up:
                page.console_errors.append(text)

        page.on("console", lambda m: error(m.text) if m.type == "error" else None)
        page.on("response", lambda r: error(f"{r.status} {r.url}") if r.status >= 400 else None)
        try:
            yield page
        except BaseException:
            raise
        finally:
            if page.console_errors:
                BUILD.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(BUILD / "browser_test_last_failure.png"))
            chrome.close()


@contextlib.contextmanager
def screenshot_on_failure(page):
    """Keep what the page showed when a step failed: build/notebooks/browser_test_failure.png."""
    try:
        yield
    except Exception as exc:
        BUILD.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(BUILD / "browser_test_failure.png"))
        dialogs = page.locator(".jp-Dialog")
        text = dialogs.first.inner_text() if dialogs.count() else "(no dialog)"
        raise AssertionError(f"{exc}\nopen dialog: {text}") from exc


def test_memory_inspector_in_jupyterlab(tmp_path, page):
    (tmp_path / "inspector.ipynb").write_text(json.dumps(_notebook([INSPECTOR_CELL])))
    with browser.jupyterlab(tmp_path) as (base, token):
        page.goto(f"{base}/lab/tree/inspector.ipynb?token={token}")
        with screenshot_on_failure(page):
            browser.run_all_cells(page)
        rows = page.locator(".memlib-row")
        rows.first.wait_for(timeout=30_000)
        assert rows.count() == 2  # Ana's two facts; Ben's namespace is outside the prefix
        assert "Biscuit" in page.locator(".memlib-inspector").inner_text()
        # the two-step delete, clicked in the page
        page.get_by_role("button", name="Delete…").click()
        page.get_by_role("button", name="Confirm delete").click()
        page.wait_for_function("document.querySelectorAll('.memlib-row').length === 1")
        BUILD.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(BUILD / "memory_inspector.png"))
        page.server_up = False
    assert not page.console_errors, page.console_errors
    shutil.rmtree(tmp_path, ignore_errors=True)


NB09 = "09_full_memory_agent.ipynb"


def test_chat_panel_in_notebook_09(tmp_path, page):
    """Open 09 in JupyterLab, run it, talk to the agent in the chat panel, read the inspector."""
    from memlib.testing import NOTEBOOKS

    if not (NOTEBOOKS / NB09).exists():
        pytest.skip(f"{NB09} does not exist yet")
    work = tmp_path / "notebooks"
    work.mkdir()
    shutil.copy(NOTEBOOKS / NB09, work / NB09)
    with browser.jupyterlab(work) as (base, token):
        page.goto(f"{base}/lab/tree/{NB09}?token={token}")
        with screenshot_on_failure(page):
            browser.run_all_cells(page, timeout_ms=420_000)
        box = page.locator(".memlib-chat-input input, .memlib-chat-input textarea").first
        box.wait_for(timeout=30_000)
        box.fill("What is my name?")
        page.locator(".memlib-chat-send").first.click()
        reply = page.locator(".memlib-chat-reply").first
        page.wait_for_function(
            "document.querySelector('.memlib-chat-reply') &&"
            " document.querySelector('.memlib-chat-reply').innerText.trim().length > 0",
            timeout=60_000,
        )
        assert reply.inner_text().strip()
        assert page.locator(".memlib-row").count() >= 1  # the inspector lists stored memories
        BUILD.mkdir(parents=True, exist_ok=True)
        reply.scroll_into_view_if_needed()
        page.screenshot(path=str(BUILD / "09_chat_panel.png"))
        page.server_up = False
    assert not page.console_errors, page.console_errors
