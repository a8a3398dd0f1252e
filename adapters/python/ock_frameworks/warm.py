"""ock-warm: a bridge's process per scenario, without importing its framework each time.

ock/1 runs one orchestrator process per scenario, and a Python bridge spends most of a short
scenario importing its framework: seconds of CPU for the OpenAI Agents SDK (``agents`` imports
``openai``'s types, ``mcp`` and its sandbox), which on two cores made a run of the catalog take
six to eight minutes. ``ock-warm`` imports the bridge once and forks a fresh copy per scenario:

    ock-warm serve NAME --socket PATH [--idle S]    import the bridge NAME, then serve
    ock-warm run --socket PATH NAME [ARGS...]       one scenario: what ock run starts

NAME is langgraph, openai-agents or pydantic-ai (the bridge of ock-NAME), or MODULE:FUNCTION
for any other main (the tests use one).

``run`` is the process ock run starts and grades. It hands the server its argv, environment,
working directory and its standard input, output and error (the descriptors themselves, over
the Unix socket), and the server forks a worker that takes them on and calls the bridge's
``main()``. The worker writes to ock's pipes directly. ``run`` forwards every signal it gets
(SIGINT, SIGTERM, SIGHUP, SIGQUIT) to the worker, and ends as the worker ended: the same exit
code, or killed by the same signal. When ``run`` itself is killed (SIGKILL), the server sees its
connection close and kills the worker, so nothing is left running. With no server at PATH,
``run`` runs the bridge in its own process, as ``ock-NAME`` does.

The server stops by itself when its parent exits, or after ``--idle`` seconds (default 600)
with no scenario running. It imports nothing but the bridge module, and creates no event loop,
client or thread before it forks: each worker starts from the same state a fresh process
would have after the imports. The frameworks read their settings from the environment when
the bridge builds its clients, not at import, so the worker's environment is the scenario's.
"""
from __future__ import annotations

import importlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
import traceback

BRIDGES = {
    "langgraph": "ock_frameworks.langgraph_bridge",
    "openai-agents": "ock_frameworks.openai_agents_bridge",
    "pydantic-ai": "ock_frameworks.pydantic_ai_bridge",
}
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
LENGTH = struct.Struct("!I")


def usage(message: str) -> int:
    sys.stderr.write("ock-warm: %s (ock-warm --help)\n" % message)
    return 2


def known(name: str) -> bool:
    return name in BRIDGES or ":" in name


def bridge_main(name: str):
    if name in BRIDGES:
        return importlib.import_module(BRIDGES[name]).main
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


# ---- the worker (a forked copy of the server) -------------------------------------------------

def worker(main, request: dict, fds: list) -> None:
    """Take on the scenario's process state, run the bridge, and exit as a process would."""
    for sig in FORWARDED + (signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.set_wakeup_fd(-1)
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = request["argv"]
    code = 1
    try:
        result = main()
        code = result if isinstance(result, int) else 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if isinstance(e.code, str):
            sys.stderr.write(e.code + "\n")
    except KeyboardInterrupt:  # as an uncaught one ends Python: killed by SIGINT
        flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:  # noqa: BLE001 (printed, as Python would)
        traceback.print_exc()
    flush()
    os._exit(code)


def flush() -> None:
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):
            pass


# ---- the server --------------------------------------------------------------------------------

