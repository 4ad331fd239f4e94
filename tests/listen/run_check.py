#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""End-to-end check of `formatscope listen` against real AgentScope agents
(standard library only).

    python3 tests/listen/run_check.py --formatscope target/debug/formatscope \\
        --python-v1 "$(bash tests/listen/setup.sh v1)" \\
        --python-v2 "$(bash tests/listen/setup.sh v2)" [--scenarios v1_tools,v2_off] [--keep DIR]

For every scenario: starts fake_provider.py (recording every request body),
starts `BIN listen --port 0 --dir D` (its first stdout line must be
`listening on http://127.0.0.1:PORT/v1/traces`, then one line per call),
runs the scenario's agent with tracing pointed at it, waits until listen has
printed one line per provider request (or --timeout), sends SIGINT to listen
and waits for it to exit. Then every session written to D (sorted by name,
i.e. call order) is rebuilt with `BIN request FILE --as json`
(`--agentscope 2.0.11` for 2.x sessions) and compared with the body the
provider received for that call: byte-equal after stripping one trailing
newline from the CLI's output. One line per call; exit 1 on any mismatch or
missing session. v2_on's requests carry a runtime-state reminder the trace
lacks: they are expected to differ, and each session must say so.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (python key, script, extra args, extra env, expect byte-equal rebuild)
SCENARIOS = {
    "v1_tools": ("v1", "agent_v1_tools.py", [], {}, True),
    "v1_hub": ("v1", "agent_v1_hub.py", [], {}, True),
    "v1_anthropic": ("v1", "agent_v1_anthropic.py", [], {}, True),
    "v1_anthropic_gzip": ("v1", "agent_v1_anthropic.py", [], {"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}, True),
    "v1_dashscope": ("v1", "agent_v1_dashscope.py", [], {}, True),
    "v2_off": ("v2", "agent_v2.py", ["--inject-state", "off"], {}, True),
    "v2_on": ("v2", "agent_v2.py", ["--inject-state", "on"], {}, False),
}
DEFAULT = list(SCENARIOS)

# The key every agent script gives its model (see agent_*.py).
AGENT_KEY = b"sk-listen-secret-7f3a"

LISTEN_RE = re.compile(r"listening on http://127\.0\.0\.1:(\d+)(/v1/traces)?")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# A call's line: `18:40:02  #7  1.0.21  ...`.
CALL_RE = re.compile(r"^\d\d:\d\d:\d\d  #\d+  ")


class Lines:
    """Collects a process's stdout lines on a thread."""

    def __init__(self, proc: subprocess.Popen, tag: str, echo: bool):
        self.lines: list[str] = []
        self.times: list[float] = []
        self.cond = threading.Condition()
        self.closed = False
        self.thread = threading.Thread(target=self._run, args=(proc, tag, echo), daemon=True)
        self.thread.start()

    def _run(self, proc, tag, echo):
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if echo:
                log(f"  [{tag}] {line}")
            with self.cond:
                self.lines.append(line)
                self.times.append(time.time())
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def calls(self) -> int:
        return sum(1 for line in self.lines if CALL_RE.search(line))

    def wait_calls(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.calls() < count and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return self.calls() >= count

    def wait_for(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.lines) < count and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return len(self.lines) >= count


def start_fake_provider(record: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        # Each reply is slowed (per chunk): the agent runs for seconds, long enough
        # for the exporter (OTEL_BSP_SCHEDULE_DELAY=200) to send calls
        # before its last one.
        [sys.executable, os.path.join(HERE, "fake_provider.py"), "--record", record, "--delay", "0.15"],
        stdout=subprocess.PIPE,
    )
    line = proc.stdout.readline().decode().strip()
    if not line.isdigit():
        proc.kill()
        raise RuntimeError(f"fake_provider.py printed {line!r} instead of a port")
    return proc, int(line)


def stop(proc: subprocess.Popen, sig=signal.SIGINT, timeout: float = 15.0) -> int | None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"  process {proc.pid} did not stop {timeout:.0f} s after {sig.name}; killing it")
            proc.kill()
            proc.wait()
    return proc.returncode


def provider_bodies(record: str) -> list[tuple[str, bytes]]:
    out = []
    index = os.path.join(record, "index.jsonl")
    if not os.path.exists(index):
        return out
    with open(index, encoding="utf-8") as fh:
        for line in fh:
            entry = json.loads(line)
            with open(os.path.join(record, entry["file"]), "rb") as body:
                out.append((entry["file"], body.read()))
    return out


def tail(path: str, n: int = 1500) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read()[-n:].decode("utf-8", "replace").strip()
    except OSError:
        return ""


def first_difference(a: bytes, b: bytes) -> str:
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, n - 60)
    return (
        f"first difference at byte {n} (lengths {len(a)} vs {len(b)}):\n"
        f"      got:      {a[lo:n + 60]!r}\n"
        f"      expected: {b[lo:n + 60]!r}"
    )


def run_scenario(name: str, args, work: str) -> tuple[int, int, int]:
    """Returns (calls, exact matches, failures)."""
    pykey, script, extra, env_extra, expect_exact = SCENARIOS[name]
    python = args.python_v1 if pykey == "v1" else args.python_v2
    sdir = os.path.join(work, name)
    record = os.path.join(sdir, "provider")
    sessions = os.path.join(sdir, "sessions")
    os.makedirs(sessions, exist_ok=True)
    log(f"== {name}: {os.path.basename(python)} {script} {' '.join(extra)}".rstrip())

    fake, fport = start_fake_provider(record)
    listen = None
    failures = 0
    try:
        listen = subprocess.Popen(
            [args.formatscope, "listen", "--port", "0", "--dir", sessions],
            stdout=subprocess.PIPE,
            stderr=open(os.path.join(sdir, "listen.stderr"), "wb"),
        )
        lines = Lines(listen, "listen", args.verbose)
        lines.wait_for(1, args.timeout)
        first = lines.lines[0] if lines.lines else ""
        m = LISTEN_RE.search(first)
        if not m:
            stop(listen, signal.SIGKILL, 5)
            log(f"  FAIL: listen's first line is {first!r}, expected 'listening on http://127.0.0.1:PORT/v1/traces'; "
                f"listen stderr:\n{tail(os.path.join(sdir, 'listen.stderr'))}")
            return 0, 0, 1
        lport = int(m.group(1))

        env = dict(os.environ)
        env.update(env_extra)
        env.setdefault("OTEL_BSP_SCHEDULE_DELAY", "200")
        agent = subprocess.Popen(
            [
                python,
                os.path.join(HERE, script),
                "--provider-url",
                f"http://127.0.0.1:{fport}",
                "--otlp",
                f"http://127.0.0.1:{lport}/v1/traces",
                *extra,
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _, agent_err = agent.communicate(timeout=args.timeout * 4)
        if agent.returncode != 0:
            log(f"  FAIL: the agent exited {agent.returncode}:\n{agent_err.decode('utf-8', 'replace')[-3000:]}")
            failures += 1
        # Live: the first call is written before the agent's last request
        # reaches the provider (not at its exit, when the exporter flushes).
        last_request = max((os.path.getmtime(os.path.join(record, f)) for f in os.listdir(record)
                            if f.endswith(".json")), default=0.0)
        with lines.cond:
            live = sum(1 for line, t in zip(lines.lines, lines.times)
                       if t < last_request and CALL_RE.search(line))
        if live == 0:
            log("  FAIL: no call line arrived before the agent's last request")
            failures += 1
        else:
            log(f"  {live} call line(s) arrived before the agent's last request")
        bodies = provider_bodies(record)
        if not lines.wait_calls(len(bodies), args.timeout):
            log(f"  note: listen printed {lines.calls()} call line(s) for {len(bodies)} provider request(s) "
                f"within {args.timeout:.0f} s")
        code = stop(listen, signal.SIGINT, args.timeout)
        lines.thread.join(5)
        listen = None
        with open(os.path.join(sdir, "listen.stdout"), "w", encoding="utf-8") as out:
            out.write("\n".join(lines.lines) + "\n")
        calls = [line for line in lines.lines[1:] if CALL_RE.search(line)]
        if len(calls) != len(provider_bodies(record)):
            log(f"  FAIL: {len(calls)} call line(s) for {len(provider_bodies(record))} request(s)")
            failures += 1
        # 1.0.21 records its formatting: formatscope's must be the same.
        if pykey == "v1":
            for line in calls:
                if "  same  " not in line:
                    log(f"  FAIL: not the same as AgentScope recorded: {line}")
                    failures += 1
        if code != 0:
            log(f"  FAIL: listen exited {code} after SIGINT; listen stderr:\n{tail(os.path.join(sdir, 'listen.stderr'))}")
            failures += 1
    finally:
        if listen is not None:
            stop(listen, signal.SIGKILL, 5)
        stop(fake, signal.SIGTERM, 5)

    files = sorted(
        f for f in os.listdir(sessions)
        if f.endswith(".json") and not f.startswith(".") and os.path.isfile(os.path.join(sessions, f))
    )
    log(f"  {len(bodies)} provider request(s), {len(files)} session file(s)")
    # Traces carry no keys: none reaches a session or listen's output.
    for name in files + ["../listen.stdout", "../listen.stderr"]:
        path = os.path.join(sessions, name)
        if os.path.exists(path):
            with open(path, "rb") as fh:
                if AGENT_KEY in fh.read():
                    log(f"  FAIL: the agent's API key is in {name}")
                    failures += 1
    if len(files) != len(bodies):
        log(f"  FAIL: {len(files)} session(s) for {len(bodies)} request(s): {files}")
        failures += 1

    exact = 0
    for i, (bname, body) in enumerate(bodies):
        if i >= len(files):
            log(f"  call {i + 1:2d} {bname}: MISSING (no session)")
            continue
        sfile = os.path.join(sessions, files[i])
        cmd = [args.formatscope, "request", sfile]
        if pykey == "v2":
            cmd += ["--agentscope", "2.0.11"]
        cmd += ["--as", "json"]
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        got = res.stdout
        if got.endswith(b"\n"):
            got = got[:-1]
        if res.returncode != 0:
            status, detail = "ERROR", f"exit {res.returncode}: {res.stderr.decode('utf-8', 'replace').strip()[:500]}"
        elif got == body:
            status, detail = "ok", ""
        else:
            status, detail = "DIFFERS", first_difference(got, body)
        if status == "ok":
            exact += 1
        elif expect_exact:
            failures += 1
        else:
            status += " (expected)"
        if not expect_exact and res.returncode == 0:
            # The request is ours but for the reminder the trace lacks.
            theirs = json.loads(body)
            theirs["messages"] = [m for m in theirs.get("messages", [])
                                  if "<system-reminder>" not in json.dumps(m.get("content"), ensure_ascii=False)]
            if json.loads(got) == theirs:
                status += ", only by the reminder"
            else:
                status += "; FAIL: it differs by more than the reminder"
                failures += 1
        if not expect_exact:
            # What the trace did not carry, the session says.
            with open(sfile, encoding="utf-8") as fh:
                said = json.load(fh).get("listen", {}).get("assumed", [])
            if not any("system-reminder" in a for a in said):
                status += "; FAIL: the session does not say the reminder was not carried"
                failures += 1
        log(f"  call {i + 1:2d} {bname} <- {files[i]}: {status}")
        if detail and (expect_exact or args.verbose):
            log(f"      {detail}")
    return len(bodies), exact, failures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--formatscope", required=True, metavar="BIN")
    ap.add_argument("--python-v1", metavar="PY", help="AgentScope 1.0.21 python (setup.sh v1)")
    ap.add_argument("--python-v2", metavar="PY", help="AgentScope 2.0.11 python (setup.sh v2)")
    ap.add_argument("--scenarios", default=",".join(DEFAULT),
                    help=f"comma-separated, from {','.join(SCENARIOS)} (default: all)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for listen (default 30)")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (sessions, provider bodies, stderr)")
    ap.add_argument("--verbose", "-v", action="store_true", help="echo listen's lines")
    args = ap.parse_args(argv)

    names = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = [s for s in names if s not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario(s) {unknown}; known: {list(SCENARIOS)}")
    for s in names:
        key = SCENARIOS[s][0]
        if getattr(args, f"python_{key}") is None:
            ap.error(f"scenario {s} needs --python-{key}")
    if not (os.path.isfile(args.formatscope) or shutil.which(args.formatscope)):
        ap.error(f"no formatscope binary at {args.formatscope}")

    work = args.keep or tempfile.mkdtemp(prefix="listen-check-")
    os.makedirs(work, exist_ok=True)
    total = exact = failures = 0
    try:
        for s in names:
            c, e, f = run_scenario(s, args, work)
            total, exact, failures = total + c, exact + e, failures + f
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    log(f"run_check: {exact}/{total} call(s) rebuilt byte for byte, {failures} failure(s)"
        + (f"; work dir kept: {work}" if args.keep else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
