#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""AgentScope 1.0.21: one ReActAgent ("Friday") with a get_weather tool and
InMemoryMemory on OpenAIChatModel (stream=True, the default) +
OpenAIChatFormatter, four user turns; tracing via agentscope.init(tracing_url=).

    PY agent_v1_tools.py --provider-url http://127.0.0.1:P --otlp http://127.0.0.1:Q/v1/traces
"""
import asyncio

import _agent_common as common

args = common.parse_args(__doc__.split("\n\n")[0])

import agentscope
from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg, TextBlock
from agentscope.model import OpenAIChatModel
from agentscope.tool import Toolkit, ToolResponse


def get_weather(city: str) -> ToolResponse:
    """Get the current weather of a city.

    Args:
        city (str): The city name, e.g. "東京".
    """
    return ToolResponse(content=[TextBlock(type="text", text=f"Sunny, 23 °C in {city}.")])


async def main() -> None:
    agentscope.init(project="formatscope-listen", name="v1_tools", run_id="listen-v1-tools", tracing_url=args.otlp)
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    agent = ReActAgent(
        name="Friday",
        sys_prompt=common.SYS_PROMPT,
        model=OpenAIChatModel(
            model_name="gpt-4o",
            api_key="sk-listen-secret-7f3a",
            client_kwargs={"base_url": args.provider_url + "/v1"},
        ),
        formatter=OpenAIChatFormatter(),
        toolkit=toolkit,
        memory=InMemoryMemory(),
    )
    agent.set_console_output_enabled(False)
    for text in common.USER_TURNS[: args.turns or 4]:
        reply = await agent(Msg("user", text, "user"))
        print(f"Friday: {reply.get_text_content()!r}")


asyncio.run(main())
common.flush_and_exit()
