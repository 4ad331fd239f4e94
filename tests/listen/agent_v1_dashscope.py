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
from agentscope.formatter import DashScopeChatFormatter
from agentscope.model import DashScopeChatModel


async def main() -> None:
    agentscope.init(project="formatscope-listen", name="v1_dashscope", run_id="listen-v1-dashscope", tracing_url=args.otlp)
    agent = common.v1_agent(
        "Friday",
        common.SYS_PROMPT,
        DashScopeChatModel(
            model_name="qwen-max",
            api_key="sk-listen-secret-7f3a",
            base_http_api_url=args.provider_url + "/api/v1",
        ),
        DashScopeChatFormatter(),
    )
    await common.v1_ask(agent, args.turns or 2)


asyncio.run(main())
common.flush_and_exit()
