#!/usr/bin/env python3
"""Runs many oracle questions in one process (AgentScope imports once):
reads a JSON list of jobs on stdin, writes one JSON line per job.

A job: {"session": PATH, "kind": "format" | "request", "formatter": CLASS,
"web_root": DIR} (+ for "request": "model", "tool_choice", "stream").
"format" is `oracle_v2.py SESSION --formatter CLASS --count --tools`;
"request" is `request_oracle_v2.py SESSION --formatter CLASS --model M
[--tool-choice ...] [--no-stream] [--model-kwargs ...]`.
Used by tests/fuzz_v2.rs (the differential fuzz against AgentScope
2.0.11); copies of the reference team's oracles live beside it."""
import json
import sys
import os

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle_v2  # noqa: E402
import request_oracle_v2  # noqa: E402


def main() -> int:
    jobs = json.load(sys.stdin)
    request_oracle_v2.setup()
    for job in jobs:
        try:
            if job["kind"] == "format":
                out = oracle_v2.run(
                    job["session"],
                    job["formatter"],
                    count=True,
                    tools=True,
                    options={},
                    web_roots=[job["web_root"]],
                )
            else:
                out = request_oracle_v2.run(
                    job["session"],
                    formatter_name=job["formatter"],
                    model=job.get("model"),
                    stream=job.get("stream"),
                    tool_choice=job.get("tool_choice"),
                    model_kwargs=job.get("model_kwargs") or {},
                    options={},
                    web_roots=[job["web_root"]],
                )
        except SystemExit as e:  # a usage error of the oracle
            out = {"usage_error": str(e)}
        finally:
            oracle_v2.cleanup_saved_files()
        sys.stdout.write(json.dumps(out, ensure_ascii=False, default=oracle_v2._json_default) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
