#!/usr/bin/env bash
# Runs `formatscope legacy` over every AgentScope 0.1.6 vector and judges
# the outputs with the reference comparator (compare.py), as the legacy API's
# done-when asks: the shared set (tests/legacy/, a copy of
# shared/golden-v0: 524 files) and our own (tests/legacy/own/, made by
# scripts/legacy-regen.py with the real 0.1.6 oracle).
# FORMATSCOPE_BIN= reuses a built binary.
#   bash scripts/legacy-cli.sh [OUT_DIR] [compare.py options]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/legacy-cli}"
shift || true
BIN="${FORMATSCOPE_BIN:-}"
if [ -z "$BIN" ]; then
    cargo build --release --quiet
    BIN=target/release/formatscope
fi
rm -rf "$OUT"
for SET in tests/legacy tests/legacy/own; do
python3 - "$BIN" "$OUT/$SET" "$SET" <<'PY'
import json, os, subprocess, sys
binary, out, base = sys.argv[1], sys.argv[2], sys.argv[3]
manifest = json.load(open(os.path.join(base, "manifest.json")))
for entry in manifest["files"]:
    cmd = entry["command"][2:]                      # drop "python oracle_v0.py"
    cmd = [c.replace("shared/golden-v0/", "tests/legacy/") for c in cmd]
    args = [binary, "legacy", *cmd]
    res = subprocess.run(args, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {res.returncode}: {res.stderr}")
    dest = os.path.join(out, entry["expected"].removeprefix("expected/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(res.stdout)
PY
echo "== $SET"
python3 tests/legacy/tools/compare.py "$SET/expected" "$OUT/$SET" "$@"
done
