#!/usr/bin/env python3
"""4 MiB of prose counted with o200k_base: Python tiktoken in process
(the encoding loaded first, `encode_ordinary`) against `formatscope
tokenize` as a whole process (issue 43's fifth target: 5x), alternating,
in one run; with --before OLD_BINARY an earlier build beside it.

    PYTHON scripts/bench-prose.py [--before OLD_BINARY] [--runs 7]

PYTHON needs `tiktoken` and its o200k_base file (the reference venv has
both; its `tiktoken-cache` folder is used when TIKTOKEN_CACHE_DIR is not
set). The prose is the README and the guide's pages, repeated.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def prose(size: int) -> str:
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs" / "src").glob("*.md"))
    text = ""
    while len(text.encode()) < size:
        for page in pages:
            text += page.read_text(encoding="utf-8")
    return text.encode()[:size].decode("utf-8", "ignore")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    cache = Path(sys.prefix) / "tiktoken-cache"
    if "TIKTOKEN_CACHE_DIR" not in os.environ and cache.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    import tiktoken

    text = prose(4 << 20)
    encoding = tiktoken.get_encoding("o200k_base")
    encoding.encode_ordinary("warm")
    binaries = {"formatscope": str(ROOT / "target" / "release" / "formatscope")}
    if args.before:
        binaries["before"] = args.before
    times = {"tiktoken": [], **{name: [] for name in binaries}}
    counts = {}
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        for _ in range(args.runs):
            t = time.perf_counter()
            counts["tiktoken"] = len(encoding.encode_ordinary(text))
            times["tiktoken"].append(time.perf_counter() - t)
            for name, binary in binaries.items():
                t = time.perf_counter()
                out = subprocess.run([binary, "tokenize", "--tokenizer", "o200k_base", f.name],
                                     check=True, capture_output=True, text=True).stdout
                times[name].append(time.perf_counter() - t)
                counts[name] = out
    median = {name: statistics.median(ts) * 1000 for name, ts in times.items()}
    print(f"4 MiB of prose, o200k_base, medians of {args.runs} ({counts['tiktoken']:,} tokens):")
    print(f"  Python tiktoken {tiktoken.__version__}, in process: {median['tiktoken']:.1f} ms")
    for name in binaries:
        ratio = median["tiktoken"] / median[name]
        same = f'"tokens": {counts["tiktoken"]}' in counts[name]
        print(f"  {name} tokenize, whole process: {median[name]:.1f} ms ({ratio:.1f}x)"
              + ("" if same else "  THE COUNTS DIFFER"))


if __name__ == "__main__":
    main()
