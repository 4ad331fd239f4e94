#!/usr/bin/env python3
"""AgentScope 1.0.21 and formatscope on the same benchmark sessions, timed in
the same run, printed as ratios (a Markdown table for the README).

    # the reference venv (AgentScope + offline tiktoken cache):
    bash ../shared/reference/setup.sh .venv      # or any venv with agentscope==1.0.21
    .venv/bin/python scripts/bench-vs-agentscope.py [--sizes 1000 10000 100000] [--runs 3] [--rounds 5] [--truncate-10k]

Sessions come from benches/gen_session.py (OpenAI multi-agent, gpt-4o). For
each size, alternating the two so the machine's load falls on both:

- whole process: `formatscope format --count SESSION` against a Python
  process that does what it does with AgentScope (read the file,
  `Msg.from_dict`, `OpenAIMultiAgentFormatter.format`,
  `OpenAITokenCounter("gpt-4o").count`, print the JSON);
- in process: AgentScope's `format` (no budget) and its counter's `count` of
  the formatted request (the encoding loaded first) against `formatscope
  timing`'s `format_ms`, `count_request_ms` (the same counter's count of the
  same request) and `count_cold_ms` (a new budget model: format, count and
  each message's share from nothing, the tokenizer loaded), and AgentScope's format + count
  against the warm count, a recount after one edit and the truncation plan;
  in rounds (`--rounds`), AgentScope then formatscope in each, each side's
  figure its median over the rounds and the ratio the median of the
  rounds' own ratios (the machine's load changes within minutes);
- the formatter with that counter and a budget (AgentScope's FIFO
  truncation: half the tokens, or 2% dropped past 5,000 messages, which
  takes about a minute at 10,000 and runs only with --truncate-10k; never
  at 100,000).

Then how the warm count, a recount after a delete and the plans grow from
25,000 to 100,000 messages with the budget a quarter of each session
(linear is 4x; issue 43's bound is 5x), and with `--before OLD_BINARY` the
same figures of an earlier build, timed in the same run (in rounds as
well, each growth the median of the rounds' own).
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
    formatted = run(plain.format(msgs))
    run(counter.count(formatted))  # load the encoding first
    out = {"format_ms": median_ms(runs, lambda: run(plain.format(msgs)))}
    out["count_ms"] = median_ms(runs, lambda: run(counter.count(formatted)))
    out["format_count_ms"] = median_ms(runs, lambda: run(counter.count(run(plain.format(msgs)))))
    total = run(counter.count(formatted))
    out["tokens"] = total
    out["max_tokens"] = budget_for(len(msgs), total)
    if truncate:
        limited = OpenAIMultiAgentFormatter(token_counter=counter, max_tokens=out["max_tokens"])
        result = {}
        out["truncation_ms"] = median_ms(1, lambda: result.update(r=run(limited.format(msgs))))
        out["truncation_messages"] = len(result["r"])
    return out


# AgentScope's side of `formatscope format --count SESSION`, as one process.
AGENTSCOPE_PROCESS = """
import asyncio, json, sys
from agentscope.formatter import OpenAIMultiAgentFormatter
from agentscope.message import Msg
from agentscope.token import OpenAITokenCounter
session = json.load(open(sys.argv[1], encoding="utf-8"))
msgs = [Msg.from_dict(m) for m in session["messages"]]
formatted = asyncio.run(OpenAIMultiAgentFormatter().format(msgs))
tokens = asyncio.run(OpenAITokenCounter("gpt-4o").count(formatted))
json.dump({"messages": formatted, "tokens": tokens}, sys.stdout, ensure_ascii=False, indent=2)
"""


def process_ms(runs: int, argv: list) -> float:
    def once():
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    once()  # page the binary and the file in first
    return median_ms(runs, once)


def whole_process_times(path: Path, runs: int, before=None) -> tuple:
    binary = ROOT / "target" / "release" / "formatscope"
    theirs, ours, old = [], [], []
    for _ in range(max(1, runs)):
        theirs.append(process_ms(1, [sys.executable, "-c", AGENTSCOPE_PROCESS, str(path)]))
        ours.append(process_ms(1, [str(binary), "format", "--count", str(path)]))
        if before:
            old.append(process_ms(1, [before, "format", "--count", str(path)]))
    return (statistics.median(theirs), statistics.median(ours),
            statistics.median(old) if old else None)


def formatscope_times(path: Path, runs: int, max_tokens: int, binary=None) -> dict:
    binary = binary or ROOT / "target" / "release" / "formatscope"
    res = subprocess.run([str(binary), "timing", str(path), "--max-tokens", str(max_tokens),
                          "--runs", str(runs)], check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def medians(rounds: list) -> dict:
    """Each numeric figure's median over the rounds (others: the first's)."""
    out = dict(rounds[0])
    for key, value in rounds[0].items():
        if isinstance(value, (int, float)):
            out[key] = statistics.median(r[key] for r in rounds)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 25000, 100000])
    ap.add_argument("--before", help="an earlier build's binary, timed beside this one")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5,
                    help="in-process comparisons: rounds of AgentScope then formatscope")
    ap.add_argument("--truncate-10k", action="store_true",
                    help="also time AgentScope's truncation at 10,000 messages (about a minute)")
    args = ap.parse_args()
    ensure_tiktoken_cache()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)

    def budget_for(n: int, total: int) -> int:
        return total * 98 // 100 if n > 5000 else total // 2

    rows = []
    growth = {}
    for n in args.sizes:
        path = session_file(n)
        theirs, ours, old = whole_process_times(path, args.runs, args.before)
        rows.append(("format --count, whole process", n, theirs, ours, theirs / ours))
        if old is not None:
            rows.append(("format --count, whole process: the build before", n, theirs, old,
                         theirs / old))
        truncate = n <= 5000 or (n <= 10000 and args.truncate_10k)
        # In rounds, AgentScope then formatscope each round, so a change
        # in the machine's load between the two falls on one round's
        # ratios only: each side's figure is its median over the rounds,
        # the ratio the median of the rounds' own ratios.
        theirs_rounds, ours_rounds = [], []
        for _ in range(max(1, args.rounds)):
            theirs_rounds.append(agentscope_times(path, args.runs, truncate, budget_for))
            budget = theirs_rounds[0]["max_tokens"]
            ours_rounds.append(formatscope_times(path, max(args.runs, 5), budget))
        a, f = theirs_rounds[0], medians(ours_rounds)
        growth[n] = f

        def paired(what, theirs_key, ours_key):
            base = statistics.median(r[theirs_key] for r in theirs_rounds)
            ours = f[ours_key]
            ratio = statistics.median(t[theirs_key] / o[ours_key] if o[ours_key] > 0 else float("inf")
                                      for t, o in zip(theirs_rounds, ours_rounds))
            rows.append((what, n, base, ours, ratio))

        paired("format (no budget), in process", "format_ms", "format_ms")
        paired("count of the formatted request, in process", "count_ms", "count_request_ms")
        paired("cold count (budget model from nothing: format, count, shares)", "count_ms",
               "count_cold_ms")
        paired("format + count: warm count", "format_count_ms", "count_warm_ms")
        paired("format + count: recount after one edit", "format_count_ms", "recount_one_edit_ms")
        if "truncation_ms" in a:
            paired(f"truncate to {a['max_tokens']} (AgentScope counter)", "truncation_ms",
                   "agentscope_truncation_ms")
            paired(f"truncate to {a['max_tokens']} (planned, warm)", "truncation_ms", "plan_ms")
        print(f"# {n} messages: AgentScope {a['tokens']} tokens", file=sys.stderr)

    print("| what | messages | AgentScope ms | formatscope ms | AgentScope / formatscope |")
    print("| --- | --- | --- | --- | --- |")
    for what, n, base, ours, ratio in rows:
        print(f"| {what} | {n:,} | {base:,.1f} | {ours:,.2f} | {ratio:,.1f}x |")
    if 25000 in growth and 100000 in growth:
        # The budget a quarter of each session, as the workbench's bench.
        builds = [("this build", None)] + ([("before", args.before)] if args.before else [])
        budgets = {}
        for n in (25000, 100000):
            tokens = json.loads(subprocess.run(
                [str(ROOT / "target" / "release" / "formatscope"), "count", "--json",
                 str(session_file(n))], capture_output=True, text=True).stdout or "{}").get("total")
            budgets[n] = (tokens or n * 46) // 4
        # In rounds too, the builds and sizes alternating within each: a
        # growth is the median of the rounds' own.
        rounds = []
        for _ in range(max(1, args.rounds)):
            rounds.append({(label, n): formatscope_times(session_file(n), max(args.runs, 5),
                                                         budgets[n], binary)
                           for label, binary in builds for n in (25000, 100000)})
        print()
        print("| 25,000 -> 100,000 messages, budget a quarter (linear = 4x, bound 5x) | build | 25,000 | 100,000 | growth |")
        print("| --- | --- | --- | --- | --- |")
        for key, what in [("format_ms", "format"), ("count_request_ms", "count of the request"),
                          ("count_cold_ms", "cold count"), ("count_warm_ms", "warm count"),
                          ("recount_delete_ms", "recount after a delete"),
                          ("plan_ms", "plan"), ("plan_after_edit_ms", "plan after an edit")]:
            for label, _ in builds:
                small = [r[(label, 25000)][key] for r in rounds]
                large = [r[(label, 100000)][key] for r in rounds]
                ratios = [b / a for a, b in zip(small, large) if a > 0]
                if not ratios:
                    continue
                print(f"| {what} | {label} | {statistics.median(small):.2f} ms | "
                      f"{statistics.median(large):.2f} ms | {statistics.median(ratios):.1f}x |")

if __name__ == "__main__":
    main()
