#!/usr/bin/env bash
# The AgentScope 0.1.6 environment tests/fuzz_v0.rs compares against: a
# venv (Python 3.11) with exactly requirements.lock (agentscope 0.1.6 and
# the import closure of agentscope.formatters, installed with --no-deps;
# see the lock's header), from the package index.
#   bash tests/oracle_v0/setup.sh [VENV]      (default: target/oracle-v0)
# Prints the venv's python on stdout on success (everything else goes to
# stderr). A venv that already matches the lock is kept (a second or so).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${1:-$HERE/../../target/oracle-v0}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
    if command -v python3.11 >/dev/null 2>&1; then PY=python3.11; else PY=python3; fi
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV" >&2
fi
if ! "$VENV/bin/python" "$HERE/pins_v0.py" >/dev/null 2>&1; then
    # Exactly the lock: what it does not name goes first.
    EXTRAS="$("$VENV/bin/python" "$HERE/pins_v0.py" --extras)"
    if [ -n "$EXTRAS" ]; then
        # shellcheck disable=SC2086
        "$VENV/bin/python" -m pip uninstall -q -y --disable-pip-version-check $EXTRAS >&2
    fi
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$HERE/requirements.lock" >&2
    "$VENV/bin/python" "$HERE/pins_v0.py" >&2
fi
echo "$VENV/bin/python"
