#!/usr/bin/env python3
"""Regenerates tests/responses/expected/ with the response oracle (needs the
reference venv: ../shared/reference/setup.sh). Dev-time only.
    ../.venv/bin/python scripts/response-regen.py [ORACLE_PATH]
"""
import json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
oracle = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "reference", "response_oracle.py")
here = os.path.join(ROOT, "tests", "responses")
plan = json.load(open(os.path.join(here, "plan.json")))
os.makedirs(os.path.join(here, "expected"), exist_ok=True)
for name, p in plan.items():
    cmd = [sys.executable, oracle, os.path.join(here, "cases", name + ".json"), "--provider", p["provider"], *p["options"]]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{name}: {out.stderr}")
    with open(os.path.join(here, "expected", name + ".json"), "w", encoding="utf-8") as f:
        f.write(out.stdout)
print(len(plan), "expected files")
