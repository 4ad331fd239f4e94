#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""AgentScope 2.0.11: one Agent ("Friday") with the get_weather FunctionTool
(permission ALLOW) on OpenAIChatModel (stream=True, the default; its default
OpenAIChatFormatter) with TracingMiddleware, two user turns. Tracing is set
up by hand (2.x has no agentscope.init): an SDK TracerProvider with
BatchSpanProcessor(OTLPSpanExporter(endpoint=OTLP)).

    PY agent_v2.py --provider-url http://127.0.0.1:P --otlp http://127.0.0.1:Q/v1/traces [--inject-state on|off]

--inject-state sets InjectionConfig(inject_runtime_state=...) (default in
2.0.11: on, which adds a `<system-reminder>` user message with the current
time to the request that the trace does not show; off: the requests can be
rebuilt from the trace).
"""
import asyncio

import _agent_common as common


def _extra(ap):
    ap.add_argument("--inject-state", choices=("on", "off"), default="off")


args = common.parse_args(__doc__.split("\n\n")[0], _extra)

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from agentscope.agent import Agent, InjectionConfig
from agentscope.credential import OpenAICredential
from agentscope.message import UserMsg
from agentscope.middleware import TracingMiddleware
from agentscope.model import OpenAIChatModel
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.state import AgentState
from agentscope.tool import FunctionTool, Toolkit


def get_weather(city: str) -> str:
    """Get the current weather of a city.

    Args:
        city (str): The city name, e.g. "東京".
    """
    return f"Sunny, 23 °C in {city}."


async def main() -> None:
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=args.otlp)))
    trace.set_tracer_provider(provider)

    toolkit = Toolkit(
        tools=[
            FunctionTool(
                get_weather,
                permission=PermissionDecision(behavior=PermissionBehavior.ALLOW, message="allowed by the test"),
            )
        ]
    )
    agent = Agent(
        name="Friday",
        system_prompt=common.SYS_PROMPT,
        model=OpenAIChatModel(
            credential=OpenAICredential(api_key="sk-listen-secret-7f3a", base_url=args.provider_url + "/v1"),
            model="gpt-4o",
        ),
        toolkit=toolkit,
        middlewares=[TracingMiddleware()],
        state=AgentState(session_id=f"listen-v2-{args.inject_state}"),
        injection_config=InjectionConfig(inject_runtime_state=args.inject_state == "on"),
    )
    for text in common.USER_TURNS[: args.turns or 2]:
        reply = await agent.reply(UserMsg(name="user", content=text))
        print(f"Friday: {reply.get_text_content()!r}")


asyncio.run(main())
common.flush_and_exit()
