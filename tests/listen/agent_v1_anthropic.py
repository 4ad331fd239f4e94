#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""AgentScope 1.0.21: one ReActAgent ("Friday") with the get_weather tool and
InMemoryMemory on AnthropicChatModel (stream=True, max_tokens 2048, the
defaults) + AnthropicChatFormatter, two user turns. The base URL goes in
client_kwargs (handed to anthropic.AsyncAnthropic; the SDK appends /v1/messages).

    PY agent_v1_anthropic.py --provider-url http://127.0.0.1:P --otlp http://127.0.0.1:Q/v1/traces
"""
import asyncio

import _agent_common as common

args = common.parse_args(__doc__.split("\n\n")[0])

import agentscope
from agentscope.formatter import AnthropicChatFormatter
from agentscope.model import AnthropicChatModel


async def main() -> None:
    agentscope.init(project="formatscope-listen", name="v1_anthropic", run_id="listen-v1-anthropic", tracing_url=args.otlp)
    agent = common.v1_agent(
        "Friday",
        common.SYS_PROMPT,
        AnthropicChatModel(
            model_name="claude-sonnet-4-5",
            api_key="sk-listen-secret-7f3a",
            client_kwargs={"base_url": args.provider_url},
        ),
        AnthropicChatFormatter(),
    )
    await common.v1_ask(agent, args.turns or 2)


asyncio.run(main())
common.flush_and_exit()
