#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""AgentScope 1.0.21: one ReActAgent ("Friday") with the get_weather tool and
InMemoryMemory on DashScopeChatModel (stream=True, the default; model
qwen-max, so the text-generation endpoint) + DashScopeChatFormatter, two user
turns. The base URL goes in the constructor's base_http_api_url, which 1.0.21
writes to the process-wide dashscope.base_http_api_url (PROVIDER/api/v1).

    PY agent_v1_dashscope.py --provider-url http://127.0.0.1:P --otlp http://127.0.0.1:Q/v1/traces
"""
import asyncio

import _agent_common as common

args = common.parse_args(__doc__.split("\n\n")[0])

import agentscope
from agentscope.agent import ReActAgent
from agentscope.formatter import DashScopeChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg, TextBlock
from agentscope.model import DashScopeChatModel
from agentscope.tool import Toolkit, ToolResponse


def get_weather(city: str) -> ToolResponse:
    """Get the current weather of a city.

    Args:
        city (str): The city name, e.g. "東京".
    """
    return ToolResponse(content=[TextBlock(type="text", text=f"Sunny, 23 °C in {city}.")])


async def main() -> None:
    agentscope.init(project="formatscope-listen", name="v1_dashscope", run_id="listen-v1-dashscope", tracing_url=args.otlp)
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    agent = ReActAgent(
        name="Friday",
        sys_prompt=common.SYS_PROMPT,
        model=DashScopeChatModel(
            model_name="qwen-max",
            api_key="sk-listen-secret-7f3a",
            base_http_api_url=args.provider_url + "/api/v1",
        ),
        formatter=DashScopeChatFormatter(),
        toolkit=toolkit,
        memory=InMemoryMemory(),
    )
    agent.set_console_output_enabled(False)
    for text in common.USER_TURNS[: args.turns or 2]:
        reply = await agent(Msg("user", text, "user"))
        print(f"Friday: {reply.get_text_content()!r}")


asyncio.run(main())
common.flush_and_exit()
