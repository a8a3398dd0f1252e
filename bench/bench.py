#!/usr/bin/env python3
"""bench.py: OCK's benchmarks, each part side by side with what a user would otherwise pick.

`make bench` runs this after building the kit and bench/deps.sh. It measures, in one run, the
six items of bench/README.md, prints one table with each ratio next to its bar, and rewrites the
generated block of bench/RESULTS.md (the table, the machine, the exact commands).

Every server it starts binds 127.0.0.1 on a free port and is stopped when this script ends,
however it ends (try/finally, SIGINT/SIGTERM handlers, atexit). Every load is bounded in count
and in time. Stdlib only (Python 3.9+).
"""

import argparse
import atexit
import datetime
import json
import math
import os
import platform
import re
import select
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
MOCK_LLM_MAIN = os.path.join(BENCH, ".cache/npm/node_modules/@dwmkerr/mock-llm/dist/main.js")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MEASURE = MEASURE_DIR = None  # build/bench/measure and build/bench, set in main()

COMMANDS = []  # every measured command, as run, for RESULTS.md
ROWS = []  # the table
NOTES = []  # one line per thing a reader must know about this run

# Item 1's request paths: (label, the fixture's provider api, the request body, the endpoint
# under /p/<provider>). The same conversation on each wire: system, user, a tool call, its
# result, a second user message, one tool offered.
WIRES = [
    ("Chat Completions", "openai", "request.json", "/v1/chat/completions"),
    ("Responses API", "responses", "request-responses.json", "/v1/responses"),
    ("Gemini API", "gemini", "request-gemini.json", "/v1beta/models/gemini-ock:generateContent"),
]


# ----------------------------------------------------------------------------------------------
# processes: every one we start is registered and stopped at exit, whatever happens


class Procs:
    def __init__(self):
        self.live = []

    def start(self, argv, stop_signal=signal.SIGTERM, **kw):
        # A process group of its own, so stop() can kill what it forked, but in the bench's
        # session, as wrk is: with autogroup scheduling (Debian's default,
        # /proc/sys/kernel/sched_autogroup_enabled) a new session is a scheduling group of its
        # own, which gets half of the CPU against wrk's group whatever its threads need. That
        # held the mock (16 connection threads, 1.3 cores at item 1's rate) to one core while
        # nginx needed half of one, so item 1 measured the bench's sessions, not the servers.
        p = subprocess.Popen(argv, process_group=0, **kw)
        p.stop_signal = stop_signal
        self.live.append(p)
        return p

    def stop(self, p, timeout=30):
        """Stop p with its own signal, then SIGKILL its whole group after timeout."""
        if p.poll() is None:
            try:
                p.send_signal(p.stop_signal)
                p.wait(timeout=timeout)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                pass
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        if p in self.live:
            self.live.remove(p)
        return p.returncode

    def stop_all(self):
        for p in list(self.live):
            self.stop(p, timeout=5)


PROCS = Procs()
atexit.register(PROCS.stop_all)


def on_signal(signum, _frame):
    PROCS.stop_all()
    sys.stderr.write("bench: stopped by signal %d; every server it started is stopped\n" % signum)
    os._exit(130)


signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_http(url, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("%s did not answer within %d s" % (url, timeout))


def merge_slices(runs):
    """One wrk result from consecutive slices of the same load: requests, errors and time
    summed; latency percentiles as the mean of the slices' (each slice's own is exact)."""
    m = {k: sum(r[k] for r in runs) for k in ("requests", "duration_us", "bytes",
                                               "status_errors", "socket_errors")}
    for k in ("p50_us", "p90_us", "p99_us"):
        m[k] = int(statistics.mean(r[k] for r in runs))
    m["max_us"] = max(r["max_us"] for r in runs)
    m["rps"] = m["requests"] / (m["duration_us"] / 1e6)
    return m


def cpu_s(pid):
    """User plus system CPU time of a live process (all its threads), in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    """(VmRSS, VmHWM) of a live process, in KiB."""
    vals = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                k, v = line.split(":")
                vals[k] = int(v.split()[0])
    return vals.get("VmRSS", 0), vals.get("VmHWM", 0)


def note_command(argv):
    """Record a measured command for RESULTS.md: paths relative to the repository, ports out."""
    text = " ".join(a if re.match(r"^[A-Z_]+=", a) else shlex.quote(a) for a in argv)
    text = text.replace(ROOT + "/", "").replace(sys.executable, "python3")
    text = re.sub(r"http://127\.0\.0\.1:\d+", "$URL", text)
    COMMANDS.append(text)


def run_measured(argv, env=None, timeout=600, stdout=subprocess.DEVNULL, note=True):
    """Run argv to its end under bench's `measure` (measure.c says why not os.wait4 here):
    wall (s), user+sys CPU (s), peak RSS (KiB), exit code and the end of stderr."""
    if note:
        note_command(argv)
    out = os.path.join(MEASURE_DIR, "measure-%d.json" % os.getpid())
    p = subprocess.Popen([MEASURE, "-o", out, "--"] + list(argv), env=env, stdout=stdout,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise RuntimeError("%s: killed after %d s" % (argv[0], timeout))
    with open(out) as f:
        m = json.load(f)
    os.remove(out)
    return {"wall": m["wall_us"] / 1e6, "cpu": (m["user_us"] + m["sys_us"]) / 1e6,
            "user": m["user_us"] / 1e6, "sys": m["sys_us"] / 1e6, "maxrss_kb": m["maxrss_kb"],
            "rc": m["exit"] if not m["signal"] else -m["signal"],
            "stderr": err.decode(errors="replace")[-4000:]}


def slope(xs, ys):
    """Least-squares slope of ys over xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def linear(xs, ys, tolerance=0.25):
    """Whether ys grow linearly in xs: the slopes of the first and the last segment agree
    within tolerance (a slope near zero, flat, counts as linear too)."""
    s1 = (ys[1] - ys[0]) / (xs[1] - xs[0])
    s2 = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    return abs(s1 - s2) <= tolerance * max(abs(s1), abs(s2)) or max(abs(s1), abs(s2)) < 1e-3


def loglog_exponent(xs, ys):
    return slope([math.log(x) for x in xs], [math.log(y) for y in ys])


# ----------------------------------------------------------------------------------------------
# the table


def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if abs(v) >= 100:
        s = "{:,.0f}".format(v)
    elif abs(v) >= 10:
        s = "{:.1f}".format(v)
    else:
        s = "{:.2f}".format(v)
    return s + unit


def row(item, what, ours, theirs, ratio, bar, ok):
    """ok: True (bar met), False (missed), None (no bar: information)."""
    ROWS.append({"item": item, "what": what, "ours": ours, "theirs": theirs, "ratio": ratio,
                 "bar": bar, "ok": ok})
    verdict = {True: "met", False: "MISSED", None: ""}[ok]
    print("  %-44s %16s  vs %-22s %10s  bar %-16s %s" % (what, ours, theirs, ratio, bar, verdict),
          flush=True)


def table_md():
    out = ["| # | measure | OCK | compared with | ratio | bar | |",
           "|---|---|---|---|---|---|---|"]
    for r in ROWS:
        verdict = {True: "met", False: "**missed**", None: ""}[r["ok"]]
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["item"], r["what"], r["ours"], r["theirs"], r["ratio"], r["bar"], verdict))
    return "\n".join(out)


