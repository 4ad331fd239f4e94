#!/usr/bin/env bash
# The AgentScope 2.0.11 environment tests/fuzz_v2.rs compares against: a
# venv (Python 3.11) with exactly requirements.lock (agentscope 2.0.11 and
# the provider SDKs of its release day), from the package index.
#   bash tests/oracle_v2/setup.sh [VENV]      (default: target/oracle-v2)
# Prints the venv's python on success. A venv that already matches is kept.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${1:-$HERE/../../target/oracle-v2}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    if command -v python3.11 >/dev/null 2>&1; then PY=python3.11; else PY=python3; fi
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import sys; sys.path.insert(0, '$HERE'); import pins_v2; sys.exit(1 if pins_v2.check() else 0)" >/dev/null 2>&1; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$HERE/requirements.lock" >&2
fi
echo "$VENV/bin/python"
