#!/usr/bin/env python3
"""Measures `formatscope listen` with the recorded AgentScope exports of
tests/listen/captures/ (stdlib only) and prints a table:

1. Throughput: v1_hub's 9 exports (8 calls) posted in order R times over one
   keep-alive HTTP/1.1 connection; calls/s = calls / (first post -> last call
   line on stdout), and listen's CPU per call. Baseline from the same run:
   the same posts to tests/listen/capture_otlp.py (a Python receiver that
   only saves bodies), its exports/s (first post -> last 200) x 8/9.
2. Delay from the chat export's 200 to its session file (polled every 1 ms):
   v1_tools 001.bin then 002.bin, N times re-posted to one listen process
   (warm) and N times on a fresh process each (cold).
3. listen's VmRSS/VmHWM at start and after 10,000 calls, the exports flooded
   (posted as fast as answered) and paced (at most a round ahead).
4. VmRSS/VmHWM of the workbench (tmux 120x40) opened on the folder of those
   10,000 files, beside the same on a folder holding one of them.

    CARGO_TARGET_DIR=/tmp/fs-release cargo build --release
    python3 scripts/listen-measure.py [--bin /tmp/fs-release/release/formatscope]
        [--reps 250] [--trials 50] [--calls 10000]

On a shared machine compare a figure only with its baseline from the same
run; the load average is printed before and after.
"""
import argparse, http.client, os, re, shutil, signal, statistics, subprocess
import sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPS = os.path.join(ROOT, "tests", "listen", "captures")
CALL = re.compile(rb"^\d\d:\d\d:\d\d  #\d+  ")
HEADERS = {"Content-Type": "application/x-protobuf"}


def exports(scenario):
    d = os.path.join(CAPS, scenario)
    return [open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d)) if f.endswith(".bin")]


def status(pid):
    """VmRSS and VmHWM of pid, in KiB."""
    return {l.split(":")[0]: int(l.split()[1]) for l in open(f"/proc/{pid}/status")
            if l.startswith(("VmRSS", "VmHWM"))}


def cpu(pid):
    """User + system CPU seconds of pid so far."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


STARTED = []  # every receiver this script starts, stopped at exit


class Receiver:
    """A receiver process whose first stdout line holds its port; posts over
    one keep-alive HTTP/1.1 connection."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        STARTED.append(self.proc)
        first = self.proc.stdout.readline().decode()
        m = re.search(r"(?:127\.0\.0\.1:)?(\d+)", first)
        if not m:
            raise SystemExit(f"{argv[0]} said {first!r}: {self.proc.stderr.read().decode()}")
        self.conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)))
        self.refused = 0

    def post(self, body):
        self.conn.request("POST", "/v1/traces", body, HEADERS)
        r = self.conn.getresponse()
        r.read()
        self.refused += r.status != 200

    def post_all(self, bodies, reps, pace=None):
        """Posts bodies in order, reps times; seconds taken. With pace (calls a
        round), each round first waits until listen is at most a round behind."""
        t0 = time.monotonic()
        for r in range(reps):
            while pace and len(self.calls) < pace * (r - 1):
                time.sleep(0.001)
            for body in bodies:
                self.post(body)
        return time.monotonic() - t0

    def stop(self):
        self.conn.close()
        self.proc.send_signal(signal.SIGINT)
        rc = self.proc.wait(30)
        time.sleep(0.05)  # the last lines
        return rc


class Listen(Receiver):
    """`formatscope listen --port 0 --dir D`, its call lines timestamped."""

    def __init__(self, binary, folder):
        super().__init__([binary, "listen", "--port", "0", "--dir", folder])
        self.proc.stdout.readline()  # sessions go to D
        self.calls, self.errors = [], []  # call lines' arrival times; stderr
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.errors.extend(l.decode(errors="replace").rstrip()
                                                           for l in self.proc.stderr), daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            if CALL.match(line):
                self.calls.append(time.monotonic())

    def wait_calls(self, n, timeout=600):
        end = time.monotonic() + timeout
        while len(self.calls) < n and time.monotonic() < end:
            time.sleep(0.005)

    def check(self, what, n, notes):
        """Stops it and notes anything odd: refusals, stderr, exit, call count."""
        rc = self.stop()
        if rc or self.refused or self.errors or len(self.calls) != n:
            notes.append(f"{what}: exit {rc}, refused {self.refused}, {len(self.calls)} call lines "
                         f"for {n} calls, stderr {self.errors[:3]}")


