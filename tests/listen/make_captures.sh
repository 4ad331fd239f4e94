#!/usr/bin/env bash
# Regenerate tests/listen/captures/: run every agent script against
# fake_provider.py (request bodies -> SCENARIO/bodies/) with its tracing
# pointed at capture_otlp.py (OTLP export bodies -> SCENARIO/NNN.bin).
#   bash tests/listen/make_captures.sh [OUT]      (default: tests/listen/captures)
# Pythons: $PY_V1 / $PY_V2, else from setup.sh (target/listen-v1, target/oracle-v2).
# $DELAY (default 0.05 s) is slept before each SSE event of a model reply so
# that a run spreads over several span exports (OTEL_BSP_SCHEDULE_DELAY=200).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$HERE/captures}"
PY_V1="${PY_V1:-$(bash "$HERE/setup.sh" v1)}"
PY_V2="${PY_V2:-$(bash "$HERE/setup.sh" v2)}"
DELAY="${DELAY:-0.05}"
TMP="$(mktemp -d)"
PIDS=()
cleanup() {
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT

wait_port() {  # FILE -> port on stdout, once the server wrote it
    for _ in $(seq 1 100); do
        if [ -s "$1" ]; then head -1 "$1"; return 0; fi
        sleep 0.05
    done
    echo "make_captures.sh: no port in $1" >&2
    return 1
}

capture() {  # SCENARIO PYTHON SCRIPT [ARGS...]; env passes through
    local name="$1" py="$2" script="$3"
    shift 3
    local dir="$OUT/$name"
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 "$HERE/fake_provider.py" --record "$dir/bodies" --delay "$DELAY" --port-file "$TMP/$name.fp" >/dev/null &
    local fp_pid=$!
    PIDS+=("$fp_pid")
    python3 "$HERE/capture_otlp.py" --out "$dir" --port-file "$TMP/$name.cap" >/dev/null &
    local cap_pid=$!
    PIDS+=("$cap_pid")
    local fp cap
    fp="$(wait_port "$TMP/$name.fp")"
    cap="$(wait_port "$TMP/$name.cap")"
    echo "make_captures.sh: $name: $(basename "$py") $(basename "$script") $*" >&2
    "$py" "$HERE/$script" --provider-url "http://127.0.0.1:$fp" --otlp "http://127.0.0.1:$cap/v1/traces" "$@" >"$TMP/$name.out"
    # force_flush() returned before the agent exited: every export is in.
    kill -INT "$fp_pid" "$cap_pid"
    wait "$fp_pid" "$cap_pid" 2>/dev/null || true
}

export OTEL_BSP_SCHEDULE_DELAY=200
capture v1_tools "$PY_V1" agent_v1_tools.py
capture v1_hub "$PY_V1" agent_v1_hub.py
capture v1_anthropic "$PY_V1" agent_v1_anthropic.py
OTEL_EXPORTER_OTLP_COMPRESSION=gzip capture v1_anthropic_gzip "$PY_V1" agent_v1_anthropic.py
capture v1_dashscope "$PY_V1" agent_v1_dashscope.py
capture v2_off "$PY_V2" agent_v2.py --inject-state off
capture v2_on "$PY_V2" agent_v2.py --inject-state on

"$PY_V1" "$HERE/summarize_captures.py" "$OUT"/v1_* "$OUT"/v2_*
