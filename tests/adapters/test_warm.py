"""ock-warm (adapters/python/ock_frameworks/warm.py): a forked worker per scenario must be, to
ock run, the process it started. Each test runs the real server and client as processes, with a
probe main (warm_probe.py) in place of a framework bridge: what the worker saw (argv, environment,
working directory, its standard streams), its exit code, a forwarded SIGINT, a client killed with
SIGKILL (the worker must not outlive it), no server (the client runs the main itself), and the
server stopping by itself.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "adapters", "python")  # ock_frameworks.warm: stdlib only
PROBE = "warm_probe:main"


def env_with(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE, SOURCE, env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def warm(*args, **kw):
    return [sys.executable, "-m", "ock_frameworks.warm", *args]


def wait_for(pred, seconds=20.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


class Warm(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ock-warm-")
        self.sock = os.path.join(self.dir, "s.sock")
        self.server = subprocess.Popen(warm("serve", PROBE, "--socket", self.sock, "--idle", "30"),
                                       env=env_with())
        self.assertTrue(wait_for(lambda: os.path.exists(self.sock)), "the server never listened")

    def tearDown(self):
        if self.server.poll() is None:
            self.server.terminate()
            self.server.wait(20)
        self.assertFalse(os.path.exists(self.sock), "the server left its socket")

    def client(self, *args, **kw):
        return subprocess.Popen(warm("run", "--socket", self.sock, PROBE, *args), cwd=self.dir,
                                env=env_with(OCK_PROBE="from-the-client"), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)

    def test_worker_takes_the_clients_process_state(self):
        c = self.client("exit", "7")
        out, err = c.communicate("input line\n", timeout=30)
        self.assertEqual(c.returncode, 7, err)
        lines = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        self.assertEqual(lines["argv"], "%s exit 7" % ("ock-" + PROBE))
        self.assertEqual(lines["env"], "from-the-client")
        self.assertEqual(os.path.realpath(lines["cwd"]), os.path.realpath(self.dir))
        self.assertEqual(lines["stdin"], "input line")
        self.assertNotEqual(int(lines["pid"]), c.pid)  # a worker, not the client
        self.assertIn("to stderr", err)

    def test_sigint_reaches_the_worker(self):
        c = self.client("wait")
        line = c.stdout.readline()  # "pid=N": the worker runs and waits for a signal
        worker = int(line.split("=")[1])
        c.send_signal(signal.SIGINT)
        out, err = c.communicate(timeout=30)
        self.assertIn("got SIGINT", out)
        self.assertEqual(c.returncode, 3, err)  # the probe's own exit after its handler
        self.assertTrue(wait_for(lambda: not alive(worker)))

    def test_uncaught_interrupt_ends_the_client_by_sigint(self):
        c = self.client("interrupt")
        c.stdout.readline()
        c.send_signal(signal.SIGINT)
        c.communicate(timeout=30)
        self.assertEqual(c.returncode, -signal.SIGINT)

    def test_killed_client_leaves_no_worker(self):
        c = self.client("wait")
        worker = int(c.stdout.readline().split("=")[1])
        self.assertTrue(alive(worker))
        c.kill()
        c.wait(30)
        self.assertTrue(wait_for(lambda: not alive(worker)), "the worker outlived its client")

    def test_server_stops_when_idle(self):
        self.server.terminate()
        self.server.wait(20)
        s = subprocess.Popen(warm("serve", PROBE, "--socket", self.sock, "--idle", "1"), env=env_with())
        self.assertTrue(wait_for(lambda: os.path.exists(self.sock)))
        self.assertEqual(s.wait(30), 0)
        self.assertFalse(os.path.exists(self.sock))


class NoServer(unittest.TestCase):
    def test_client_runs_the_main_itself(self):
        c = subprocess.run(warm("run", "--socket", "/nonexistent/ock-warm.sock", PROBE, "exit", "5"),
                           env=env_with(OCK_PROBE="alone"), input="x\n", capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(c.returncode, 5, c.stderr)
        self.assertIn("env=alone", c.stdout)

    def test_usage(self):
        c = subprocess.run(warm("serve", "no-such-bridge", "--socket", "/tmp/x"), env=env_with(),
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(c.returncode, 2)
        self.assertIn("no bridge 'no-such-bridge'", c.stderr)


if __name__ == "__main__":
    unittest.main()
