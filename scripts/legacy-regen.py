#!/usr/bin/env python3
"""Our own AgentScope 0.1.6 vectors (tests/legacy/own/): runs the real
0.1.6 oracle (shared/reference-v0/oracle_v0.py, in the venv its setup.sh
makes) on every case of tests/legacy/own/cases/ as golden-v0's regen does,
and writes expected/ and manifest.json in the same shape.

    python3 scripts/legacy-regen.py [--venv /work/.venv-v0] [--oracle PATH]
"""
import argparse, json, os, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OWN = os.path.join(ROOT, "tests", "legacy", "own")
FORMATTERS = ["OpenAIFormatter", "AnthropicFormatter", "DashScopeFormatter", "GeminiFormatter", "CommonFormatter"]

p = argparse.ArgumentParser()
p.add_argument("--venv", default=os.environ.get("ORACLE_V0_VENV", "/work/.venv-v0"))
p.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "reference-v0", "oracle_v0.py"))
args = p.parse_args()
python = os.path.join(args.venv, "bin", "python")

files = []
for name in sorted(os.listdir(os.path.join(OWN, "cases"))):
    if not name.endswith(".json"):
        continue
    case = name[:-5]
    path = f"tests/legacy/own/cases/{name}"
    data = json.load(open(os.path.join(OWN, "cases", name)))
    runs = []
    if isinstance(data, list) or "messages" in data:
        for f in FORMATTERS:
            for m in ("chat", "multi_agent", "auto"):
                runs.append((f, m, [], f"{f}.{m}"))
        for opts in (["--require-alternative"], ["--require-user-last"], ["--require-alternative", "--require-user-last"]):
            suffix = ".".join(o[2:].replace("-", "_") for o in opts)
            runs.append(("CommonFormatter", "chat", opts, f"CommonFormatter.chat.{suffix}"))
    if isinstance(data, dict) and "tools" in data:
        for f in FORMATTERS:
            runs.append((f, "tools", [], f"{f}.tools"))
    if isinstance(data, dict) and "models" in data:
        for f in FORMATTERS:
            runs.append((f, "is_supported_model", [], f"{f}.is_supported_model"))
    for formatter, method, opts, stem in runs:
        cmd = [path, "--formatter", formatter]
        cmd += ["--is-supported"] if method == "is_supported_model" else ["--method", method]
        cmd += opts
        res = subprocess.run([python, args.oracle, os.path.join(ROOT, path), *cmd[1:]], capture_output=True, text=True, cwd=ROOT)
        if res.returncode not in (0, 1):
            sys.exit(f"{cmd}: {res.stderr}")
        expected = f"expected/{case}/{stem}.json"
        dest = os.path.join(OWN, expected)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w", encoding="utf-8") as f:
            f.write(res.stdout)
        out = json.loads(res.stdout)
        files.append({"case": case, "formatter": formatter, "method": method,
                      "expected": expected, "outcome": "error" if "error" in out else "ok",
                      "command": ["python", "oracle_v0.py", *cmd]})
json.dump({"files": files}, open(os.path.join(OWN, "manifest.json"), "w"), indent=1)
print(len(files), "vectors")
