#!/usr/bin/env bash
# Regenerate tests/responses_v2/expected/*.json and manifest.json with the
# AgentScope 2.0.11 response oracle (scripts/response-oracle-v2.py), one
# oracle run per plan.json case, from the repository root.
#
# Usage: bash tests/responses_v2/regen.sh [-j N]
#   The venv is $ORACLE_V2_VENV, else .venv-v2 beside the repository
#   (${ORACLE_V2_VENV:-../.venv-v2} from the repository root, i.e.
#   /work/.venv-v2): agentscope 2.0.11 + the SDKs listed in README.md.
#   expected/ is deleted and rewritten. Offline (the oracle disables
#   sockets); about half a minute.
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SELF/../.." && pwd)"
VENV="${ORACLE_V2_VENV:-$(dirname "$REPO")/.venv-v2}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "regen.sh: no venv at $VENV (set ORACLE_V2_VENV)" >&2
    exit 2
fi
if ! "$VENV/bin/python" -c 'import agentscope, sys; sys.exit(agentscope.__version__ != "2.0.11")'; then
    echo "regen.sh: $VENV does not have agentscope 2.0.11" >&2
    exit 2
fi

"$VENV/bin/python" "$SELF/tools/gen_expected.py" "$@"
