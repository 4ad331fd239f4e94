#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Regenerate tests/responses_v2/expected/*.json and manifest.json: run
scripts/response-oracle-v2.py (with this interpreter, which must be the
AgentScope 2.0.11 venv) once per plan.json case, from the repository root.

    /work/.venv-v2/bin/python tests/responses_v2/tools/gen_expected.py [-j N]

Each run is its own process (fresh id counter, fresh patches), so a file
does not depend on the others. expected/ is deleted and rewritten.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.dirname(HERE)                       # tests/responses_v2
REPO = os.path.dirname(os.path.dirname(DIR))      # repository root
ORACLE = "scripts/response-oracle-v2.py"
REL = os.path.relpath(DIR, REPO)                  # tests/responses_v2


def command(case: dict) -> list[str]:
    cmd = ["python", ORACLE, f"{REL}/cases/{case['name']}.json", "--model-class", case["model_class"]]
    if case["stream"]:
        cmd.append("--stream")
    opts = case.get("options", {})
    if "model_name" in opts:
        cmd += ["--model-name", opts["model_name"]]
    if "voice" in opts:
        cmd += ["--voice", opts["voice"]]
    if "http_status" in opts:
        cmd += ["--http-status", str(opts["http_status"])]
    unknown = set(opts) - {"model_name", "voice", "http_status"}
    if unknown:
        raise SystemExit(f"{case['name']}: unknown options {sorted(unknown)}")
    return cmd


def run_one(case: dict) -> tuple[dict, str, int]:
    cmd = command(case)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    res = subprocess.run([sys.executable, *cmd[1:]], cwd=REPO, capture_output=True, text=True, env=env)
    if res.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {res.returncode}\n{res.stderr}")
    if res.stderr.strip():
        sys.stderr.write(f"{case['name']}: stderr:\n{res.stderr}")
    return case, res.stdout, res.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    args = parser.parse_args()

    with open(os.path.join(DIR, "plan.json"), encoding="utf-8") as fh:
        plan = json.load(fh)
    expected_dir = os.path.join(DIR, "expected")
    shutil.rmtree(expected_dir, ignore_errors=True)
    os.makedirs(expected_dir)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(run_one, plan["cases"]))

    files = []
    classes: list[str] = []
    for case, stdout, rc in results:
        with open(os.path.join(expected_dir, f"{case['name']}.json"), "w", encoding="utf-8") as fh:
            fh.write(stdout)
        out = json.loads(stdout)
        if case["model_class"] not in classes:
            classes.append(case["model_class"])
        entry = {
            "case": f"cases/{case['name']}.json",
            "expected": f"expected/{case['name']}.json",
            "model_class": case["model_class"],
            "stream": case["stream"],
            "options": case.get("options", {}),
            "outcome": "error" if rc == 1 else "ok",
            "chunks": len(out["chunks"]),
            "description": case["description"],
            "command": command(case),
        }
        if rc == 1:
            entry["error_type"] = out["error_type"]
        files.append(entry)

    manifest = {
        "agentscope_version": plan["agentscope_version"],
        "oracle": ORACLE,
        "model_classes": classes,
        "files": files,
    }
    with open(os.path.join(DIR, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    errors = sum(1 for f in files if f["outcome"] == "error")
    print(f"{len(files)} expected files ({errors} error outcomes)")


if __name__ == "__main__":
    main()
