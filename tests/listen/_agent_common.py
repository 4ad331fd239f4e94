# -*- coding: utf-8 -*-
"""Shared bits of the agent_*.py scripts (imported from beside them).

Every script takes --provider-url URL (the fake provider's root, e.g.
http://127.0.0.1:PORT) and --otlp URL (the full OTLP/HTTP traces endpoint,
e.g. http://127.0.0.1:PORT/v1/traces), runs a fixed conversation against the
provider with AgentScope tracing pointed at the receiver, flushes the spans
and exits 0.
"""
from __future__ import annotations

import argparse
import os
import sys

# Export every 200 ms instead of every 5 s, so spans reach the receiver
# while the agent runs (read when the BatchSpanProcessor is built).
os.environ.setdefault("OTEL_BSP_SCHEDULE_DELAY", "200")

# Text that exercises the Msg repr parser: non-ASCII, both quote kinds,
# escapes, a character outside the BMP.
USER_TURNS = [
    "What's the weather in 東京?",
    'And tomorrow? Answer "yes" or "no".',
    'It\'s "cold" there, isn\'t it?\n\tPath: C:\\temp\\東京',
    "Thanks! 🌸 ありがとう",
]
SYS_PROMPT = "You are Friday, a helpful assistant. Use get_weather for weather questions."


def parse_args(description: str, extra=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--provider-url", required=True, help="fake provider root, http://127.0.0.1:PORT")
    ap.add_argument("--otlp", required=True, help="OTLP/HTTP traces endpoint, http://127.0.0.1:PORT/v1/traces")
    ap.add_argument("--turns", type=int, default=None, help="number of user turns (default: the script's)")
    if extra:
        extra(ap)
    args = ap.parse_args()
    args.provider_url = args.provider_url.rstrip("/")
    return args


def flush_and_exit() -> None:
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    ok = provider.force_flush() if hasattr(provider, "force_flush") else False
    if not ok:
        print("warning: force_flush did not complete", file=sys.stderr)
    if hasattr(provider, "shutdown"):
        provider.shutdown()
    sys.stdout.flush()
    sys.exit(0)