def read_request(conn: socket.socket):
    """The client's request: a length, its JSON and three descriptors in the first message."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3 or len(data) < LENGTH.size:
        for fd in fds:
            os.close(fd)
        raise ValueError("not an ock-warm request")
    (n,) = LENGTH.unpack_from(data)
    body = data[LENGTH.size:]
    while len(body) < n:
        more = conn.recv(n - len(body))
        if not more:
            raise ValueError("request cut short")
        body += more
    return json.loads(body), fds


class Server:
    def __init__(self, main, path: str, idle: float):
        self.main = main
        self.path = path
        self.idle = idle
        self.parent = os.getppid()
        self.children: dict = {}  # pid -> the client's connection
        self.sel = selectors.DefaultSelector()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        os.set_blocking(self.wake_r, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self.stop)
        self.stopping = False

    def stop(self, *_):
        self.stopping = True

    def accept(self, listener: socket.socket) -> None:
        conn, _ = listener.accept()
        try:
            request, fds = read_request(conn)
        except (OSError, ValueError) as e:
            sys.stderr.write("ock-warm: %s\n" % e)
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            self.leave(listener, conn)
            worker(self.main, request, fds)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        try:
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        except OSError:
            pass  # the client is gone: its connection reads as closed below
        self.sel.register(conn, selectors.EVENT_READ, pid)

    def leave(self, listener: socket.socket, conn: socket.socket) -> None:
        """In a new worker: close what is the server's (its socket, the connections of the
        other scenarios, its wake-up pipe), so only the server holds them."""
        listener.close()
        conn.close()
        for other in self.children.values():
            other.close()
        self.sel.close()
        os.close(self.wake_r)
        os.close(self.wake_w)

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            self.last = time.monotonic()  # idle from the end of the last scenario
            self.sel.unregister(conn)
            try:
                conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            except OSError:
                pass
            conn.close()

    def client_gone(self, conn: socket.socket, pid: int) -> None:
        """A client's connection closed while its worker runs: the client was killed."""
        try:
            if conn.recv(1):
                return
        except OSError:
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def serve(self) -> int:
        if os.path.exists(self.path):
            os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path + ".new")
        listener.listen(64)
        os.rename(self.path + ".new", self.path)  # the path appears once it accepts
        self.sel.register(listener, selectors.EVENT_READ, None)
        self.sel.register(self.wake_r, selectors.EVENT_READ, None)
        self.last = time.monotonic()
        try:
            while not self.stopping:
                for key, _ in self.sel.select(timeout=1.0):
                    if key.fileobj is listener:
                        self.accept(listener)
                    elif key.fileobj == self.wake_r:
                        try:
                            os.read(self.wake_r, 4096)
                        except BlockingIOError:
                            pass
                    else:
                        self.client_gone(key.fileobj, key.data)
                self.reap()
                if os.getppid() != self.parent:
                    break
                if not self.children and time.monotonic() - self.last > self.idle:
                    break
        finally:
            listener.close()
            if os.path.exists(self.path):
                os.unlink(self.path)
            for pid in list(self.children):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            while self.children:
                try:
                    pid, _ = os.waitpid(-1, 0)
                except ChildProcessError:
                    break
                self.children.pop(pid, None)
        return 0


# ---- the client: the process ock run grades ----------------------------------------------------

def run(path: str, name: str, args: list) -> int:
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
    except OSError:
        sys.argv = ["ock-" + name] + args
        return bridge_main(name)()
    pending: list = []
    pid = None

    def forward(sig, _frame):
        if pid is None:
            pending.append(sig)
        else:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    for sig in FORWARDED:
        signal.signal(sig, forward)
    body = json.dumps({"argv": ["ock-" + name] + args, "env": dict(os.environ),
                       "cwd": os.getcwd()}).encode()
    socket.send_fds(conn, [LENGTH.pack(len(body)) + body], [0, 1, 2])
    reader = conn.makefile("rb")
    for line in reader:
        msg = json.loads(line)
        if "pid" in msg:
            pid = msg["pid"]
            for sig in pending:
                forward(sig, None)
        elif "exit" in msg:
            code = msg["exit"]
            if code < 0:
                signal.signal(-code, signal.SIG_DFL)
                os.kill(os.getpid(), -code)
            return code
    return 1  # the server went away before the worker ended


def main() -> int:
    argv = sys.argv[1:]
    if len(argv) >= 4 and argv[0] == "serve" and argv[2] == "--socket":
        name, path = argv[1], argv[3]
        idle = 600.0
        if len(argv) == 6 and argv[4] == "--idle":
            idle = float(argv[5])
        elif len(argv) != 4:
            return usage("serve takes NAME --socket PATH [--idle S]")
        if not known(name):
            return usage("no bridge %r (have: %s)" % (name, ", ".join(sorted(BRIDGES))))
        return Server(bridge_main(name), path, idle).serve()
    if len(argv) >= 4 and argv[0] == "run" and argv[1] == "--socket":
        if not known(argv[3]):
            return usage("no bridge %r (have: %s)" % (argv[3], ", ".join(sorted(BRIDGES))))
        return run(argv[2], argv[3], argv[4:])
    if argv in (["--help"], ["-h"]):
        sys.stdout.write(__doc__)
        return 0
    return usage("expected serve or run")


if __name__ == "__main__":
    sys.exit(main())
