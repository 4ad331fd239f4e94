# -*- coding: utf-8 -*-
"""Shared bits of the agent_*.py scripts (imported from beside them).

Every script takes --provider-url URL (the fake provider's root, e.g.
http://127.0.0.1:PORT) and --otlp URL (the full OTLP/HTTP traces endpoint,
e.g. http://127.0.0.1:PORT/v1/traces), runs a fixed conversation against the
provider with AgentScope tracing pointed at the receiver, flushes the spans
and exits 0.

The v1_* helpers are the agent_v1_*.py scripts' common setup (AgentScope
1.0.21: a ReActAgent with the get_weather tool and InMemoryMemory, console
output off; the user turns asked one by one). They import agentscope when
called, so agent_v2.py (another AgentScope, another venv) imports this
module too. No `from __future__ import annotations` here: AgentScope reads
the tool function's annotations as real types to build its JSON schema.
"""
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


def v1_toolkit():
    """A 1.0.21 Toolkit holding get_weather (the tool every v1 agent has)."""
    from agentscope.message import TextBlock
    from agentscope.tool import Toolkit, ToolResponse

    def get_weather(city: str) -> ToolResponse:
        """Get the current weather of a city.

        Args:
            city (str): The city name, e.g. "東京".
        """
        return ToolResponse(content=[TextBlock(type="text", text=f"Sunny, 23 °C in {city}.")])

    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    return toolkit


def v1_agent(name: str, sys_prompt: str, model, formatter):
    """A 1.0.21 ReActAgent on `model` and `formatter`, with get_weather and
    InMemoryMemory, printing nothing to the console."""
    from agentscope.agent import ReActAgent
    from agentscope.memory import InMemoryMemory

    agent = ReActAgent(
        name=name,
        sys_prompt=sys_prompt,
        model=model,
        formatter=formatter,
        toolkit=v1_toolkit(),
        memory=InMemoryMemory(),
    )
    agent.set_console_output_enabled(False)
    return agent


async def v1_ask(agent, turns: int) -> None:
    """Asks `agent` the first `turns` of USER_TURNS, one by one, printing
    each reply's text."""
    from agentscope.message import Msg

    for text in USER_TURNS[:turns]:
        reply = await agent(Msg("user", text, "user"))
        print(f"{agent.name}: {reply.get_text_content()!r}")