def throughput(binary, reps, tmp, notes):
    hub, n = exports("v1_hub"), 8 * reps
    lst = Listen(binary, os.path.join(tmp, "tput"))
    c0, t0 = cpu(lst.proc.pid), time.monotonic()
    posted = lst.post_all(hub, reps)
    lst.wait_calls(n)
    fs, ms = len(lst.calls) / (lst.calls[-1] - t0), (cpu(lst.proc.pid) - c0) / n * 1000
    lst.check("throughput", n, notes)
    # The baseline receiver, same posts.
    py = Receiver([sys.executable, os.path.join(ROOT, "tests", "listen", "capture_otlp.py"),
                   "--out", os.path.join(tmp, "py-out")])
    c0 = cpu(py.proc.pid)
    py_s = py.post_all(hub, reps)
    py_ms = (cpu(py.proc.pid) - c0) / n * 1000
    py.stop()
    if py.refused:
        notes.append(f"throughput: the Python receiver refused {py.refused}")
    py_calls = 9 * reps / py_s * 8 / 9
    return [("throughput: formatscope listen",
             f"{fs:,.0f} calls/s  CPU {ms:.2f} ms/call  ({n} calls; posting took {posted:.2f} s)"),
            ("throughput: capture_otlp.py (baseline)",
             f"{py_calls:,.0f} calls/s  CPU {py_ms:.2f} ms/call  ({9 * reps / py_s:,.0f} exports/s)"),
            ("throughput: ratio listen / baseline", f"{fs / py_calls:.2f}x")]


def sessions(folder):
    """Session files in folder (listen makes it just after saying where it is)."""
    names = os.listdir(folder) if os.path.isdir(folder) else []
    return sum(1 for f in names if f.endswith(".json") and not f.startswith("."))


def one_delay(lst, folder, fmt, chat, notes):
    """Posts fmt then chat; seconds from chat's 200 to a new session file."""
    before = sessions(folder)
    lst.post(fmt)
    lst.post(chat)
    t = time.monotonic()
    while sessions(folder) <= before:
        if time.monotonic() - t > 10:
            notes.append("delay: no file within 10 s")
            return None
        time.sleep(0.001)
    return time.monotonic() - t


def delays(binary, trials, tmp, notes):
    fmt, chat = exports("v1_tools")[:2]
    rows = []
    warm_dir = os.path.join(tmp, "delay-warm")
    lst = Listen(binary, warm_dir)
    one_delay(lst, warm_dir, fmt, chat, notes)  # the first call: cold
    warm = [one_delay(lst, warm_dir, fmt, chat, notes) for _ in range(trials)]
    # 002.bin also holds the next call's format span, whose chat never comes:
    # listen writes those at SIGINT, one a round.
    lst.check("delay, warm", 2 * (trials + 1), notes)
    cold = []
    for i in range(trials):
        d = os.path.join(tmp, f"delay-cold-{i}")
        lst = Listen(binary, d)
        cold.append(one_delay(lst, d, fmt, chat, notes))
        lst.check("delay, cold", 2, notes)
    for name, xs in (("warm", warm), ("cold", cold)):
        xs = sorted(x * 1000 for x in xs if x is not None)
        p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
        rows.append((f"delay 200 -> file, {name} (ms)",
                     f"median {statistics.median(xs):.1f}  p95 {p95:.1f}  max {xs[-1]:.1f}  (n={len(xs)})"))
    return rows


