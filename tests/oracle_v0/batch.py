#!/usr/bin/env python3
"""Runs many oracle questions in one process (AgentScope 0.1.6 imports
once): reads a JSON list of jobs on stdin, writes one JSON line per job.

A job: {"session": PATH, "formatter": CLASS, "method": METHOD,
"options": {...}} where METHOD is "chat", "multi_agent", "auto", "tools"
or "is_supported_model" (the session's "models"), and "options" is what
`oracle_v0.py` passes for CommonFormatter chat (both keys, as its CLI
always does there; absent elsewhere). Each answer is exactly what
`oracle_v0.py SESSION --formatter CLASS --method METHOD [--require-...]`
(or `--is-supported`) prints. Used by tests/fuzz_v0.rs (the differential
fuzz against AgentScope 0.1.6); copies of the reference team's oracle
files live beside it."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_v0  # noqa: E402


def main() -> int:
    jobs = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    out_stream = open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False)
    oracle_v0.setup()
    for job in jobs:
        try:
            out = oracle_v0.run(
                job["session"],
                job["formatter"],
                job["method"],
                options=job.get("options") or {},
                models=None,
                web_roots=[],
            )
        except SystemExit as e:  # a usage error of the oracle
            out = {"usage_error": str(e)}
        except Exception as e:  # noqa: BLE001  (the oracle itself failed)
            out = {"oracle_crash": f"{type(e).__name__}: {e}"}
        out_stream.write(json.dumps(out, ensure_ascii=False) + "\n")
        out_stream.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
