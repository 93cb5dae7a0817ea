"""Test scripts run in processes forked from one that has already imported memlib's backends.

The reliability tests start about 60 writer processes (then SIGKILL most of them): each
`python script.py` imported langchain_core, LangGraph's stores, numpy and FAISS again, about
0.6 s of CPU before its first write. `start(script, args)` runs the same script with the same
argv and environment in a fresh process forked from multiprocessing's fork server, which imports
those modules once per test process (PRELOAD). The child is a real process of its own: it opens its
own store and connections, a SIGKILL lands on it (`kill()` signals its pid), and its stdout and
stderr are pipes the test reads line by line, as with subprocess.Popen. A test helper, not part of
memlib.
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.forkserver
import os
import runpy
import sys

PRELOAD = """numpy faiss psycopg langchain_core.embeddings langgraph.store.base
langgraph.store.sqlite langgraph.store.postgres langgraph.checkpoint.sqlite
langgraph.checkpoint.postgres memlib.backends memlib.faiss_store""".split()

_context = None


def _fork_server():
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
        atexit.register(_stop)
    return _context


def _stop() -> None:
    """Stop the fork server and wait for it, so that its CPU time (and its children's) counts in
    this process's, as a subprocess's would (Python 3.11 has no public way to stop it)."""
    server = multiprocessing.forkserver._forkserver
    if getattr(server, "_forkserver_pid", None) is None:
        return
    os.close(server._forkserver_alive_fd)  # the server exits when this pipe closes
    os.waitpid(server._forkserver_pid, 0)
    server._forkserver_alive_fd = server._forkserver_pid = None


def _run(script: str, argv: list[str], env: dict[str, str], cwd: str, out, err) -> None:
    """In the forked child: stdout and stderr to the pipes, then the script as __main__."""
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    out.close()
    err.close()
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 (the process's own)
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = [script, *argv]
    runpy.run_path(script, run_name="__main__")


class Forked:
    """The subset of subprocess.Popen the tests use: stdout, stderr (text), pid, kill,
    send_signal, wait, communicate, returncode."""

    def __init__(self, script, args, env=None) -> None:
        ctx = _fork_server()
        out_r, out_w = ctx.Pipe(duplex=False)
        err_r, err_w = ctx.Pipe(duplex=False)
        env = dict(os.environ if env is None else env)
        argv = [str(a) for a in args]
        self.process = ctx.Process(
            target=_run, args=(str(script), argv, env, os.getcwd(), out_w, err_w), daemon=True
        )
        self.process.start()
        out_w.close()
        err_w.close()
        self.pid = self.process.pid
        self.stdout = os.fdopen(os.dup(out_r.fileno()), "r")
        self.stderr = os.fdopen(os.dup(err_r.fileno()), "r")
        out_r.close()
        err_r.close()

    def send_signal(self, signum: int) -> None:
        if self.process.exitcode is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.process.kill()

    def wait(self, timeout: float | None = None) -> int | None:
        self.process.join(timeout)
        return self.returncode

    @property
    def returncode(self) -> int | None:
        return self.process.exitcode

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Both streams to their end, then the exit status (stderr is read after stdout: the
        tests' scripts write little to it)."""
        out, err = self.stdout.read(), self.stderr.read()
        self.wait(timeout)
        self.stdout.close()
        self.stderr.close()
        return out, err


def start(script, args, env=None) -> Forked:
    """`python script *args` with env (default: this process's), forked from the fork server."""
    return Forked(script, args, env)
