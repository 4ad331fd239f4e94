#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""AgentScope 1.0.21: two ReActAgents ("Friday" and "Zoë O'Brien"), each with
the get_weather tool and InMemoryMemory, on OpenAIChatModel +
OpenAIMultiAgentFormatter, in a MsgHub with an announcement; two rounds of
both agents replying (each reply: a tool call, then an answer).

    PY agent_v1_hub.py --provider-url http://127.0.0.1:P --otlp http://127.0.0.1:Q/v1/traces
"""
import asyncio

import _agent_common as common

args = common.parse_args(__doc__.split("\n\n")[0])

import agentscope
from agentscope.formatter import OpenAIMultiAgentFormatter
from agentscope.message import Msg
from agentscope.model import OpenAIChatModel
from agentscope.pipeline import MsgHub


def make_agent(name: str, prompt: str):
    return common.v1_agent(
        name,
        prompt,
        OpenAIChatModel(
            model_name="gpt-4o-mini",
            api_key="sk-listen-secret-7f3a",
            client_kwargs={"base_url": args.provider_url + "/v1"},
        ),
        OpenAIMultiAgentFormatter(),
    )


async def main() -> None:
    agentscope.init(project="formatscope-listen", name="v1_hub", run_id="listen-v1-hub", tracing_url=args.otlp)
    friday = make_agent("Friday", "You are Friday. Discuss the weather with the others; use get_weather.")
    zoe = make_agent("Zoë O'Brien", "You are Zoë O'Brien, a travel planner in 東京. Use get_weather.")
    announcement = Msg("Host", "Let's plan a trip to 東京. What's the weather like? Say \"go\" or \"stay\".", "user")
    async with MsgHub(participants=[friday, zoe], announcement=announcement):
        for _ in range(args.turns or 2):
            for agent in (friday, zoe):
                reply = await agent()
                print(f"{agent.name}: {reply.get_text_content()!r}")


asyncio.run(main())
common.flush_and_exit()
