"""Drive JupyterLab in a real browser: for the widget and book tests, and for screenshots.

`jupyterlab(root)` starts a JupyterLab server on a free local port (token auth, no browser, news
and update checks off) and stops it afterwards; `chromium()` returns the path of a Chromium build
Playwright can drive, or None. `run_all_cells(page)` runs a notebook open in the page and waits
until the kernel is idle. A test helper, not part of memlib (tests import it as `jupyter_browser`); it needs the `dev` extra
(playwright) and a Chromium from the system's packages (Debian: `apt-get install chromium`).

Leaves out: downloading browsers (Playwright's own download cannot work offline).
"""

from __future__ import annotations

import contextlib
import os
import runpy
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = (
    "a real-browser test needs Chromium and Playwright: `apt-get install chromium` (Debian / "
    "Ubuntu, as root) and `pip install -e '.[dev]'` (playwright); Playwright's own browser "
    "download is not used"
)


def chromium() -> str | None:
    """Path of a system Chromium, or None."""
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def missing() -> str | None:
    """Why a browser test cannot run here, or None when it can."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return f"playwright is not installed; {INSTALL_HINT}"
    if chromium() is None:
        return f"no Chromium on PATH ({', '.join(CHROMIUM_CANDIDATES)}); {INSTALL_HINT}"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: str | os.PathLike, timeout: float = 60.0):
    """Yield the base URL (with ?token=...) of a JupyterLab serving `root`; stop it afterwards."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise ValueError(f"root must be a directory, got {str(root)!r}")
    port, token = free_port(), secrets.token_hex(16)
    workspaces = Path(tempfile.mkdtemp(prefix="memlib-lab-workspaces-"))
    # no news feed, no update check: the same overrides `make lab` writes
    runpy.run_path(str(Path(__file__).resolve().parents[1] / "scripts" / "lab_settings.py"))
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--ServerApp.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={workspaces}",  # a fresh workspace: no tabs restored
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    env = dict(os.environ)
    log = open(root / ".jupyterlab-test.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    text = (root / ".jupyterlab-test.log").read_text(
                        encoding="utf-8", errors="replace"
                    )[-2000:]
                    raise RuntimeError(
                        f"JupyterLab did not start on port {port}:\n{text}"
                    ) from None
                time.sleep(0.3)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        (root / ".jupyterlab-test.log").unlink(missing_ok=True)
        shutil.rmtree(workspaces, ignore_errors=True)


def kernel_idle(page) -> bool:
    return page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count() > 0


def dismiss_dialogs(page) -> list[str]:
    """Accept any modal JupyterLab dialog (e.g. a kernel picker on a slow start); return texts."""
    seen = []
    dialogs = page.locator(".jp-Dialog")
    for _ in range(3):
        if not dialogs.count() or not dialogs.first.is_visible():
            break
        seen.append(dialogs.first.inner_text())
        accept = dialogs.first.locator(".jp-mod-accept")
        if accept.count():
            accept.first.click()
        else:
            page.keyboard.press("Escape")
        page.wait_for_timeout(500)
    return seen


def run_all_cells(page, timeout_ms: int = 300_000) -> None:
    """Run every cell of the notebook open in `page` (Run > Run All Cells) and wait for the end.

    The menu is clicked again if no cell has started after a while: JupyterLab can swallow a
    command issued while the notebook is still settling."""
    started = r"""() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
        .some(p => /\[(\*|\d+)\]/.test(p.textContent))"""
    page.locator(".jp-Notebook").first.wait_for(timeout=60_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    for attempt in range(4):
        dismiss_dialogs(page)
        page.locator(".jp-Notebook").first.click()
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        try:
            page.wait_for_function(started, timeout=15_000)
            break
        except Exception:  # playwright's TimeoutError
            if attempt == 3:
                raise
    # every code cell gets an execution count when it has run; "[*]" while queued or running
    page.wait_for_function(
        r"""() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every(p => /\[\d+\]/.test(p.textContent));
        }""",
        timeout=timeout_ms,
    )
