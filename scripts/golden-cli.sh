#!/usr/bin/env bash
# Runs the formatscope CLI over every golden vector (tests/golden/manifest.json)
# and judges the outputs with the reference comparator (compare.py).
#   bash scripts/golden-cli.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/golden-cli}"
cargo build --release --quiet
BIN=target/release/formatscope
python3 - "$BIN" "$OUT" <<'PY'
import json, os, subprocess, sys
binary, out = sys.argv[1], sys.argv[2]
manifest = json.load(open("tests/golden/manifest.json"))
for entry in manifest["files"]:
    cmd = entry["command"][2:]                      # drop "python oracle.py"
    cmd[0] = cmd[0].replace("shared/golden/", "tests/golden/")
    args = [binary, "format", *cmd, "--web-root", "tests/golden/media/web", "--portable-paths"]
    res = subprocess.run(args, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {res.returncode}: {res.stderr}")
    dest = os.path.join(out, entry["expected"].removeprefix("expected/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(res.stdout)
PY
python3 tests/golden/tools/compare.py tests/golden/expected "$OUT"