def listen_memory(binary, calls, folder, paced, notes):
    """Flooded: exports posted as fast as they are answered (listen answers
    at once and queues them). Paced: at most a round (8 calls) ahead."""
    hub, how = exports("v1_hub"), "paced" if paced else "flooded"
    lst = Listen(binary, folder)
    time.sleep(0.2)
    idle = status(lst.proc.pid)
    t0 = time.monotonic()
    posted = lst.post_all(hub, calls // 8, 8 if paced else None)
    lst.wait_calls(calls)
    rate = len(lst.calls) / (lst.calls[-1] - t0)
    time.sleep(0.5)
    full = status(lst.proc.pid)
    lst.check(f"memory, {how}", calls, notes)
    if sessions(folder) != calls:
        notes.append(f"memory, {how}: {sessions(folder)} session files for {calls} calls")
    return [(f"listen RSS at start, {how} run (KiB)", f"VmRSS {idle['VmRSS']:,}  VmHWM {idle['VmHWM']:,}"),
            (f"listen RSS after {calls:,} calls, {how}", f"VmRSS {full['VmRSS']:,}  VmHWM {full['VmHWM']:,}  "
             f"({rate:,.0f} calls/s; posting took {posted:.1f} s)")]


def workbench(binary, folder, tag, notes, settle=2.0):
    """Opens the workbench on folder in tmux; (seconds until its status line
    says the first file is loaded, VmRSS/VmHWM after settle more seconds)."""
    sock = os.path.join(tempfile.gettempdir(), f"lm{os.getpid()}-{tag}.sock")
    cmd = f"{binary} {folder}"
    tm = ["tmux", "-S", sock]
    state = os.path.join(os.path.dirname(folder), "state")  # keep the user's recents clean
    t0 = time.monotonic()
    subprocess.run(tm + ["new-session", "-d", "-x", "120", "-y", "40", "-e", f"XDG_STATE_HOME={state}", cmd],
                   check=True)
    shown, pid, screen = None, None, ""
    loaded = "loaded " + sorted(f for f in os.listdir(folder) if f.endswith(".json"))[0]
    try:
        while time.monotonic() - t0 < 60:
            screen = subprocess.run(tm + ["capture-pane", "-p"], capture_output=True, text=True).stdout
            if pid is None:
                p = subprocess.run(["pgrep", "-f", "-x", cmd], capture_output=True, text=True).stdout.split()
                pid = p[0] if p else None
            if shown is None and loaded in screen:
                shown = time.monotonic() - t0
            if shown is not None and time.monotonic() - t0 > shown + settle:
                break
            time.sleep(0.05)
        mem = status(pid) if pid else {"VmRSS": 0, "VmHWM": 0}
    finally:
        subprocess.run(tm + ["kill-server"], stderr=subprocess.DEVNULL)
        if os.path.exists(sock):
            os.remove(sock)
    if shown is None:
        notes.append(f"workbench on {folder}: the session never showed; screen:\n{screen}")
    return shown, mem


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="/tmp/fs-release/release/formatscope")
    ap.add_argument("--reps", type=int, default=250, help="v1_hub rounds for throughput (8 calls each)")
    ap.add_argument("--trials", type=int, default=50, help="delay trials, warm and cold each")
    ap.add_argument("--calls", type=int, default=10000, help="calls for the memory runs")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    tmp = tempfile.mkdtemp(prefix="listen-measure-")
    notes, rows = [], []
    load0 = os.getloadavg()
    try:
        rows += throughput(binary, a.reps, tmp, notes)
        rows += delays(binary, a.trials, tmp, notes)
        big = os.path.join(tmp, "calls")
        rows += listen_memory(binary, a.calls, big, False, notes)
        rows += listen_memory(binary, a.calls, os.path.join(tmp, "paced"), True, notes)
        one = os.path.join(tmp, "one")
        os.makedirs(one)
        f = sorted(x for x in os.listdir(big) if x.endswith(".json"))[0]
        shutil.copy(os.path.join(big, f), one)
        for name, folder in (("1 file (baseline)", one), (f"{sessions(big):,} files", big)):
            shown, mem = workbench(binary, folder, len(rows), notes)
            t = f"{shown:.2f} s" if shown is not None else "never"
            rows.append((f"workbench on {name} (KiB)",
                         f"VmRSS {mem['VmRSS']:,}  VmHWM {mem['VmHWM']:,}  (session shown after {t})"))
    finally:
        for p in STARTED:
            if p.poll() is None:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    w = max(len(r[0]) for r in rows)
    print(f"load average before {load0[0]:.2f}, after {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    for k, v in rows:
        print(f"{k:<{w}}  {v}")
    for n in notes:
        print("note:", n)


if __name__ == "__main__":
    main()
