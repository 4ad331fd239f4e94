#!/usr/bin/env python3
"""Issue 9's "done when" figures, each beside a baseline measured in the same
run (this machine is shared and noisy: a ratio means something, an absolute
time is context).

    bash ../shared/reference/setup.sh .venv        # AgentScope + tiktoken cache
    cargo build --release && cargo bench --bench linear
    .venv/bin/python scripts/bench-done-when.py [--baseline OLD_BINARY] [--runs 7]

1. Cold tokenize, whole process: `formatscope tokenize` on a short text
   against Python tiktoken's import, load and count (target: 10x).
2. Truncation of 1,000 messages to half their tokens, whole process:
   `formatscope format --max-tokens` against AgentScope's oracle.py with the
   same budget (target: 100x).
3. Linear: time at 4x the size / time at the size, from `cargo bench --bench
   linear`'s and `cargo bench --bench streams`'s estimates (target: under 5;
   `--ratios-only` prints just these).
4. Launch to first budget number and resident memory on the 10,000-message
   session (scripts/startup.py; target: under 0.3 s, under 10x the size).

With --baseline (an earlier build of formatscope), 1 and 2 run it too.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def timed(cmd, runs, env=None):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def session(n, one_group=False):
    path = ROOT / "target" / "bench-sessions" / f"{'one_group' if one_group else 'bench'}_{n}.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, str(ROOT / "benches" / "gen_session.py"), str(n)] + (["--one-group"] if one_group else [])
        path.write_bytes(subprocess.run(args, capture_output=True, check=True).stdout)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(ROOT / "target" / "release" / "formatscope"))
    ap.add_argument("--baseline", help="an earlier formatscope binary, timed beside")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--ratios-only", action="store_true", help="only 3: the criterion ratios")
    a = ap.parse_args()
    if a.ratios_only:
        ratios()
        return
    env = dict(os.environ)
    cache = Path(sys.prefix) / "tiktoken-cache"
    if cache.is_dir():
        env.setdefault("TIKTOKEN_CACHE_DIR", str(cache))

    print("1. cold tokenize (o200k_base), whole process, median of", a.runs)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("The library opens at nine. 我们一起去图书馆吧！ {\"ok\": true}\n" * 20)
        text = f.name
    py = [sys.executable, "-c",
          "import sys, tiktoken; e = tiktoken.get_encoding('o200k_base'); "
          "print(len(e.encode(open(sys.argv[1]).read(), disallowed_special=())))", text]
    ours = timed([a.binary, "tokenize", text], a.runs)
    theirs = timed(py, a.runs, env)
    print(f"   formatscope {ours * 1000:.1f} ms, Python tiktoken {theirs * 1000:.1f} ms: {theirs / ours:.1f}x")
    if a.baseline:
        base = timed([a.baseline, "tokenize", text], a.runs)
        print(f"   baseline build {base * 1000:.1f} ms: this build is {base / ours:.1f}x faster")

    print("2. truncation of 1,000 messages to half their tokens, whole process")
    s = session(1000)
    counted = json.loads(subprocess.run([a.binary, "format", str(s), "--count"], capture_output=True, check=True).stdout)
    half = counted["tokens"] // 2
    ours = timed([a.binary, "format", str(s), "--max-tokens", str(half)], a.runs)
    oracle = [sys.executable, str(SHARED / "reference" / "oracle.py"), str(s), "--max-tokens", str(half)]
    theirs = timed(oracle, max(1, a.runs // 3), env)
    print(f"   budget {half}: formatscope {ours * 1000:.1f} ms, AgentScope {theirs * 1000:.0f} ms: {theirs / ours:.0f}x")
    if a.baseline:
        base = timed([a.baseline, "format", str(s), "--max-tokens", str(half)], a.runs)
        print(f"   baseline build {base * 1000:.1f} ms: this build is {base / ours:.1f}x faster")

    ratios()

    print("4. launch to first budget number, 10,000 messages (scripts/startup.py)")
    s = session(10_000)
    args = [sys.executable, str(ROOT / "scripts" / "startup.py"), a.binary, str(s)] + ([a.baseline] if a.baseline else [])
    subprocess.run(args)
    print(f"   session size {s.stat().st_size / 1e6:.1f} MB")


def ratios():
    """3: time at each size over time at the size before (4x), per bench."""
    for group in ("linear", "streams"):
        print(f"3. {group}: time(4n) / time(n), from cargo bench --bench {group}")
        crit = ROOT / "target" / "criterion" / group
        if not crit.is_dir():
            print(f"   (run cargo bench --bench {group} first)")
            continue
        for bench in sorted(p for p in crit.iterdir() if p.is_dir() and p.name != "report"):
            sizes = []
            for size in bench.iterdir():
                est = size / "new" / "estimates.json"
                if est.exists() and size.name.isdigit():
                    sizes.append((int(size.name), json.loads(est.read_text())["mean"]["point_estimate"] / 1e6))
            sizes.sort()
            for (n1, t1), (n2, t2) in zip(sizes, sizes[1:]):
                print(f"   {bench.name:32} {n1:>7} {t1:9.2f} ms   {n2:>7} {t2:9.2f} ms   ratio {t2 / t1:.2f} (size x{n2 / n1:.0f})")


if __name__ == "__main__":
    main()
