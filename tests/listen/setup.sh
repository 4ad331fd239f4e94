#!/usr/bin/env bash
# The Python environments the `formatscope listen` tests run real AgentScope
# agents in (tests/listen/run_check.py, and the scripts that made captures/).
#   bash tests/listen/setup.sh v1 [VENV]   AgentScope 1.0.21 + exactly requirements-v1.lock
#                                          (default VENV: target/listen-v1)
#   bash tests/listen/setup.sh v2 [VENV]   AgentScope 2.0.11: delegates to
#                                          tests/oracle_v2/setup.sh (default target/oracle-v2),
#                                          whose lock has the OTLP exporter too
# Python 3.11 (python3.11 if found, else python3; override with PYTHON=...).
# A venv whose installed versions already match every pin of the lock is kept;
# otherwise the lock is installed with `pip install --no-deps -r`.
# stdout: the venv's python, one line. stderr: progress.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WHICH="${1:-v1}"
case "$WHICH" in
    v2)
        shift || true
        exec bash "$HERE/../oracle_v2/setup.sh" "$@"
        ;;
    v1) ;;
    *)
        echo "usage: bash tests/listen/setup.sh [v1|v2] [VENV]" >&2
        exit 2
        ;;
esac
VENV="${2:-$HERE/../../target/listen-v1}"
LOCK="$HERE/requirements-v1.lock"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    if command -v python3.11 >/dev/null 2>&1; then PY=python3.11; else PY=python3; fi
fi

# Exit 0 when every name==version of the lock is installed with that version
# (agentscope, the opentelemetry exporter and the provider SDKs included).
check_pins() {
    "$VENV/bin/python" - "$LOCK" <<'PYEOF'
import re, sys
from importlib.metadata import PackageNotFoundError, version
bad = []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if "==" not in line:
        continue
    name, _, want = line.partition("==")
    name = re.sub(r"[-_.]+", "-", name.strip()).lower()
    try:
        have = version(name)
    except PackageNotFoundError:
        have = None
    if have != want.strip():
        bad.append(f"{name} {have} installed, {want.strip()} expected")
for b in bad[:10]:
    print(f"setup.sh: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
}

if [ ! -x "$VENV/bin/python" ]; then
    echo "setup.sh: creating venv $VENV ($("$PY" --version 2>&1))" >&2
    "$PY" -m venv "$VENV" >&2
fi
"$VENV/bin/python" -c 'import sys; v = sys.version_info[:2]; v == (3, 11) or print(f"setup.sh: warning: Python {v[0]}.{v[1]}, the lock was resolved for 3.11", file=sys.stderr)'
if check_pins 2>/dev/null; then
    echo "setup.sh: $VENV already matches requirements-v1.lock; kept" >&2
else
    echo "setup.sh: installing requirements-v1.lock into $VENV" >&2
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$LOCK" >&2
    check_pins
fi
"$VENV/bin/python" -c 'import agentscope, opentelemetry.exporter.otlp.proto.http.trace_exporter' >&2
echo "$VENV/bin/python"
