#!/usr/bin/env bash
# Runs `formatscope response` over every recorded response case
# (tests/golden/responses/manifest.json) and judges the outputs chunk by
# chunk with the reference comparator (compare.py).
#   bash scripts/response-cli.sh [OUT_DIR] [compare.py options]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/response-cli}"
shift || true
BIN="${FORMATSCOPE_BIN:-target/release/formatscope}"
[ -n "${FORMATSCOPE_BIN:-}" ] || cargo build --release --quiet
python3 - "$BIN" "$OUT" <<'PY'
import json, os, subprocess, sys
binary, out = sys.argv[1], sys.argv[2]
manifest = json.load(open("tests/golden/responses/manifest.json"))
os.makedirs(out, exist_ok=True)
for entry in manifest["cases"]:
    cmd = entry["command"].split()[2:]               # drop "python response_oracle.py"
    cmd[0] = cmd[0].replace("shared/golden/", "tests/golden/")
    res = subprocess.run([binary, "response", *cmd], capture_output=True, text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {res.returncode}: {res.stderr}")
    with open(os.path.join(out, os.path.basename(entry["expected"])), "w", encoding="utf-8") as f:
        f.write(res.stdout)
PY
python3 tests/golden/responses/tools/compare.py tests/golden/responses/expected "$OUT" "$@"
