#!/usr/bin/env bash
# Runs `formatscope format --agentscope 2.0.11` over every AgentScope 2.0.11
# golden vector (tests/golden_v2/manifest.json: the oracle's arguments, run
# from the case's folder, web media from media/web) and judges the outputs
# with the reference comparator (compare.py).
#   bash scripts/golden-v2-cli.sh [OUT_DIR] [compare.py options...]
# PROFILE=release builds and runs the release binary (default: debug);
# GOLDEN=DIR runs another vector set of the same layout (tests/golden_v2_extra).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/golden-v2-cli}"
shift || true
PROFILE="${PROFILE:-debug}"
if [ "$PROFILE" = release ]; then cargo build --release --quiet; else cargo build --quiet; fi
BIN="$PWD/target/$PROFILE/formatscope"
GOLDEN="${GOLDEN:-tests/golden_v2}"
python3 - "$BIN" "$OUT" "$GOLDEN" <<'PY'
import json, os, subprocess, sys
binary, out = sys.argv[1], sys.argv[2]
root = sys.argv[3]
manifest = json.load(open(f"{root}/manifest.json"))
web = os.path.abspath(f"{root}/media/web")
for entry in manifest["files"]:
    cmd = entry["command"][2:]                      # drop "python oracle_v2.py"
    case = os.path.basename(cmd[0])
    args = [binary, "format", case, *cmd[1:], "--agentscope", "2.0.11", "--web-root", web]
    res = subprocess.run(args, capture_output=True, text=True, cwd=f"{root}/cases")
    if res.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {res.returncode}: {res.stderr}")
    dest = os.path.join(out, entry["expected"].removeprefix("expected/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(res.stdout)
PY
python3 tests/golden_v2/tools/compare.py "$GOLDEN/expected" "$OUT" "$@"
