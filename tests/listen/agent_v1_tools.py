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
from agentscope.formatter import OpenAIChatFormatter
from agentscope.model import OpenAIChatModel


async def main() -> None:
    agentscope.init(project="formatscope-listen", name="v1_tools", run_id="listen-v1-tools", tracing_url=args.otlp)
    agent = common.v1_agent(
        "Friday",
        common.SYS_PROMPT,
        OpenAIChatModel(
            model_name="gpt-4o",
            api_key="sk-listen-secret-7f3a",
            client_kwargs={"base_url": args.provider_url + "/v1"},
        ),
        OpenAIChatFormatter(),
    )
    await common.v1_ask(agent, args.turns or 4)


asyncio.run(main())
common.flush_and_exit()
