#!/usr/bin/env bash
# Runs `formatscope request` over every shared request vector
# (tests/golden/requests/manifest.json) and judges the outputs with the
# reference comparator (compare.py), as the wire's done-when asked.
#   bash scripts/request-cli.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/request-cli}"
cargo build --release --quiet
BIN=target/release/formatscope
python3 - "$BIN" "$OUT" <<'PY'
import json, os, subprocess, sys
binary, out = sys.argv[1], sys.argv[2]
manifest = json.load(open("tests/golden/requests/manifest.json"))
for entry in manifest["files"]:
    cmd = entry["command"][2:]                      # drop "python request_oracle.py"
    cmd[0] = cmd[0].replace("shared/golden/", "tests/golden/")
    # The manifest writes --model-kwargs with sorted keys; the vectors were
    # made with the recorded order, which the body's key order follows.
    if "--model-kwargs" in cmd:
        cmd[cmd.index("--model-kwargs") + 1] = json.dumps(entry["model_kwargs"])
    args = [binary, "request", *cmd, "--web-root", "tests/golden/media/web", "--portable-paths"]
    res = subprocess.run(args, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {res.returncode}: {res.stderr}")
    dest = os.path.join(out, entry["expected"].removeprefix("requests/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(res.stdout)
PY
python3 tests/golden/tools/compare.py tests/golden/requests "$OUT" --warnings
