"""Notebook kernels forked from a process that has already imported the heavy libraries.

Every notebook kernel imported ipykernel, langchain, LangGraph, spaCy, the openai SDK and numpy
again: about 2.2 s of CPU for an offline kernel and 2.8 s for one on the OpenAI path, before its
first cell ran, 36 times a session. Here one process per xdist worker (the zygote) imports them
once and forks a kernel for each launch; each notebook still runs in a fresh process of its own,
with the environment, working directory and connection file of its launch. Nothing runs in the
zygote but the imports and the load of spaCy's English pipeline (the state a fresh load gives):
no thread, event loop or kernel socket exists when it forks, and module state is never shared.

The launch command is a small shim (`python -S -c SHIM ...`), so jupyter_client manages an
ordinary child process: the shim hands its stdin, stdout and stderr to the zygote, forwards the
signals it gets (an interrupt, a termination) to the forked kernel, and exits with the kernel's
exit status; a kernel whose shim is killed outright exits too (it watches the shim's socket). If
the zygote cannot start, kernels start the ordinary way. A test helper, not part of memlib.
"""

from __future__ import annotations

import array
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# imported once in the zygote, then shared by every kernel forked from it (copy on write)
PRELOAD = """ipykernel.kernelapp ipykernel.ipkernel IPython.core.interactiveshell numpy faiss
langchain_core.language_models langchain_core.messages langchain_core.runnables
langchain_core.embeddings langchain_core.tools langgraph.graph langgraph.store.memory
langgraph.checkpoint.memory langchain_openai openai tiktoken spacy memlib.models memlib.checks
offline_model.model""".split()

# The command jupyter_client starts: python -S (no site: a few milliseconds), then this code.
SHIM = r"""
import array, json, os, signal, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
request = json.dumps({"argv": sys.argv[2:], "env": dict(os.environ), "cwd": os.getcwd()}).encode()
sock.sendmsg([len(request).to_bytes(8, "big") + request],
             [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
replies = sock.makefile("rb")
pid = int(replies.readline())
def forward(signum, frame):
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1):
    signal.signal(s, forward)
status = replies.readline()
sys.exit(int(status) if status.strip() else 1)
"""
# Variables read at start-up (Python's own, the locale's; the temporary directory, which tempfile
# caches; the BLAS and OpenMP thread counts, read when numpy and FAISS load): a launch that sets
# one otherwise than the zygote's environment starts the usual way.
STARTUP_VARS = """PYTHONPATH PYTHONHOME PYTHONPYCACHEPREFIX PYTHONDONTWRITEBYTECODE PYTHONHASHSEED
PYTHONSAFEPATH PYTHONNOUSERSITE PYTHONWARNINGS PYTHONIOENCODING PYTHONUTF8 VIRTUAL_ENV LANG LC_ALL
LC_CTYPE TMPDIR TEMP TMP OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS""".split()


def _serve(path: str) -> None:
    """The zygote: import PRELOAD, then fork a kernel for every connection on the socket; no
    thread ever runs here (a fork copies only the thread that calls it)."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    from offline_model import parse

    parse._nlp()  # spaCy's English pipeline, loaded as a fresh kernel would load it (0.5 s)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(16)
    print("ready", flush=True)
    shims: dict[int, socket.socket] = {}  # kernel pid -> its shim's connection
    while True:
        if select.select([server], [], [], 0.2)[0]:
            conn, _ = server.accept()
            pid = _fork_kernel(conn, server, shims)
            shims[pid] = conn
        while shims:  # report the kernels that exited
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            if (conn := shims.pop(pid, None)) is not None:
                code = os.waitstatus_to_exitcode(status)
                try:
                    conn.sendall(f"{code if code >= 0 else 128 - code}\n".encode())
                except OSError:
                    pass
                conn.close()


def _fork_kernel(conn: socket.socket, server: socket.socket, shims: dict) -> int:
    header, ancillary, _, _ = conn.recvmsg(8, socket.CMSG_SPACE(3 * array.array("i").itemsize))
    size = int.from_bytes(header, "big")
    body = b""
    while len(body) < size:
        body += conn.recv(size - len(body))
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    pid = os.fork()
    if pid == 0:
        server.close()
        for other in shims.values():
            other.close()
        _kernel(conn, json.loads(body), list(fds))
    for fd in fds:
        os.close(fd)
    conn.sendall(f"{pid}\n".encode())
    return pid


def _kernel(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become the kernel the shim was launched as."""
    try:
        os.setsid()
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        del sys.path[0]  # the zygote's directory; ipykernel_launcher drops its own likewise
        argv = request["argv"]
        if parent := request["env"].get("JPY_PARENT_PID"):  # read when ipykernel was imported
            argv = [*argv, f"--IPKernelApp.parent_handle={int(parent)}"]
        sys.argv = [sys.executable, *argv]
        import numpy as np

        np.random.seed()  # the zygote's draw is not shared (`random` reseeds itself at fork)

        def watch() -> None:  # the shim is gone (killed): so is the kernel
            while conn.recv(64):
                pass
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
        from ipykernel import kernelapp

        kernelapp.launch_new_instance(argv=argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


class Zygote:
    """Start a zygote (`start()`); `command(argv)` turns an ipykernel launch into the shim's."""

    def __init__(self, options: list[str]) -> None:
        self.options = list(options)  # the interpreter's options in the kernel spec (-X...)
        self.path = ""  # the zygote's socket, in a directory of its own once started
        self.process: subprocess.Popen | None = None
        self._env: dict[str, str] = {}

    def start(self, timeout: float = 180.0) -> bool:
        """Start the zygote and wait, with a deadline, for its imports; False if it failed."""
        self._env = dict(os.environ)
        self.path = os.path.join(tempfile.mkdtemp(prefix="memlib-zygote-"), "socket")
        self.process = subprocess.Popen(
            [sys.executable, *self.options, __file__, self.path], stdout=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            if select.select([self.process.stdout], [], [], 0.5)[0]:
                if self.process.stdout.readline() == "ready\n":
                    return True
                break
        self.stop()
        return False

    def command(self, kernel_cmd: list[str], env: dict[str, str]) -> list[str]:
        """The shim's command for `python [-X...] -m ipykernel_launcher -f FILE` launched with
        `env`, or kernel_cmd as it is: the zygote is down, the command or its interpreter options
        differ from the zygote's, or so does a variable Python reads at start-up."""
        at = kernel_cmd.index("-m") if "-m" in kernel_cmd else -1
        if (
            self.process is None
            or self.process.poll() is not None
            or kernel_cmd[at : at + 2] != ["-m", "ipykernel_launcher"]
            or kernel_cmd[1:at] != self.options
            or Path(kernel_cmd[0]).resolve() != Path(sys.executable).resolve()
            or any(env.get(k) != self._env.get(k) for k in STARTUP_VARS)
        ):
            return kernel_cmd
        return [kernel_cmd[0], "-S", "-c", SHIM, self.path, *kernel_cmd[at + 2 :]]

    def manager_class(self, base: type) -> type:
        """A subclass of the kernel manager `base` whose kernels come from this zygote."""
        zygote = self

        class ZygoteKernelManager(base):
            async def _async_launch_kernel(self, kernel_cmd, **kw) -> None:
                env = kw["env"] = dict(kw.get("env") or os.environ)
                await super()._async_launch_kernel(zygote.command(kernel_cmd, env), **kw)

        return ZygoteKernelManager

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.path:
            shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)


if __name__ == "__main__":
    _serve(sys.argv[1])
