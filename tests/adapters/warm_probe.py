"""A stand-in bridge main for test_warm.py: it reports the process state it runs in, then does
what its first argument says (exit N; wait for SIGINT; interrupt: wait with no handler)."""
import os
import signal
import sys
import time


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "exit"
    if mode == "wait":  # the handler first: the test signals once it has read the pid
        def on_sigint(*_):
            print("got SIGINT", flush=True)
            os._exit(3)
        signal.signal(signal.SIGINT, on_sigint)
    print("pid=%d" % os.getpid(), flush=True)
    if mode == "wait":
        time.sleep(60)
        return 1
    if mode == "interrupt":
        time.sleep(60)
        return 1
    print("argv=%s" % " ".join(sys.argv))
    print("env=%s" % os.environ.get("OCK_PROBE", ""))
    print("cwd=%s" % os.getcwd())
    print("stdin=%s" % sys.stdin.readline().strip())
    sys.stderr.write("to stderr\n")
    return int(sys.argv[2]) if len(sys.argv) > 2 else 0
