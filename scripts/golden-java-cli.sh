#!/usr/bin/env bash
# Runs `formatscope format --agentscope java-2.0.2` over every AgentScope Java 2.0.2
# golden vector (tests/golden_java/manifest.json: the oracle's arguments, run
# from the case's folder, web media from media/web) and judges the outputs
# with the reference comparator (compare.py).
#   bash scripts/golden-java-cli.sh [OUT_DIR] [compare.py options...]
# PROFILE=release builds and runs the release binary (default: debug);
# GOLDEN=DIR runs another vector set of the same layout. Judged with --wire-bytes:
# the request body must match byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/golden-java-cli}"
shift || true
PROFILE="${PROFILE:-debug}"
if [ "$PROFILE" = release ]; then cargo build --release --quiet; else cargo build --quiet; fi
BIN="$PWD/target/$PROFILE/formatscope"
GOLDEN="${GOLDEN:-tests/golden_java}"
python3 - "$BIN" "$OUT" "$GOLDEN" <<'PY'
import json, os, subprocess, sys
binary, out = sys.argv[1], sys.argv[2]
root = sys.argv[3]
manifest = json.load(open(f"{root}/manifest.json"))
web = os.path.abspath(f"{root}/media/web")
for entry in manifest["files"]:
    cmd = entry["command"][2:]                      # drop "bash shared/reference-java/oracle-java.sh"
    case = os.path.basename(cmd[0])
    args = [binary, "format", case, *cmd[1:], "--agentscope", "java-2.0.2", "--web-root", web]
    res = subprocess.run(args, capture_output=True, text=True, cwd=f"{root}/cases")
    if res.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)}: exit {res.returncode}: {res.stderr}")
    dest = os.path.join(out, entry["expected"].removeprefix("expected/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(res.stdout)
PY
python3 tests/golden_java/tools/compare.py "$GOLDEN/expected" "$OUT" --wire-bytes "$@"
