#!/usr/bin/env python3
"""Regenerates tests/counters/ from the real AgentScope 1.0.21: formatting,
counting and truncation with `CharTokenCounter` (the other counter a session
can choose with `"token_counter": "char"`).

    ../.venv/bin/python scripts/counter-regen.py   # from the repo root

The oracle builds its formatters with `OpenAITokenCounter(gpt-4o)`; here
that name is pointed at `CharTokenCounter` for the run, so the outputs are
the oracle's shape with AgentScope's character counts and truncation. Cases:
every golden case, all twelve formatters, plain (counted) and three budgets
(30%, 60% and 90% of the whole request's characters). Dev-time only.
"""
import json, os, sys, asyncio

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE_DIR = os.environ.get("ORACLE_DIR", os.path.join(REPO, "..", "shared", "reference"))
sys.path.insert(0, ORACLE_DIR)
import oracle  # noqa: E402

CASES = "tests/golden/cases"
OUT = "tests/counters"
WEB_ROOT = os.path.join(REPO, "tests", "golden", "media", "web")
FRACTIONS = (0.3, 0.6, 0.9)


def main() -> None:
    oracle.setup()
    import agentscope.token as token
    token.OpenAITokenCounter = lambda _model: token.CharTokenCounter()
    files = []
    cases = os.path.join(REPO, CASES)
    for name in sorted(f[:-5] for f in os.listdir(cases) if f.endswith(".json")):
        path = os.path.join(cases, name + ".json")
        for formatter in oracle.FORMATTERS:
            runs = [("plain", None)]
            try:
                full = oracle.run(path, formatter, count=True, web_roots=[WEB_ROOT])
            finally:
                oracle.cleanup_saved_files()
            if isinstance(full.get("tokens"), int) and full["tokens"] > 0:
                runs += [(f"char_{int(f * 100)}", max(1, int(full["tokens"] * f))) for f in FRACTIONS]
            for variant, max_tokens in runs:
                try:
                    out = oracle.run(path, formatter, max_tokens=max_tokens, count=True, web_roots=[WEB_ROOT])
                finally:
                    oracle.cleanup_saved_files()
                rel = f"{name}/{formatter}.{variant}.json"
                dest = os.path.join(REPO, OUT, "expected", rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "w", encoding="utf-8") as f:
                    f.write(oracle.dumps(out))
                command = ["python", "oracle.py", f"{CASES}/{name}.json", "--formatter", formatter,
                           "--token-counter", "char", "--count"]
                if max_tokens is not None:
                    command += ["--max-tokens", str(max_tokens)]
                files.append({"case": name, "formatter": formatter, "variant": variant,
                              "expected": "expected/" + rel, "command": command})
    with open(os.path.join(REPO, OUT, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"agentscope_version": "1.0.21", "counter": "CharTokenCounter", "cases": CASES,
                   "files": files}, f, indent=1)
        f.write("\n")
    print(f"{OUT}: {len(files)} expected files written")


main()