# ----------------------------------------------------------------------------------------------
# the servers


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.bin = os.path.join(self.build, "bin")
        self.work = os.path.join(self.build, "bench", "run")
        os.makedirs(self.work, exist_ok=True)
        self.mock = os.path.join(self.bin, "ock-mock-provider")
        self.ock = os.path.join(self.bin, "ock")
        self.ref = os.path.join(self.bin, "ock-orchestrator")
        self.min_sut = os.path.join(self.build, "bench", "min_sut")
        self.spawn_floor = os.path.join(self.build, "bench", "spawn_floor")
        self.request = os.path.join(BENCH, "request.json")

    def path(self, name):
        return os.path.join(self.work, name)

    # -- the mock ---------------------------------------------------------------------------

    def start_mock(self, fixture, journal=None):
        argv = [self.mock, "--fixture", fixture]
        if journal:
            argv += ["--journal", journal]
        p = PROCS.start(argv, stop_signal=signal.SIGINT, stdout=subprocess.PIPE,
                        stderr=open(self.path("mock.stderr"), "w"))
        ready, _, _ = select.select([p.stdout], [], [], 120)
        line = p.stdout.readline().decode().strip() if ready else ""
        if not line.startswith("http://127.0.0.1:"):
            PROCS.stop(p)
            raise RuntimeError("the mock did not start on %s: %s" % (
                fixture, open(self.path("mock.stderr")).read()[-500:]))
        return p, line

    def fixture(self, name, providers, turns, turn, tools=None, prompts=None, config=None,
                api="openai"):
        """A fixture whose P providers m0..m{P-1} (on wire `api`) each have the same T turns."""
        fx = {"ock_fixture": 1, "id": name, "title": "bench: " + name,
              "proves": "nothing: a benchmark load", "requirements": ["OCK-COMPLETE-001"],
              "session": {"prompts": prompts or ["What is the weather in Paris?"],
                          "providers": [{"name": "m%d" % i, "api": api, "model": "gpt-ock"}
                                        for i in range(providers)]},
              "script": {"m%d" % i: [turn] * turns for i in range(providers)}}
        if tools:
            fx["session"]["tools"] = tools
        if config:
            fx["session"]["config"] = config
        path = self.path(name + ".json")
        with open(path, "w") as f:
            json.dump(fx, f, separators=(",", ":"))
        if os.path.getsize(path) > 16 << 20:
            raise RuntimeError("%s is larger than the 16 MiB ock-mock-provider reads" % path)
        return path

    def sized_fixture(self, name, turn, rate, seconds, api="openai"):
        """A one-provider fixture with enough turns for `seconds` of load at `rate` req/s (an
        upper bound: nginx's rate on this machine), with a 30% margin. Returns (path, turns,
        seconds): when the turns would not fit the 16 MiB ock-mock-provider reads, the fixture is
        the largest that fits and `seconds` is cut to what it can serve."""
        turns = int(rate * seconds * 1.3) + 4000
        path = self.fixture(name + "-probe", 1, 1000, turn, api=api)
        per_turn = os.path.getsize(path) / 1000.0
        os.remove(path)
        fit = int((15.5 * (1 << 20)) / per_turn)
        if turns > fit:
            turns = fit
            seconds = max(1, int((turns - 4000) / (rate * 1.3)))
            NOTES.append("%s: %d turns is the most a 16 MiB fixture holds; at %s req/s that is "
                         "%d s of load" % (name, turns, fmt(rate), seconds))
        return self.fixture(name, 1, turns, turn, api=api), turns, seconds

    # -- wrk ----------------------------------------------------------------------------------

    def wrk(self, url, body, providers, limit, duration, warm=False, bounded=False,
            endpoint=None):
        """One wrk load. `limit` bounds each thread's requests; reaching it is an error (the
        rate would include the idle rest of -d) unless `bounded`, where only the count matters.
        `endpoint`: the wire's path under /p/<provider> (default Chat Completions')."""
        argv = ["wrk", "-t2", "-c16", "-d%ds" % duration, "--latency",
                "-s", os.path.join(BENCH, "wrk_chat.lua"), url, "--", body,
                str(providers), str(limit)] + ([endpoint] if endpoint else [])
        if not warm:
            note_command(argv)
        out = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60).stdout
        m = re.search(r"RESULT (.*)", out)
        if not m:
            raise RuntimeError("wrk printed no RESULT line:\n" + out[-800:])
        r = {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}
        r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
        if not warm and not bounded and r["requests"] >= 2 * limit - 64:
            # A thread that stopped on its count still waits out -d: the rate would be wrong.
            raise RuntimeError("wrk reached its request bound (%d): the fixture is too small for "
                               "this machine; raise the turns" % (2 * limit))
        return r

    # -- nginx ----------------------------------------------------------------------------------

    def start_nginx(self, body, content_type):
        d = self.path("nginx")
        os.makedirs(d, exist_ok=True)
        port = free_port()
        if "'" in body or "\\" in body:
            raise RuntimeError("the static reply must not contain ' or \\ for nginx's return")
        conf = """worker_processes 2;
daemon off;
master_process on;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  keepalive_requests 100000000;
  server {{
    listen 127.0.0.1:{port};
    location / {{
      default_type {ct};
      return 200 '{body}';
    }}
  }}
}}
""".format(d=d, port=port, ct=content_type, body=body)
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write(conf)
        p = PROCS.start([NGINX, "-p", d, "-c", os.path.join(d, "nginx.conf")],
                        stop_signal=signal.SIGQUIT, stdout=subprocess.DEVNULL,
                        stderr=open(os.path.join(d, "stderr"), "w"))
        url = "http://127.0.0.1:%d" % port
        wait_http(url + "/health")
        return p, url

    # -- mock-llm -------------------------------------------------------------------------------

    def start_mock_llm(self, content, chunk_size=50, interval_ms=50,
                       path="/v1/chat/completions"):
        if not os.path.exists(MOCK_LLM_MAIN):
            raise RuntimeError("mock-llm is not installed (bash bench/deps.sh)")
        yaml = ("streaming:\n  chunkSize: %d\n  chunkIntervalMs: %d\nrules:\n"
                "  - path: \"%s\"\n    method: \"POST\"\n    match: \"@\"\n"
                "    response:\n      status: 200\n      content: '%s'\n"
                % (chunk_size, interval_ms, path, content.replace("'", "''")))
        cfg = self.path("mock-llm.yaml")
        with open(cfg, "w") as f:
            f.write(yaml)
        port = free_port()
        env = dict(os.environ, HOST="127.0.0.1", PORT=str(port))
        # mock-llm logs every request on stdout: /dev/null is the cheapest place for it.
        p = PROCS.start(["node", MOCK_LLM_MAIN, "--config", cfg], env=env,
                        stdout=subprocess.DEVNULL, stderr=open(self.path("mock-llm.stderr"), "w"))
        url = "http://127.0.0.1:%d" % port
        wait_http(url + "/health")
        return p, url

    # ==========================================================================================
    # 1. mock provider throughput

    def reply_bytes(self, turn, api="openai", request=None, endpoint="/v1/chat/completions"):
        """The mock's exact reply to a request body (bench/request.json) for one scripted turn."""
        fx = self.fixture("bench-reply", 1, 1, turn, api=api)
        p, url = self.start_mock(fx)
        try:
            req = urllib.request.Request(url + "/p/m0" + endpoint,
                                         data=open(request or self.request, "rb").read(),
                                         headers={"Content-Type": "application/json"})
            return urllib.request.urlopen(req, timeout=10).read().decode()
        finally:
            PROCS.stop(p)

    def item1(self):
        """Item 1 on each wire's request path, each held to the same bars. A path that cannot
        run does not hide the others; the item fails at the end."""
        failed = []
        for label, api, request, endpoint in WIRES:
            try:
                self.item1_wire(label, api, os.path.join(BENCH, request), endpoint)
            except Exception as e:  # noqa: BLE001 (reported, then raised for the item)
                failed.append("%s: %s" % (label, str(e).splitlines()[0] if str(e) else repr(e)))
        if failed:
            raise RuntimeError("; ".join(failed))

    def item1_wire(self, label, api, request, endpoint):
        a = self.args
        chat = api == "openai"
        print("1. mock provider: non-streamed %s request (%s) under wrk -t2 -c16" % (
            label, endpoint), flush=True)
        turn = {"text": "It is 15 degrees in Paris."}
        body = self.reply_bytes(turn, api, request, endpoint)
        # The mock's fixture is sized from this machine's rate: nginx's, an upper bound on the
        # mock's, measured here first (a fixed size ran out on fast machines).
        p, url = self.start_nginx(body, "application/json")
        try:
            self.wrk(url, request, 1, 10 ** 9, 1, warm=True, endpoint=endpoint)
            ceiling = self.wrk(url, request, 1, 10 ** 9, 1, warm=True, endpoint=endpoint)["rps"]
        finally:
            PROCS.stop(p)
        warm_n = 2000
        fx, turns, duration = self.sized_fixture("bench-" + api, turn, ceiling, a.duration, api)
        providers = 1
        limit = (turns - warm_n - 1000) // 2  # per wrk thread; in-flight requests fit the margin

        def load(url, limit, duration, warm=False):
            return self.wrk(url, request, providers, limit, duration, warm=warm, endpoint=endpoint)
        res = {"mock": [], "mock-llm": [], "nginx": []}
        for rnd in range(a.rounds):
            p, url = self.start_mock_llm(body, path=endpoint)
            try:
                load(url, 10 ** 9, 1, warm=True)
                res["mock-llm"].append(load(url, 10 ** 9, duration))
            finally:
                PROCS.stop(p)
            # nginx and the mock are measured in alternating one-second slices, both servers up:
            # the host's load moves the rate by +-15% within seconds, and measured one after the
            # other the two met different hosts.
            journal = self.path("journal-item1.jsonl")
            pn, url_n = self.start_nginx(body, "application/json")
            pm, url_m = None, None
            try:
                pm, url_m = self.start_mock(fx, journal)
                load(url_n, 10 ** 9, 1, warm=True)
                load(url_m, warm_n // 2, 2, warm=True)
                slices = {"nginx": [], "mock": []}
                left = limit
                cpu = 0.0
                for _ in range(duration):
                    # The fixture was sized from nginx's rate at another moment; on a host whose
                    # load moves a lot the mock can outrun it. A slice that could use up the
                    # turns left is not started: the round is measured over fewer slices.
                    if slices["mock"] and left < 0.65 * slices["mock"][-1]["requests"]:
                        NOTES.append("Item 1, %s: round %d measured over %d slices of %d (the "
                                     "fixture's turns ran short)" % (
                                         label, rnd + 1, len(slices["mock"]), duration))
                        break
                    slices["nginx"].append(load(url_n, 10 ** 9, 1))
                    c0 = cpu_s(pm.pid)
                    r = load(url_m, left, 1)
                    cpu += cpu_s(pm.pid) - c0
                    left -= r["requests"] // 2 + 1
                    slices["mock"].append(r)
                r = merge_slices(slices["mock"])
                r["cpu_us"] = cpu * 1e6 / max(r["requests"], 1)
                r["rss_kb"], r["hwm_kb"] = rss_kb(pm.pid)
                res["mock"].append(r)
                res["nginx"].append(merge_slices(slices["nginx"]))
            finally:
                PROCS.stop(pn)
                if pm:
                    PROCS.stop(pm)
                os.path.exists(journal) and os.remove(journal)
            if r["status_errors"]:
                raise RuntimeError("the mock answered %d %s requests with an error status "
                                   "(turns ran out?)" % (r["status_errors"], label))
            print("   round %d: mock %.0f req/s, mock-llm %.0f req/s, nginx %.0f req/s" % (
                rnd + 1, res["mock"][-1]["rps"], res["mock-llm"][-1]["rps"],
                res["nginx"][-1]["rps"]), flush=True)
        med = {k: statistics.median(r["rps"] for r in v) for k, v in res.items()}
        p99 = {k: statistics.median(r["p99_us"] for r in v) / 1000 for k, v in res.items()}
        # Ratios within a round (mock-llm just before the slices of the other two), then their
        # median.
        vs_llm = statistics.median(m["rps"] / o["rps"] for m, o in zip(res["mock"], res["mock-llm"]))
        vs_ngx = statistics.median(m["rps"] / o["rps"] for m, o in zip(res["mock"], res["nginx"]))
        cpu_us = statistics.median(r["cpu_us"] for r in res["mock"])
        if chat:
            self.item1_res = res  # item 6 sizes its loads from the Chat Completions rate
            self.item1_cpu_us = cpu_us
        what = "" if chat else label + ": "
        row(1, what + "mock req/s (journal + history on)", fmt(med["mock"]),
            "mock-llm " + fmt(med["mock-llm"]), fmt(vs_llm, "x"), ">= 10x", vs_llm >= 10)
        row(1, what + "mock req/s vs a static reply", fmt(med["mock"]),
            "nginx " + fmt(med["nginx"]), fmt(vs_ngx, "x"), ">= 0.6x", vs_ngx >= 0.6)
        # p99 against nginx's own p99 in the same rounds: with wrk on the same two cores, an
        # absolute bar measures the machine's load, not the mock.
        p99_ratio = statistics.median(m["p99_us"] / max(o["p99_us"], 1)
                                      for m, o in zip(res["mock"], res["nginx"]))
        row(1, what + "mock p99 latency", fmt(p99["mock"], " ms"),
            "mock-llm %s, nginx %s" % (fmt(p99["mock-llm"], " ms"), fmt(p99["nginx"], " ms")),
            fmt(p99_ratio, "x nginx"), "<= 1.5x nginx", p99_ratio <= 1.5)
        # The mock's own CPU per request in its slices (all threads, user + system): what the
        # host's load moves least, so the paths compare by it.
        base = getattr(self, "item1_cpu_us", None)
        row(1, what + "mock CPU per request", fmt(cpu_us, " us"),
            "-" if chat or not base else "Chat Completions " + fmt(base, " us"),
            "-" if chat or not base else fmt(cpu_us / base, "x"), "(info)", None)
        NOTES.append("Item 1, %s (%s): %d rounds of %d s per server (nginx and the mock in "
                     "alternating 1 s slices); medians, and ratios as the median of each round's "
                     "ratio; mock fixture: %d provider on wire %s, %d turns (each turn answers "
                     "once), reply %d bytes, request bench/%s (%d bytes)." % (
                         label, endpoint, a.rounds, duration, providers, api, turns, len(body),
                         os.path.basename(request), os.path.getsize(request)))

    # ==========================================================================================
    # 2. mock streaming

    def item2(self):
        a = self.args
        print("2. mock provider: a streamed reply of 500 chunks", flush=True)
        chunk, n_chunks = 4, 500
        words = ("It is fifteen degrees in Paris with light rain, so take an umbrella. " * 40)
        text = words[:chunk * n_chunks]
        turn = {"text": text, "chunk_size": chunk}
        req = json.load(open(self.request))
        req["stream"] = True
        body_file = self.path("request-stream.json")
        with open(body_file, "w") as f:
            json.dump(req, f, separators=(",", ":"))
        providers, turns = 1, a.stream_turns
        fx = self.fixture("bench-stream", providers, turns, turn)
        capacity = providers * turns
        limit = (capacity - 200) // 2

        def count_chunks(url):
            r = urllib.request.Request(url + "/p/m0/v1/chat/completions",
                                       data=open(body_file, "rb").read(),
                                       headers={"Content-Type": "application/json"})
            data = urllib.request.urlopen(r, timeout=60).read().decode()
            return sum(1 for ln in data.split("\n") if ln.startswith("data: ") and "[DONE]" not in ln
                       and '"content":"' in ln and '"content":""' not in ln)

        res = {}
        p, url = self.start_mock(fx)
        try:
            got = count_chunks(url)
            res["mock"] = self.wrk(url, body_file, providers, limit, a.duration)
            res["mock"]["chunks"] = got
        finally:
            PROCS.stop(p)
        content = json.dumps({"id": "chatcmpl-bench", "object": "chat.completion",
                              "created": 1700000000, "model": "gpt-ock",
                              "choices": [{"index": 0, "message": {"role": "assistant",
                                                                   "content": text},
                                           "finish_reason": "stop"}]}, separators=(",", ":"))
        p, url = self.start_mock_llm(content, chunk_size=chunk, interval_ms=0)
        try:
            got = count_chunks(url)
            res["mock-llm"] = self.wrk(url, body_file, providers, 10 ** 9, a.duration)
            res["mock-llm"]["chunks"] = got
        finally:
            PROCS.stop(p)
        for k, r in res.items():
            if r["chunks"] != n_chunks:
                raise RuntimeError("%s sent %d text chunks, not %d" % (k, r["chunks"], n_chunks))
            r["cps"] = r["rps"] * r["chunks"]
        m, o = res["mock"], res["mock-llm"]
        row(2, "SSE chunks/s, 16 streams of 500 chunks", fmt(m["cps"]), "mock-llm " + fmt(o["cps"]),
            fmt(m["cps"] / o["cps"], "x"), "(none)", None)
        row(2, "one 500-chunk stream, p50", fmt(m["p50_us"] / 1000, " ms"),
            "mock-llm " + fmt(o["p50_us"] / 1000, " ms"),
            fmt(o["p50_us"] / max(m["p50_us"], 1), "x"), "(none)", None)
        NOTES.append("Item 2: %d-character text, chunk_size %d (mock) and chunkSize %d, "
                     "chunkIntervalMs 0 (mock-llm, which still waits one timer tick per chunk)."
                     % (len(text), chunk, chunk))

    # ==========================================================================================
    # 3. harness overhead

    def item3(self):
        a = self.args
        n = a.repeat
        print("3. harness: %d one-turn scenarios with a minimal SUT; the full suite" % n, flush=True)
        times = self.path("sut-times.txt")
        if os.path.exists(times):
            os.remove(times)
        out = self.path("report-min")
        sut = "%s --times %s" % (shlex.quote(self.min_sut), shlex.quote(times))
        r = run_measured([self.ock, "run", "--orchestrator", sut, "--capabilities", "core",
                          "--fixtures", os.path.join(ROOT, "fixtures"), "--case", "text-answer",
                          "--repeat",
                          str(n), "--jobs", "1", "-o", out])
        if r["rc"] != 0:
            raise RuntimeError("ock run with the minimal SUT exited %d: %s" % (r["rc"],
                                                                              r["stderr"][-500:]))
        sut_us = [int(x) for x in open(times).read().split()]
        if len(sut_us) != n:
            raise RuntimeError("the minimal SUT ran %d times, not %d" % (len(sut_us), n))
        overhead_ms = (r["wall"] * 1e6 - sum(sut_us)) / n / 1000

        fx = os.path.join(ROOT, "fixtures", "text-answer.json")
        p, url = self.start_mock(fx)
        try:
            env = dict(os.environ, OCK_URL=url)
            note_command(["OCK_URL=$URL", self.spawn_floor, str(n), self.min_sut + " --floor"])
            fl = subprocess.run([self.spawn_floor, str(n), "%s --floor" % shlex.quote(self.min_sut)],
                                env=env, capture_output=True, text=True, timeout=300)
            if fl.returncode:
                raise RuntimeError("spawn_floor: " + fl.stderr)
            floor = json.loads(fl.stdout)
        finally:
            PROCS.stop(p)
        floor_ms = floor["median_us"] / 1000
        row(3, "harness's own time per scenario", fmt(overhead_ms, " ms"),
            "floor (spawn + 1 HTTP) " + fmt(floor_ms, " ms"),
            fmt(overhead_ms / floor_ms, "x floor"), "<= 2x floor", overhead_ms <= 2 * floor_ms)
        # Where the time goes: the SUT's exit as the harness sees it, against its last event.
        rep = json.load(open(os.path.join(out, "report.json")))["scenarios"]
        gaps = [x["process"]["wall_ms"] - x["timeline"][-1]["t_ms"] for x in rep if x["timeline"]]
        slow = [g for g in gaps if g >= 10]
        excess = (sum(gaps) - len(gaps) * min(gaps)) / n
        row(3, "  of which: waiting to see the SUT exit", fmt(excess, " ms"),
            "%d of %d scenarios waited >= 10 ms" % (len(slow), len(gaps)), "-", "(info)", None)
        NOTES.append("Item 3: `ock run --repeat %d --jobs 1` on fixtures/text-answer.json took "
                     "%.2f s wall; the minimal SUT's own time (main to exit, summed) %.2f s; "
                     "the floor is the median of %d spawns of `min_sut --floor` through /bin/sh."
                     % (n, r["wall"], sum(sut_us) / 1e6, n))

        caps = subprocess.run([self.ref, "--capabilities"], capture_output=True,
                              text=True).stdout.strip()
        delays, n_fx = scripted_delays(os.path.join(ROOT, "fixtures"))
        # The suite starts the reference once per scenario, and the start of any program that
        # links Debian's libcurl is a floor no SUT written with libcurl goes under (8-10 ms in
        # this VM: 550 page faults loading and relocating 30-odd libraries). It is measured
        # here, in the same run, the same way the harness spawns a SUT, and the bar counts it.
        curl_floor = os.path.join(self.build, "bench", "curl_floor")
        k = min(n, 100)
        note_command([self.spawn_floor, str(k), curl_floor])
        cf = subprocess.run([self.spawn_floor, str(k), shlex.quote(curl_floor)],
                            capture_output=True, text=True, timeout=300)
        if cf.returncode:
            raise RuntimeError("spawn_floor curl_floor: " + cf.stderr)
        start_s = json.loads(cf.stdout)["median_us"] / 1e6
        row(3, "start of a program linking libcurl", fmt(start_s * 1000, " ms"),
            "x %d scenarios: %s" % (n_fx, fmt(start_s * n_fx, " s")), "-", "(info)", None)
        for jobs in (1, 2):
            r = run_measured([self.ock, "run", "--orchestrator", self.ref, "--capabilities", caps,
                              "--name", "ock-orchestrator", "--fixtures",
                              os.path.join(ROOT, "fixtures"), "--jobs", str(jobs), "-o",
                              self.path("report-suite-%d" % jobs)], timeout=900)
            verdict = {0: "pass", 1: "a check failed", 2: "usage error", 3: "incomplete"}.get(
                r["rc"], "exit %d" % r["rc"])
            floor = delays + start_s * n_fx / jobs
            row(3, "full suite (%d scenarios), --jobs %d" % (n_fx, jobs), fmt(r["wall"], " s"),
                "scripted delays %s + starts %s" % (fmt(delays, " s"),
                                                    fmt(start_s * n_fx / jobs, " s")),
                ("+" if r["wall"] >= floor else "-") + fmt(abs(r["wall"] - floor), " s"),
                "<= that + 3 s", r["wall"] <= floor + 3)
            NOTES.append("Item 3: the suite at --jobs %d took %s over its scripted delays alone."
                         % (jobs, ("+" if r["wall"] >= delays else "-")
                            + fmt(abs(r["wall"] - delays), " s")))
            NOTES.append("Item 3: the suite at --jobs %d: verdict %s (exit %d)." % (
                jobs, verdict, r["rc"]))

    # ==========================================================================================
    # 4. ock check

    def item4(self):
        a = self.args
        sizes = [10 ** k for k in range(3, 7)]
        if a.quick:
            sizes = [10 ** k for k in range(3, 6)]
        print("4. ock check on generated logs of %s events" % ", ".join(map(str, sizes)), flush=True)
        res = {}
        for n in sizes:
            log = self.path("events-%d.jsonl" % n)
            events, size = write_event_log(log, n)
            subprocess.run(["cat", log], stdout=subprocess.DEVNULL)  # same page cache for both
            runs = [run_measured([self.ock, "check", "--quiet", log], note=(i == 0))
                    for i in range(3 if n < 10 ** 6 else 1)]
            best = min(runs, key=lambda x: x["wall"])
            if best["rc"] != 0:
                raise RuntimeError("ock check found violations in the generated log: "
                                   + best["stderr"][-300:])
            res[n] = dict(best, events=events, bytes=size)
        big = max(sizes)
        log = self.path("events-%d.jsonl" % big)
        jq = run_measured(["jq", "-c", ".", log])
        if jq["rc"]:
            raise RuntimeError("jq failed: " + jq["stderr"][-300:])
        ev = res[big]["events"]
        ours, theirs = ev / res[big]["wall"], ev / jq["wall"]
        res["jq"] = dict(jq, events=ev)
        self.item4_res = res
        row(4, "ock check events/s (%s events, %d MB)" % (fmt(ev), res[big]["bytes"] // 10 ** 6),
            fmt(ours), "jq -c . " + fmt(theirs), fmt(ours / theirs, "x"), ">= 5x",
            ours / theirs >= 5)
        rss = [res[n]["maxrss_kb"] / 1024 for n in sizes]
        flat = max(rss[1:]) - min(rss[1:])
        row(4, "ock check peak RSS, 10^4 .. 10^%d events" % round(math.log10(big)),
            " .. ".join(fmt(x, "") for x in rss[1:]) + " MB", "jq " + fmt(jq["maxrss_kb"] / 1024,
                                                                          " MB"),
            "-", "< 20 MB, flat", max(rss) < 20 and flat < 2)

    # ==========================================================================================
    # 5. reference orchestrator vs the Python example

    def run_sut(self, argv, turns):
        """One SUT run against a fresh mock with a `turns`-turn tool loop: rusage and checks."""
        tools = [{"name": "get_weather", "description": "Current weather for a city",
                  "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                                   "required": ["city"]}}]
        fx = self.path("bench-loop-%d.json" % turns)
        if not os.path.exists(fx):
            self.fixture("bench-loop-%d" % turns, 1, 0, {}, tools=tools,
                         config={"max_iterations": turns + 1, "parallel_tools": False})
            spec = json.load(open(fx))
            spec["script"] = {"m0": [{"tool_calls": [{"name": "get_weather",
                                                      "arguments": {"city": "Paris"}}]}] * turns
                              + [{"text": "It is 15 degrees in Paris."}]}
            with open(fx, "w") as f:
                json.dump(spec, f)
        journal = self.path("journal-loop.jsonl")
        p, url = self.start_mock(fx, journal)
        try:
            env = dict(os.environ, OCK_URL=url, OCK_SCENARIO="bench-loop-%d" % turns,
                       OPENAI_BASE_URL=url + "/v1", OPENAI_API_KEY="ock-dummy-key",
                       ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="ock-dummy-key")
            r = run_measured(argv, env=env, note=False, timeout=300)
        finally:
            PROCS.stop(p)
        kinds = [json.loads(line).get("kind") for line in open(journal)]
        llm = sum(1 for k in kinds if k == "llm_request")
        if r["rc"] != 0 or llm != turns + 1:
            raise RuntimeError("%s: exit %d, %d LLM requests (want %d): %s" % (
                argv[-1], r["rc"], llm, turns + 1, r["stderr"][-400:]))
        return r

    def item5(self):
        a = self.args
        lo, hi = 10, a.loop_turns
        print("5. reference orchestrator vs the Python example: %d- and %d-turn tool loops" % (
            lo + 1, hi + 1), flush=True)
        adapter = os.path.join(ROOT, "adapters", "python", "ock_adapter.py")
        example = os.path.join(ROOT, "examples", "basic_orchestrator_corrected.py")
        suts = {"ref": [self.ref]}
        if os.path.exists(adapter) and os.path.exists(example):
            suts["python"] = [sys.executable, adapter, example]
        else:
            NOTES.append("Item 5: adapters/python/ock_adapter.py or "
                         "examples/basic_orchestrator_corrected.py is missing: no Python side.")
        # The two sides take turns, run by run: the CPU a context switch costs on this shared
        # host moves within minutes, and measured one after the other they met different hosts.
        for argv in suts.values():
            note_command(["OCK_URL=$URL", "OPENAI_BASE_URL=$URL/v1", "..."] + argv)
        # The RSS floor (bench/curl_floor.c) runs in the same rounds. A program's peak RSS moves
        # by 200-400 KB from run to run with where ASLR puts its libraries, so both sides are
        # the median of the same number of runs (the largest of 9 against the largest of 3
        # made the reference look 0.1-0.2 MB heavier than it is).
        curl_floor = os.path.join(self.build, "bench", "curl_floor")
        note_command([curl_floor])
        runs = {(name, turns): [] for name in suts for turns in (lo, hi)}
        floor_runs = []
        for _ in range(3 * a.rounds):  # short runs: their CPU times are noisy
            for turns in (lo, hi):
                for name, argv in suts.items():
                    runs[(name, turns)].append(self.run_sut(argv, turns))
            floor_runs.append(run_measured([curl_floor], note=False))
        res = {key: {"cpu": statistics.median(x["cpu"] for x in rs),
                     "maxrss_kb": statistics.median(x["maxrss_kb"] for x in rs),
                     "wall": statistics.median(x["wall"] for x in rs)} for key, rs in runs.items()}
        self.item5_res = res

        def per_turn(name):
            a_, b_ = res[(name, lo)], res[(name, hi)]
            marginal = (b_["cpu"] - a_["cpu"]) / (hi - lo)
            return marginal, b_["cpu"] / (hi + 1)

        ref_m, ref_t = per_turn("ref")
        ref_rss = res[("ref", hi)]["maxrss_kb"] / 1024
        if "python" in suts:
            py_m, py_t = per_turn("python")
            row(5, "CPU per LLM turn (marginal, %d..%d turns)" % (lo + 1, hi + 1),
                fmt(ref_m * 1000, " ms"), "Python " + fmt(py_m * 1000, " ms"),
                fmt(py_m / ref_m, "x less"), ">= 10x less", py_m / ref_m >= 10)
            row(5, "CPU per LLM turn (whole run / %d turns)" % (hi + 1), fmt(ref_t * 1000, " ms"),
                "Python " + fmt(py_t * 1000, " ms"), fmt(py_t / ref_t, "x less"), "(info)", None)
            theirs = "Python " + fmt(res[("python", hi)]["maxrss_kb"] / 1024, " MB")
        else:
            row(5, "CPU per LLM turn (marginal)", fmt(ref_m * 1000, " ms"), "Python: missing",
                "-", ">= 10x less", None)
            theirs = "Python: missing"
        row(5, "reference peak RSS (%d turns)" % (hi + 1), fmt(ref_rss, " MB"), theirs, "-",
            "(info)", None)
        # The bar is over the floor: a program that only initialises and cleans up Debian's
        # libcurl (bench/curl_floor.c) already takes more than an absolute 8 MB would leave.
        if any(x["rc"] for x in floor_runs):
            raise RuntimeError("%s failed: %s" % (curl_floor, floor_runs[0]["stderr"][-300:]))
        floor = statistics.median(x["maxrss_kb"] for x in floor_runs) / 1024
        row(5, "reference peak RSS over libcurl's floor", fmt(ref_rss, " MB"),
            "floor: a C program linking Debian's libcurl " + fmt(floor, " MB"),
            "+" + fmt(ref_rss - floor, " MB"), "<= +1 MB", ref_rss - floor <= 1.0)

    # ==========================================================================================
    # 6. scale

    def item6(self):
        a = self.args
        print("6. scale: mock journal, harness, ock check", flush=True)
        turn = {"text": "It is 15 degrees in Paris."}
        # Count-bounded loads of about 20k, 45k and 90k requests (below the journal's cap), each
        # given the time this machine needs for it at the mock's measured rate (a fixed duration
        # ran out of turns on fast machines and measured too few points on slow ones).
        counts = [10000, 20000, 40000] if a.quick else [20000, 45000, 90000]
        turns = counts[-1] + 10000
        fx = self.fixture("bench-scale", 1, turns, turn)
        res1 = getattr(self, "item1_res", None)
        if res1:
            rate = statistics.median(r["rps"] for r in res1["mock"])
        else:
            p, url = self.start_mock(fx)
            try:
                rate = self.wrk(url, self.request, 1, 2500, 1, warm=True)["rps"]
            finally:
                PROCS.stop(p)
        xs, ys = [], []
        for n in counts:
            d = int(math.ceil(n / max(rate, 1.0) * 1.5)) + 1
            p, url = self.start_mock(fx)
            try:
                base, _ = rss_kb(p.pid)
                r = self.wrk(url, self.request, 1, n // 2, d, bounded=True)
                time.sleep(0.2)
                now, _ = rss_kb(p.pid)
            finally:
                PROCS.stop(p)
            if r["status_errors"]:
                raise RuntimeError("the mock ran out of turns at %d requests" % r["requests"])
            if r["requests"] < 95000:
                xs.append(r["requests"])
                ys.append(now - base)
        if len(xs) < 2:
            raise RuntimeError("too few points under the journal cap")
        per_req = slope(xs, ys)
        row(6, "mock memory per request (journal on)", fmt(per_req, " KB"),
            "%s requests: +%s MB" % (fmt(xs[-1]), fmt(ys[-1] / 1024)), "-", "linear",
            linear(xs, ys))
        NOTES.append("Item 6: mock memory per request is the slope of the mock's resident memory "
                     "over the requests it served (%s), below its journal caps (200,000 entries, "
                     "512 MiB of journal lines)." % ", ".join(fmt(x) for x in xs))

        times = self.path("sut-times-6.txt")
        sut = "%s --times %s" % (shlex.quote(self.min_sut), shlex.quote(times))
        ns = [10, 100, 1000] if not a.quick else [10, 100, 300]
        rss = []
        for n in ns:
            r = run_measured([self.ock, "run", "--orchestrator", sut, "--capabilities", "core",
                              "--fixtures", os.path.join(ROOT, "fixtures"), "--case", "text-answer",
                              "--repeat", str(n), "--jobs", "2", "-o", self.path("report-6")],
                             timeout=900)
            if r["rc"]:
                raise RuntimeError("ock run --repeat %d exited %d" % (n, r["rc"]))
            rss.append(r["maxrss_kb"])
        s = slope(ns, rss)
        row(6, "harness peak RSS per scenario", fmt(s, " KB"),
            "%s scenarios: %s MB" % (ns[-1], fmt(rss[-1] / 1024)),
            fmt(s * 1000 / 1024, " MB/1000"), "linear", linear(ns, rss))

        res = getattr(self, "item4_res", None)
        if res:
            sizes = sorted(k for k in res if isinstance(k, int))
            big = [n for n in sizes if n >= 10 ** 4]
            e = loglog_exponent([res[n]["events"] for n in big], [res[n]["wall"] for n in big])
            ms = slope([res[n]["events"] for n in big], [res[n]["maxrss_kb"] for n in big])
            walls = ", ".join("10^%d: %s" % (round(math.log10(n)), fmt(res[n]["wall"] * 1000, " ms"))
                              for n in sizes)
            row(6, "ock check time growth, 10^4..10^%d" % round(math.log10(sizes[-1])),
                "t ~ n^%.2f" % e, walls, "%s us/event" % fmt(
                    res[sizes[-1]]["wall"] / res[sizes[-1]]["events"] * 1e6), "linear (exp. ~1)",
                e < 1.15)
            row(6, "ock check memory growth", fmt(ms * 1000, " B/1000 ev"),
                "%s MB at 10^%d" % (fmt(res[sizes[-1]]["maxrss_kb"] / 1024),
                                    round(math.log10(sizes[-1]))), "-", "flat", ms * 1000 < 100)


# ----------------------------------------------------------------------------------------------
# data


RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
CANCEL_HOLD_MS = 200  # mock-provider/state.h MOCK_CANCEL_HOLD_MS, SPEC.md 8.7


def fixture_delay_ms(fx):
    """Milliseconds one scenario must wait by its fixture, as a lower bound: turn delay_ms (up
    to request_timeout_ms); chunk_delay_ms between the chunks of a streamed turn; tool delays
    (up to tool_timeout_ms), the longest of a response's calls when they run in parallel, their
    sum otherwise; before each retry of a faulted turn under error_strategy retry or fallback,
    the scripted Retry-After or else the mean of the backoff SPEC.md 5.7 makes every SUT draw
    (d0 with uniform jitter, clamped to the cap). A scenario with cancel triggers counts only
    the 200 ms hold of SPEC.md 8.7 for each trigger on an event: the SUT waits for that reply to
    its own event; its other waits are cut short by the cancellation, and it abandons the LLM or
    tool reply the mock holds back."""
    cancels = fx.get("cancel")
    if cancels:
        cancels = cancels if isinstance(cancels, list) else [cancels]
        return float(CANCEL_HOLD_MS * sum(c.get("at") in ("event", "after_execute")
                                          for c in cancels))
    cfg = fx.get("session", {}).get("config", {})
    streaming = cfg.get("streaming", False)
    parallel = cfg.get("parallel_tools", True)
    strategy = cfg.get("error_strategy", "continue")
    base, cap = cfg.get("retry_base_delay_ms", 1000), cfg.get("retry_max_delay_ms", 60000)
    jitter, budget = cfg.get("retry_jitter", 0.1), cfg.get("max_retries", 2)
    tool_timeout = cfg.get("tool_timeout_ms", 30000)
    request_timeout = cfg.get("request_timeout_ms", 60000)
    tools = fx.get("tools", {})
    called = {}  # tool name -> calls so far

    def tool_wait(name):
        i = called.get(name, 0)
        called[name] = i + 1
        tool = tools.get(name, {})
        calls = tool.get("calls", [])
        return min((calls[i] if i < len(calls) else {}).get("delay_ms", tool.get("delay_ms", 0)),
                   tool_timeout)

    ms = 0.0
    for turns in fx.get("script", {}).values():
        n = 0  # retries so far in the current turn of this provider
        for t in turns:
            ms += min(t.get("delay_ms", 0), request_timeout)
            if streaming and t.get("chunk_delay_ms"):
                size = max(1, t.get("chunk_size", 8))
                chunks = math.ceil(len(t.get("text", "")) / size) + 2
                for c in t.get("tool_calls", []):
                    chunks += 1 + math.ceil(len(json.dumps(c.get("arguments", {}))) / size)
                after = t.get("fault", {}).get("after_chunks")
                if after is not None:
                    chunks = min(chunks, after)
                ms += t["chunk_delay_ms"] * max(0, chunks - 1)
            fault = t.get("fault")
            if not fault:
                waits = [tool_wait(c["name"]) for c in t.get("tool_calls", []) if c["name"] in tools]
                ms += (max(waits) if parallel else sum(waits)) if waits else 0
                n = 0
                continue
            kind = fault.get("kind", "status")
            retryable = (fault.get("status") in RETRYABLE_STATUS if kind == "status"
                         else kind != "malformed_chunk" or streaming)
            if strategy not in ("retry", "fallback") or not retryable or n >= budget:
                n = 0
                continue
            n += 1
            if "retry_after_ms" in fault or "retry_after" in fault:
                ms += min(fault.get("retry_after_ms", fault.get("retry_after", 0) * 1000), cap)
            else:
                ms += mean_backoff_ms(min(base * 2 ** (n - 1), cap), jitter, cap)
    return ms


def mean_backoff_ms(d0, jitter, cap):
    """The mean of clamp(d0 + uniform(-jitter * d0, +jitter * d0), 0, cap) (SPEC.md 5.7)."""
    lo, hi = max(0.0, d0 * (1 - jitter)), d0 * (1 + jitter)
    if hi <= cap or hi == lo:
        return min(d0, cap)
    if lo >= cap:
        return float(cap)
    below = (cap * cap - lo * lo) / 2  # the part of the range under the cap, integrated
    return (below + cap * (hi - cap)) / (hi - lo)


def scripted_delays(fixtures_dir):
    """(seconds of scripted waiting summed over the suite, number of scenarios)."""
    total, n = 0.0, 0
    for name in sorted(os.listdir(fixtures_dir)):
        if name.endswith(".json"):
            n += 1
            total += fixture_delay_ms(json.load(open(os.path.join(fixtures_dir, name)))) / 1000
    return total, n


def write_event_log(path, n):
    """A legal log of about n events (whole executes of 9 events: one tool round, then the
    answer), about 190 bytes an event. Returns (events, bytes)."""
    tmpl = [
        ('prompt:submit', '{"prompt":"What is the weather in Paris today, and should I take an umbrella? (%(i)d)",%(tr)s,"stage":"initialize"}'),
        ('provider:request', '{"provider":"primary","model":"gpt-ock","iteration":1,"attempt":1,%(tr)s,"stage":"plan"}'),
        ('provider:response', '{"provider":"primary","iteration":1,"content":"","tool_calls":[{"id":"call_%(i)08x_1_0","name":"get_weather","arguments":{"city":"Paris"}}],"finish_reason":"tool_calls","usage":{"input_tokens":21,"output_tokens":9},%(tr)s,"stage":"plan"}'),
        ('tool:pre', '{"tool_call_id":"call_%(i)08x_1_0","tool_name":"get_weather","tool_input":{"city":"Paris"},"parallel_group_id":"pg-%(i)d",%(tr)s,"stage":"execute"}'),
        ('tool:post', '{"tool_call_id":"call_%(i)08x_1_0","tool_name":"get_weather","result":{"success":true,"output":"15 degrees","error":null},"tool_input":{"city":"Paris"},"parallel_group_id":"pg-%(i)d",%(tr)s,"stage":"execute"}'),
        ('provider:request', '{"provider":"primary","model":"gpt-ock","iteration":2,"attempt":1,%(tr)s,"stage":"plan"}'),
        ('provider:response', '{"provider":"primary","iteration":2,"content":"It is 15 degrees in Paris with light rain: take an umbrella.","tool_calls":[],"finish_reason":"stop","usage":{"input_tokens":52,"output_tokens":7},%(tr)s,"stage":"plan"}'),
        ('prompt:complete', '{"response":"It is 15 degrees in Paris with light rain: take an umbrella.",%(tr)s,"stage":"aggregate"}'),
        ('orchestrator:complete', '{"orchestrator":"bench-orchestrator","turn_count":2,"status":"success",%(tr)s,"stage":"complete"}'),
    ]
    block = "".join('{"event":"%s","data":%s}\n' % (e, d) for e, d in tmpl)
    executes = max(1, round(n / len(tmpl)))
    with open(path, "w") as f:
        for i in range(executes):
            f.write(block % {"i": i, "tr": '"trace_id":"ock-c273e4a5"'})
    return executes * len(tmpl), os.path.getsize(path)


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) // 1024 // 1024
    debian = open("/etc/debian_version").read().strip() if os.path.exists(
        "/etc/debian_version") else "?"

    def version(argv):
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            return (r.stdout + r.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "missing"

    load = os.getloadavg()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    pkg = os.path.join(os.path.dirname(os.path.dirname(MOCK_LLM_MAIN)), "package.json")
    mock_llm = json.load(open(pkg))["version"] if os.path.exists(pkg) else "missing"
    return [
        "%s, %d CPUs, %d GiB, Linux %s, Debian %s; load average before the run %.2f %.2f %.2f" % (
            cpu, os.cpu_count(), mem, platform.release(), debian, *load),
        "commit %s%s; %s; nginx %s; node %s, @dwmkerr/mock-llm %s; %s; Python %s" % (
            commit or "?", " (with local changes)" if dirty else "",
            version(["wrk", "-v"]).split(" [")[0], version([NGINX, "-v"]).split("/")[-1],
            version(["node", "--version"]), mock_llm, version(["jq", "--version"]),
            platform.python_version()),
    ]


def dedupe(lines):
    """Each distinct line once, in first-seen order, with how many times it ran."""
    counts = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    return [line + ("    # x%d" % n if n > 1 else "") for line, n in counts.items()]


def write_results(path, text):
    begin, end = "<!-- bench:generated:begin -->", "<!-- bench:generated:end -->"
    old = open(path).read() if os.path.exists(path) else begin + "\n" + end + "\n"
    if begin not in old or end not in old:
        old = old.rstrip("\n") + "\n\n" + begin + "\n" + end + "\n"
    head, rest = old.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text.rstrip("\n") + "\n" + end + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", default="1,2,3,4,5,6", help="items to run, e.g. 1,4")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, one round")
    ap.add_argument("--no-write", action="store_true", help="do not rewrite bench/RESULTS.md")
    ap.add_argument("--results", default=os.path.join(BENCH, "RESULTS.md"))
    args = ap.parse_args()
    args.rounds = 1 if args.quick else 3
    args.duration = 2 if args.quick else 5
    args.stream_turns = 2000 if args.quick else 6000
    args.repeat = 50 if args.quick else 200
    args.loop_turns = 30 if args.quick else 60
    items = [int(x) for x in args.only.split(",") if x.strip()]

    b = Bench(args)
    global MEASURE, MEASURE_DIR
    MEASURE_DIR = os.path.join(b.build, "bench")
    MEASURE = os.path.join(MEASURE_DIR, "measure")
    for tool in (b.mock, b.ock, b.ref, b.min_sut, b.spawn_floor, MEASURE):
        if not os.access(tool, os.X_OK):
            sys.exit("bench: %s is missing: run `make bench` (it builds everything first)" % tool)
    info = machine()
    started = datetime.datetime.now(datetime.timezone.utc)
    print("OCK bench, %s\n%s" % (started.strftime("%Y-%m-%d %H:%M UTC"), "\n".join(info)))
    failed = []
    for i in items:
        t_item = time.monotonic()
        try:
            getattr(b, "item%d" % i)()
            print("   (item %d took %.0f s)" % (i, time.monotonic() - t_item), flush=True)
        except Exception as e:  # one broken item must not hide the others
            failed.append(i)
            row(i, "could not run", str(e).splitlines()[0][:120] if str(e) else repr(e), "-", "-",
                "-", False)
    took = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
    table = table_md()
    print("\n" + table + "\n")
    for n in NOTES:
        print("- " + n)
    text = "\n".join([
        "Run of %s (%d s), `make bench%s`:" % (started.strftime("%Y-%m-%d %H:%M UTC"), took,
                                               " BENCH_FLAGS=\"%s\"" % " ".join(sys.argv[3:])
                                               if len(sys.argv) > 3 else ""),
        "", "- machine: " + info[0], "- software: " + info[1], "", table, ""]
        + ["- " + n for n in NOTES]
        + ["", "<details><summary>the exact commands measured ($URL: the server under test; "
           "each mock, nginx and mock-llm on its own free port)</summary>", "", "```"]
        + dedupe(COMMANDS) + ["```", "", "</details>"])
    with open(os.path.join(b.build, "bench", "results.json"), "w") as f:
        json.dump({"rows": ROWS, "notes": NOTES, "commands": COMMANDS, "machine": info}, f,
                  indent=1)
    if not args.no_write and set(items) == {1, 2, 3, 4, 5, 6} and not args.quick:
        write_results(args.results, text)
        print("bench: wrote the table into %s" % os.path.relpath(args.results))
    if failed:
        sys.exit("bench: item(s) %s could not run" % ",".join(map(str, failed)))
    missed = ["%s. %s" % (r["item"], r["what"]) for r in ROWS if r["ok"] is False]
    if missed:  # a bar missed fails the run, so a regression cannot pass unseen
        sys.exit("bench: bar(s) missed: %s" % "; ".join(missed))


if __name__ == "__main__":
    main()
