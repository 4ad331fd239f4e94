#!/usr/bin/env python3
"""AgentScope 1.0.21 and formatscope on the same benchmark sessions, timed in
the same run, printed as ratios.

    # the reference venv (AgentScope + offline tiktoken cache):
    bash ../shared/reference/setup.sh .venv      # or any venv with agentscope==1.0.21
    .venv/bin/python scripts/bench-vs-agentscope.py [--sizes 100 1000 10000] [--runs 3] [--truncate-10k]

Sessions come from benches/gen_session.py (OpenAI multi-agent, gpt-4o). For
each size: AgentScope's `OpenAIMultiAgentFormatter.format` (no budget), the
same plus `OpenAITokenCounter("gpt-4o").count`, and the formatter with that
counter and a budget (its FIFO truncation: half the tokens, or 2% dropped at
10,000 messages, which takes about a minute and runs only with
--truncate-10k). formatscope's figures come from `formatscope timing` on the
same file (in-process medians, tokenizer loaded first).
"""
import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ensure_tiktoken_cache() -> None:
    cache = Path(sys.prefix) / "tiktoken-cache"
    if "TIKTOKEN_CACHE_DIR" not in os.environ and cache.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


def session_file(n: int) -> Path:
    out = ROOT / "target" / "bench-sessions" / f"bench_{n}.json"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        text = subprocess.run([sys.executable, str(ROOT / "benches" / "gen_session.py"), str(n)],
                              check=True, capture_output=True, text=True).stdout
        out.write_text(text)
    return out


def median_ms(runs: int, fn) -> float:
    times = []
    for _ in range(max(1, runs)):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def agentscope_times(path: Path, runs: int, truncate: bool, budget_for) -> dict:
    from agentscope.formatter import OpenAIMultiAgentFormatter
    from agentscope.message import Msg
    from agentscope.token import OpenAITokenCounter

    session = json.loads(path.read_text())
    msgs = [Msg.from_dict(m) for m in session["messages"]]
    counter = OpenAITokenCounter("gpt-4o")
    plain = OpenAIMultiAgentFormatter()
    run = asyncio.run
    run(counter.count(run(plain.format(msgs))))  # load the encoding first
    out = {"format_ms": median_ms(runs, lambda: run(plain.format(msgs)))}
    out["format_count_ms"] = median_ms(runs, lambda: run(counter.count(run(plain.format(msgs)))))
    total = run(counter.count(run(plain.format(msgs))))
    out["tokens"] = total
    out["max_tokens"] = budget_for(len(msgs), total)
    if truncate:
        limited = OpenAIMultiAgentFormatter(token_counter=counter, max_tokens=out["max_tokens"])
        result = {}
        out["truncation_ms"] = median_ms(1, lambda: result.update(r=run(limited.format(msgs))))
        out["truncation_messages"] = len(result["r"])
    return out


def formatscope_times(path: Path, runs: int, max_tokens: int) -> dict:
    binary = ROOT / "target" / "release" / "formatscope"
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    res = subprocess.run([str(binary), "timing", str(path), "--max-tokens", str(max_tokens),
                          "--runs", str(runs)], check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--truncate-10k", action="store_true",
                    help="also time AgentScope's truncation at 10,000 messages (about a minute)")
    args = ap.parse_args()
    ensure_tiktoken_cache()

    def budget_for(n: int, total: int) -> int:
        return total * 98 // 100 if n > 5000 else total // 2

    rows = []
    for n in args.sizes:
        path = session_file(n)
        a = agentscope_times(path, args.runs, n <= 5000 or args.truncate_10k, budget_for)
        f = formatscope_times(path, max(args.runs, 5), a["max_tokens"])
        rows.append(("format (no budget)", n, a["format_ms"], f["format_ms"]))
        rows.append(("format + count (cold)", n, a["format_count_ms"], f["count_cold_ms"]))
        rows.append(("format + count (warm)", n, a["format_count_ms"], f["count_warm_ms"]))
        rows.append(("recount after one edit", n, a["format_count_ms"], f["recount_one_edit_ms"]))
        if "truncation_ms" in a:
            rows.append((f"truncate to {a['max_tokens']} (AgentScope counter)", n, a["truncation_ms"],
                         f["agentscope_truncation_ms"]))
            rows.append((f"truncate to {a['max_tokens']} (planned, warm)", n, a["truncation_ms"], f["plan_ms"]))
        print(f"# {n} messages: AgentScope {a['tokens']} tokens", file=sys.stderr)

    print(f"{'what':44} {'msgs':>6} {'AgentScope ms':>14} {'formatscope ms':>15} {'ratio':>10}")
    for what, n, base, ours in rows:
        ratio = base / ours if ours > 0 else float("inf")
        print(f"{what:44} {n:>6} {base:>14.2f} {ours:>15.3f} {ratio:>9.1f}x")


if __name__ == "__main__":
    main()
