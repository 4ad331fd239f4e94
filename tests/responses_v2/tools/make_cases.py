#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""How tests/responses_v2/cases/*.json and plan.json were written.

The JSON files are the source of truth; this script documents them and can
rewrite them:

    python3 tests/responses_v2/tools/make_cases.py [--golden-v1 DIR]

* 43 cases are copied byte for byte from the AgentScope 1.0.21 response
  vectors (shared/golden/responses/cases, default /work/shared/golden/
  responses/cases) for the providers that map onto a 2.0.11 model class;
  the 1.0.21 DashScope cases (native DashScope API) do not apply and are
  not copied.
* the others are written below (2.x-only classes, DashScope's
  OpenAI-compatible API, audio, error events, ...). Ids, signatures and
  timestamps are invented but shaped like real ones.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------------------
# Cases copied from the 1.0.21 vectors: name -> (model class, stream, options, description)
# ---------------------------------------------------------------------------
COPIED: list[tuple[str, str, bool, dict, str]] = [
    ("openai_text", "OpenAIChatModel", False, {}, "plain text: one text block with a generated block id; id = the chatcmpl id; usage from prompt/completion tokens, cache_input_tokens from prompt_tokens_details.cached_tokens (0 here)"),
    ("openai_text_stream", "OpenAIChatModel", True, {}, "streamed text: one delta ChatResponse per content chunk, each holding only its fragment (same generated block id); the finish chunk and the usage-only (choices: []) chunk are absorbed, not yielded; the is_last response joins the text and carries the usage"),
    ("openai_tool_call", "OpenAIChatModel", False, {}, "one tool call, content null: a tool_call block whose input is the arguments STRING as sent (2.x never parses arguments in the model class)"),
    ("openai_tool_call_stream", "OpenAIChatModel", True, {}, "arguments split over 11 chunks: every chunk yields a tool_call delta holding just its fragment (the first one \"\"); the final input is the concatenation"),
    ("openai_parallel_tools", "OpenAIChatModel", False, {}, "text plus two parallel tool calls: text block first, then the tool_call blocks in call order"),
    ("openai_parallel_tools_stream", "OpenAIChatModel", True, {}, "two streamed tool calls keyed by index; fragments without an id are routed to the id first seen for their index"),
    ("openai_length_empty", "OpenAIChatModel", False, {}, "edge: empty content with finish_reason length: no blocks at all, usage kept; finished_reason stays \"completed\""),
    ("openai_reasoning_field_stream", "OpenAIChatModel", True, {"model_name": "Qwen/Qwen3-8B"}, "OpenAI-compatible server (vLLM-style) streaming `reasoning` instead of `reasoning_content`: OpenAIChatModel reads both, a thinking block ahead of the text"),
    ("openai_tool_args_keep_longer_stream", "OpenAIChatModel", True, {}, "1.0.21's repair / never-shrink rule is gone: the fragments (\"...tru\", \"e}\") are simply concatenated"),
    ("openai_invalid_args", "OpenAIChatModel", False, {}, "malformed tool arguments (python-style dict, a bare word, \"\") are kept verbatim as input strings, with no warning"),
    ("openai_stream_no_tool_parsing", "OpenAIChatModel", True, {}, "the 1.0.21 stream_tool_parsing=False vector; 2.x has no such option: a plain tool-call stream"),
    ("openai_structured", "OpenAIChatModel", False, {}, "the 1.0.21 response_format reply: in 2.x __call__ has no structured_model, the JSON is a plain text block and metadata stays {}"),
    ("openai_structured_stream", "OpenAIChatModel", True, {}, "the 1.0.21 structured stream: plain text deltas in 2.x"),
    ("openai_empty_reasoning_content", "OpenAIChatModel", False, {"model_name": "qwen-plus"}, "reasoning_content \"\": no thinking block in 2.x (1.0.21 added an empty one)"),
    ("openai_content_filter_stream", "OpenAIChatModel", True, {}, "edge: a stream with no content at all (content_filter): nothing but the is_last response, with empty content and the usage of the usage-only chunk"),
    ("deepseek_reasoner_text", "DeepSeekChatModel", False, {"model_name": "deepseek-reasoner"}, "DeepSeek reasoner: reasoning_content becomes a thinking block before the text; cache_input_tokens = prompt_cache_hit_tokens"),
    ("deepseek_reasoner_stream", "DeepSeekChatModel", True, {"model_name": "deepseek-reasoner"}, "streamed reasoning_content then content (the first delta's reasoning_content \"\" adds nothing); usage arrives on the finish chunk (choices not empty)"),
    ("deepseek_tool_call", "DeepSeekChatModel", False, {}, "DeepSeek tool call with content \"\": only the tool_call block (the empty text is dropped)"),
    ("deepseek_thinking_tools_stream", "DeepSeekChatModel", True, {"model_name": "deepseek-reasoner"}, "thinking mode with tools: thinking deltas, then two tool calls; usage in a separate choices: [] chunk (absorbed)"),
    ("anthropic_text", "AnthropicChatModel", False, {}, "plain text: one text block; id = msg id; usage input/output tokens plus cache_creation_input_tokens / cache_input_tokens (cache_read_input_tokens)"),
    ("anthropic_text_stream", "AnthropicChatModel", True, {}, "streamed text with a ping: one delta per text_delta; message_start / content_block_start(text) / message_delta yield nothing; the shared ChatUsage is updated in place by message_delta, so later chunks and the final show the new output_tokens"),
    ("anthropic_tool_use", "AnthropicChatModel", False, {}, "text then tool_use: input = json.dumps(input, ensure_ascii=False) of the object Anthropic sent"),
    ("anthropic_tool_use_stream", "AnthropicChatModel", True, {}, "tool_use streamed: content_block_start yields the block with input \"\", then one delta per input_json_delta (the first, empty, one too)"),
    ("anthropic_parallel_tools", "AnthropicChatModel", False, {}, "two tool_use blocks and no text"),
    ("anthropic_thinking", "AnthropicChatModel", False, {}, "extended thinking: thinking block with signature; redacted_thinking becomes a thinking block with thinking \"\" and redacted_thinking_data (1.0.21 dropped it); text after"),
    ("anthropic_thinking_stream", "AnthropicChatModel", True, {}, "streamed thinking + signature_delta (a thinking delta with thinking \"\" and the signature) + text + tool_use"),
    ("anthropic_max_tokens_empty", "AnthropicChatModel", False, {}, "edge: empty content list with stop_reason max_tokens: no blocks, usage kept"),
    ("gemini_text", "GeminiChatModel", False, {}, "plain text; id = responseId; output_tokens = candidatesTokenCount + thoughtsTokenCount"),
    ("gemini_text_stream", "GeminiChatModel", True, {}, "streamed text; every chunk carries usageMetadata; the last chunk's part (text \"\" + thoughtSignature) adds nothing: 2.x keeps no thought_signature on text"),
    ("gemini_function_call", "GeminiChatModel", False, {}, "function call with a thoughtSignature: the tool_call id is \"gemini_ts:\" + the base64 signature; input = json.dumps(args, ensure_ascii=False)"),
    ("gemini_parallel_calls", "GeminiChatModel", False, {}, "parallel calls, only the first signed: its id is gemini_ts:<sig>, the unsigned calls (no functionCall id) get GENERATED ids; a call with args {} gets input \"{}\"; text block before the calls"),
    ("gemini_thinking", "GeminiChatModel", False, {}, "include_thoughts: thought part -> thinking block, answer part -> text block (its thoughtSignature is dropped)"),
    ("gemini_thinking_stream", "GeminiChatModel", True, {}, "streamed thoughts, text, then a whole signed function call in the last chunk (Gemini never splits call arguments)"),
    ("gemini_max_tokens_empty", "GeminiChatModel", False, {}, "edge: MAX_TOKENS spent on thinking, candidate without content: no blocks; without candidatesTokenCount, output_tokens = totalTokenCount - promptTokenCount (1024)"),
    ("ollama_text", "OllamaChatModel", False, {}, "plain text; usage from prompt_eval_count/eval_count; Ollama has no response id (generated)"),
    ("ollama_text_stream", "OllamaChatModel", True, {}, "streamed NDJSON: every chunk yields with a usage (0/0 until the done chunk); the done chunk, with empty content, is absorbed and its usage reaches the final"),
    ("ollama_tool_call", "OllamaChatModel", False, {}, "tool call: arguments arrive as an object; input = json.dumps(arguments, ensure_ascii=False); the tool_call id is generated"),
    ("ollama_tool_call_stream", "OllamaChatModel", True, {}, "two tool calls streamed in separate chunks: each gets a fresh generated id (Ollama's own ids are dropped by the client)"),
    ("ollama_thinking_stream", "OllamaChatModel", True, {}, "think=true stream: the `thinking` field becomes a thinking block ahead of the text"),
    ("ollama_stream_error", "OllamaChatModel", True, {"model_name": "gemma3:4b"}, "an {\"error\"} line in the NDJSON stream: the SDK raises ResponseError after two chunks; no final response"),
    ("ollama_think_tags_in_content", "OllamaChatModel", False, {}, "deepseek-r1 without think: <think> tags stay inside the text block (no splitting in 2.x either)"),
    ("openai-responses_reasoning_text", "OpenAIResponseModel", False, {}, "Responses API: each reasoning summary part becomes its own thinking block carrying reasoning_item_id and reasoning_item_raw, then the output_text"),
    ("openai-responses_tool_stream", "OpenAIResponseModel", True, {"model_name": "gpt-4.1"}, "Responses API stream: tool_call id = call_id, one delta per arguments delta; usage only at response.completed; the response id stays GENERATED (the resp_ id is never read in streams)"),
]


def dump(path: str, obj) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2)
        fh.write("\n")


# ---------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------
def chat_completion(cid, model, message, finish="stop", usage=None, created=1763800000, **extra):
    body = {
        "id": cid,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "logprobs": None, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    body.update(extra)
    return body


class ChunkMaker:
    """chat.completion.chunk payloads of one stream."""

    def __init__(self, cid, model, created=1763800000, **extra):
        self.cid, self.model, self.created, self.extra = cid, model, created, extra

    def __call__(self, delta=None, finish=None, usage="absent", choices=True, choice_extra=None):
        chunk = {"id": self.cid, "object": "chat.completion.chunk", "created": self.created, "model": self.model}
        chunk.update(self.extra)
        if choices:
            choice = {"index": 0, "delta": delta if delta is not None else {}, "logprobs": None, "finish_reason": finish}
            if choice_extra:
                choice.update(choice_extra)
            chunk["choices"] = [choice]
        else:
            chunk["choices"] = []
        if usage != "absent":
            chunk["usage"] = usage
        return chunk


def tc(index, args=None, cid=None, name=None, typ="function"):
    call = {"index": index}
    if cid is not None:
        call["id"] = cid
    if typ is not None:
        call["type"] = typ
    fn = {}
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    call["function"] = fn
    return call


def oa_usage(prompt, completion, cached=None, reasoning=None, **extra):
    u = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if cached is not None:
        u["prompt_tokens_details"] = {"cached_tokens": cached}
    if reasoning is not None:
        u["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    u.update(extra)
    return u


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def pcm(seed: int, n: int) -> bytes:
    """n bytes of deterministic 16-bit little-endian 'PCM'."""
    return bytes((seed * 37 + i * 11) % 256 for i in range(n))


def anthropic_message_start(mid, model, input_tokens, output_tokens=1, cache_creation=0, cache_read=0):
    return {
        "type": "message_start",
        "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "cache_creation_input_tokens": cache_creation,
                      "cache_read_input_tokens": cache_read, "output_tokens": output_tokens},
        },
    }


# ---------------------------------------------------------------------------
# New cases
# ---------------------------------------------------------------------------
def new_cases() -> list[tuple[str, str, bool, dict, str, object]]:
    out: list[tuple[str, str, bool, dict, str, object]] = []

    def add(name, cls, stream, options, description, data):
        out.append((name, cls, stream, options, description, data))

    # ---------------- OpenAIChatModel -------------------------------------
    audio_pcm = pcm(1, 48)
    add("openai_audio", "OpenAIChatModel", False, {"model_name": "gpt-audio-mini", "voice": "alloy"},
        "audio output (Parameters.voice forces format pcm16): content null, so the transcript becomes the text block; the PCM is wrapped in a 44-byte WAV header with real sizes -> data block audio/wav",
        chat_completion("chatcmpl-CfA1u2D3i4O5a6U7d8I9o0Au1", "gpt-audio-mini-2025-10-06",
                        {"content": None, "refusal": None, "annotations": [],
                         "audio": {"id": "audio_6920f1a2b3c48190a1b2c3d4e5f60718", "data": b64(audio_pcm),
                                   "expires_at": 1763803600, "transcript": "It's sunny in Tokyo, 21 degrees."}},
                        usage=oa_usage(31, 64, cached=0), service_tier="default", system_fingerprint=None))

    mk = ChunkMaker("chatcmpl-CfA2s3T4r5E6a7M8a9U0d1I2o", "gpt-audio-mini-2025-10-06", service_tier="default", system_fingerprint=None)
    add("openai_audio_stream", "OpenAIChatModel", True, {"model_name": "gpt-audio-mini", "voice": "alloy"},
        "streamed audio: delta.audio.transcript fragments become text, delta.audio.data PCM becomes a data block (audio/wav); the first audio delta is prefixed with a streaming WAV header (sizes 0xFFFFFFFF), the final joins the bytes and writes the real sizes",
        [
            mk({"role": "assistant", "content": None, "refusal": None, "audio": {"id": "audio_6920f2b3c4d58190b2c3d4e5f6071829", "transcript": "Sunny"}}, usage=None),
            mk({"audio": {"transcript": " and 21"}}, usage=None),
            mk({"audio": {"data": b64(pcm(2, 30))}}, usage=None),
            mk({"audio": {"transcript": " degrees."}}, usage=None),
            mk({"audio": {"data": b64(pcm(3, 22))}}, usage=None),
            mk({"audio": {"expires_at": 1763803700}}, usage=None),
            mk({}, finish="stop", usage=None),
            mk(choices=False, usage=oa_usage(31, 70, cached=0)),
            "[DONE]",
        ])

    mk = ChunkMaker("chatcmpl-CfA3e4R5r6O7r8E9v0E1n2T3s", "gpt-4o-2024-08-06", service_tier="default", system_fingerprint="fp_cbf1785567")
    add("openai_error_event_stream", "OpenAIChatModel", True, {},
        "an SSE payload with an \"error\" key mid-stream: the SDK raises APIError (message from error.message) after two text deltas; no final",
        [
            mk({"role": "assistant", "content": "", "refusal": None}, usage=None),
            mk({"content": "The weather"}, usage=None),
            mk({"content": " in Tokyo is"}, usage=None),
            {"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error", "param": None, "code": None}},
            "[DONE]",
        ])

    mk = ChunkMaker("chatcmpl-CfA4z5U6r7E8f9I0l1T2e3R4s", "gpt-4o-2024-11-20", system_fingerprint="fp_ee1d74bde0")
    prompt_filter = [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}, "self_harm": {"filtered": False, "severity": "safe"}, "sexual": {"filtered": False, "severity": "safe"}, "violence": {"filtered": False, "severity": "safe"}}}]
    first = {"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": prompt_filter}
    add("openai_empty_choices_stream", "OpenAIChatModel", True, {},
        "Azure-style stream opening with an empty-choices chunk (id \"\", prompt_filter_results, no usage): yields nothing, and its empty id does not replace the generated one; then text and a usage-only chunk",
        [
            first,
            mk({"role": "assistant", "content": ""}, usage=None),
            mk({"content": "Tokyo: 21 °C"}, usage=None),
            mk({"content": ", clear skies."}, usage=None),
            mk({}, finish="stop", usage=None),
            mk(choices=False, usage=oa_usage(19, 9, cached=0)),
            "[DONE]",
        ])

    add("openai_http_400_error", "OpenAIChatModel", False, {"http_status": 400},
        "HTTP 400 with an OpenAI error body: the SDK raises BadRequestError before AgentScope parses anything (not retried)",
        {"error": {"message": "Invalid schema for function 'get_weather': 'unit' is not valid under any of the given schemas.", "type": "invalid_request_error", "param": "tools[0].function.parameters", "code": "invalid_function_parameters"}})

    # ---------------- DashScopeChatModel (compatible-mode) ---------------
    add("dashscope_text", "DashScopeChatModel", False, {},
        "DashScope compatible-mode chat.completion (Chinese text): one text block; id = chatcmpl id; cache_input_tokens from prompt_tokens_details.cached_tokens",
        chat_completion("chatcmpl-7c1e4b2a-9d3f-4e8a-b6c5-2f1a0e9d8c7b", "qwen-plus",
                        {"content": "东京今天晴，气温 21°C，适合出门散步。"},
                        usage=oa_usage(26, 17, cached=16), system_fingerprint=None, created=1763801000))

    mk = ChunkMaker("chatcmpl-0b9a8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d", "qwen-plus", created=1763801010, system_fingerprint=None)
    add("dashscope_text_stream", "DashScopeChatModel", True, {},
        "compatible-mode stream with include_usage: text deltas, the finish chunk (content \"\") and the usage-only chunk (choices []) are absorbed; usage reaches the final",
        [
            mk({"content": "", "role": "assistant"}, usage=None),
            mk({"content": "东京"}, usage=None),
            mk({"content": "今天晴，"}, usage=None),
            mk({"content": "气温 21°C。"}, usage=None),
            mk({"content": ""}, finish="stop", usage=None),
            mk(choices=False, usage=oa_usage(26, 12, cached=0)),
            "[DONE]",
        ])

    add("dashscope_thinking", "DashScopeChatModel", False, {"model_name": "qwen3.6-plus"},
        "non-streamed reasoning_content: a thinking block before the text (1.0.21's native-API parser dropped it)",
        chat_completion("chatcmpl-5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c", "qwen3.6-plus",
                        {"content": "1013 是质数。", "reasoning_content": "检查 1013 能否被 2 到 31 之间的质数整除：都不能，所以是质数。"},
                        usage=oa_usage(18, 96, reasoning=71), system_fingerprint=None, created=1763801020))

    mk = ChunkMaker("chatcmpl-3f2e1d0c-9b8a-4765-8432-10fedcba9876", "qwen3.6-plus", created=1763801030, system_fingerprint=None)
    add("dashscope_thinking_stream", "DashScopeChatModel", True, {"model_name": "qwen3.6-plus"},
        "enable_thinking stream: reasoning_content deltas (content null) then content deltas (reasoning_content null): thinking block then text block; usage from the usage-only chunk",
        [
            mk({"content": None, "role": "assistant", "reasoning_content": ""}, usage=None),
            mk({"content": None, "reasoning_content": "用户问东京天气，"}, usage=None),
            mk({"content": None, "reasoning_content": "需要调用工具吗？已有数据，直接回答。"}, usage=None),
            mk({"content": "东京晴，", "reasoning_content": None}, usage=None),
            mk({"content": "21°C。", "reasoning_content": None}, usage=None),
            mk({"content": "", "reasoning_content": None}, finish="stop", usage=None),
            mk(choices=False, usage=oa_usage(30, 41, reasoning=29, prompt_tokens_details={"cached_tokens": 0})),
            "[DONE]",
        ])

    add("dashscope_tool_call", "DashScopeChatModel", False, {},
        "non-streamed tool call with content \"\": only the tool_call block, input = the arguments string",
        chat_completion("chatcmpl-8a7b6c5d-4e3f-4201-9fed-cba987654321", "qwen-plus",
                        {"content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": "{\"city\": \"杭州\"}"}, "index": 0, "id": "call_4d2b9f3e8a1c4e7f9b0a6d21", "type": "function"}]},
                        finish="tool_calls", usage=oa_usage(214, 19), system_fingerprint=None, created=1763801040))

    mk = ChunkMaker("chatcmpl-1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "qwen-plus", created=1763801050, system_fingerprint=None)
    add("dashscope_tool_call_stream", "DashScopeChatModel", True, {},
        "DashScope-style tool stream: later fragments carry id \"\" and an empty name (routed by index to the first id), a trailing fragment with arguments null adds \"\"; usage-only chunk at the end",
        [
            mk({"content": None, "role": "assistant", "tool_calls": [tc(0, "", "call_9e8d7c6b5a4f4e3d2c1b0a99", "get_weather")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(0, "{\"city\": \"", "", "")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(0, "杭州\", \"unit\": ", "", "")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(0, "\"celsius\"}", "", "")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(0, None, "", None)]}, usage=None),
            mk({"content": ""}, finish="tool_calls", usage=None),
            mk(choices=False, usage=oa_usage(214, 24)),
            "[DONE]",
        ])

    mk = ChunkMaker("chatcmpl-6f5e4d3c-2b1a-4098-8765-43210fedcba9", "qwen3.6-plus", created=1763801060, system_fingerprint=None)
    add("dashscope_parallel_tools_stream", "DashScopeChatModel", True, {"model_name": "qwen3.6-plus"},
        "two tool calls by index, interleaved, the second opening with arguments \"\"; text before them",
        [
            mk({"content": "我来查一下两座城市。", "role": "assistant"}, usage=None),
            mk({"content": None, "tool_calls": [tc(0, "{\"city\": \"北京\"}", "call_a1b2c3d4e5f6478899aabbcc", "get_weather")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(1, "", "call_ddeeff00112233445566aabb", "get_weather")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(1, "{\"city\": ", "", "")]}, usage=None),
            mk({"content": None, "tool_calls": [tc(1, "\"上海\"}", "", "")]}, usage=None),
            mk({"content": ""}, finish="tool_calls", usage=None),
            mk(choices=False, usage=oa_usage(240, 52)),
            "[DONE]",
        ])

    mk = ChunkMaker("chatcmpl-2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", "qwen3.5-omni-plus", created=1763801070, system_fingerprint=None)
    add("dashscope_omni_audio_stream", "DashScopeChatModel", True, {"model_name": "qwen3.5-omni-plus", "voice": "Cherry"},
        "qwen-omni audio stream: delta.audio.transcript goes into the text block, delta.audio.data PCM into one data block (audio/wav, streaming WAV header on the first piece, real sizes in the final)",
        [
            mk({"content": None, "role": "assistant", "audio": {"transcript": "东京"}}, usage=None),
            mk({"content": None, "audio": {"data": b64(pcm(4, 26)), "expires_at": 1763804670, "id": "audio_2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"}}, usage=None),
            mk({"content": None, "audio": {"transcript": "今天晴。"}}, usage=None),
            mk({"content": None, "audio": {"data": b64(pcm(5, 18)), "expires_at": 1763804670, "id": "audio_2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d"}}, usage=None),
            mk({"content": None}, finish="stop", usage=None),
            mk(choices=False, usage=oa_usage(40, 210, prompt_tokens_details={"text_tokens": 40}, completion_tokens_details={"audio_tokens": 190, "text_tokens": 20})),
            "[DONE]",
        ])

    mk = ChunkMaker("chatcmpl-9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "qwen-plus", created=1763801080, system_fingerprint=None)
    add("dashscope_error_event_stream", "DashScopeChatModel", True, {},
        "compatible-mode error payload mid-stream (data_inspection_failed): the openai SDK raises APIError after one text delta; no final",
        [
            mk({"content": "", "role": "assistant"}, usage=None),
            mk({"content": "关于这个问题，"}, usage=None),
            {"error": {"code": "data_inspection_failed", "param": None, "message": "Output data may contain inappropriate content.", "type": "data_inspection_failed"}, "id": "chatcmpl-9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "request_id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"},
        ])

    add("dashscope_length_empty", "DashScopeChatModel", False, {},
        "edge: finish_reason length with content \"\": no blocks, usage kept",
        chat_completion("chatcmpl-4b3a2918-0f1e-4d2c-8b3a-291807f6e5d4", "qwen-plus", {"content": ""},
                        finish="length", usage=oa_usage(26, 0), system_fingerprint=None, created=1763801090))

    # ---------------- MoonshotChatModel ----------------------------------
    add("moonshot_text", "MoonshotChatModel", False, {},
        "Kimi text reply; Moonshot reports cache hits as usage.cached_tokens (top level), which 2.x does not read: cache_input_tokens 0",
        chat_completion("chatcmpl-6920a1b2c3d4e5f6a7b8c9d0", "kimi-k2.5", {"content": "东京今天晴，21°C。"},
                        usage=oa_usage(24, 11, cached_tokens=16), created=1763802000))

    mk = ChunkMaker("chatcmpl-6920a2b3c4d5e6f7a8b9c0d1", "kimi-k2.5", created=1763802010, system_fingerprint="fpv0_ff52a3d4")
    add("moonshot_text_stream", "MoonshotChatModel", True, {},
        "Kimi stream: usage arrives inside choices[0].usage of the finish chunk (no top-level usage), which 2.x never reads: the final has usage null",
        [
            mk({"role": "assistant", "content": ""}),
            mk({"content": "Tokyo is"}),
            mk({"content": " sunny, 21 °C."}),
            mk({}, finish="stop", choice_extra={"usage": oa_usage(24, 8, cached_tokens=0)}),
            "[DONE]",
        ])

    add("moonshot_thinking", "MoonshotChatModel", False, {"model_name": "kimi-k2.6"},
        "kimi thinking model, non-streamed: reasoning_content -> thinking block, then text",
        chat_completion("chatcmpl-6920a3b4c5d6e7f8a9b0c1d2", "kimi-k2.6",
                        {"content": "1013 is prime.", "reasoning_content": "Trial division by primes up to 31 finds no divisor."},
                        usage=oa_usage(20, 44, cached_tokens=0, prompt_tokens_details={"cached_tokens": 0}), created=1763802020))

    add("moonshot_tool_call", "MoonshotChatModel", False, {},
        "Kimi tool call id in Kimi's own format (functions.get_weather:0), kept verbatim; text before it",
        chat_completion("chatcmpl-6920a4b5c6d7e8f9a0b1c2d3", "kimi-k2.5",
                        {"content": "Let me look that up.", "tool_calls": [{"index": 0, "id": "functions.get_weather:0", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Tokyo\"}"}}]},
                        finish="tool_calls", usage=oa_usage(180, 22, cached_tokens=0), created=1763802030))

    mk = ChunkMaker("chatcmpl-6920a5b6c7d8e9f0a1b2c3d4", "kimi-k2.6", created=1763802040, system_fingerprint="fpv0_ff52a3d4")
    add("moonshot_thinking_tools_stream", "MoonshotChatModel", True, {"model_name": "kimi-k2.6"},
        "Kimi thinking stream with two tool calls (ids functions.NAME:N) whose arguments are split; the usage sits in choices[0].usage and is lost",
        [
            mk({"role": "assistant", "content": "", "reasoning_content": "Need weather"}),
            mk({"reasoning_content": " and time for Tokyo."}),
            mk({"tool_calls": [tc(0, "", "functions.get_weather:0", "get_weather")]}),
            mk({"tool_calls": [tc(0, "{\"city\":", None, None, typ=None)]}),
            mk({"tool_calls": [tc(0, "\"Tokyo\"}", None, None, typ=None)]}),
            mk({"tool_calls": [tc(1, "", "functions.get_time:1", "get_time")]}),
            mk({"tool_calls": [tc(1, "{\"timezone\":\"Asia/Tokyo\"}", None, None, typ=None)]}),
            mk({}, finish="tool_calls", choice_extra={"usage": oa_usage(210, 58, cached_tokens=192)}),
            "[DONE]",
        ])

    # ---------------- VolcengineChatModel --------------------------------
    add("volcengine_text", "VolcengineChatModel", False, {},
        "Doubao (Ark) text reply: usage with prompt_tokens_details.cached_tokens -> cache_input_tokens",
        chat_completion("021763803000123456789abcdef0123456789abcdef01234567", "doubao-seed-2-1-pro-260628",
                        {"content": "东京今天晴，21°C。"},
                        usage=oa_usage(30, 12, cached=8, reasoning=0), service_tier="default", created=1763803000))

    add("volcengine_thinking", "VolcengineChatModel", False, {},
        "Doubao deep thinking, non-streamed, with a tool call: thinking block, then the tool_call (content \"\" dropped)",
        chat_completion("021763803010123456789abcdef0123456789abcdef01234568", "doubao-seed-2-1-pro-260628",
                        {"content": "", "reasoning_content": "用户要东京天气，调用 get_weather。",
                         "tool_calls": [{"id": "call_k7m2p9q4r1s8t5u3v6w0x2y4", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"东京\"}"}}]},
                        finish="tool_calls", usage=oa_usage(190, 40, cached=0, reasoning=22), service_tier="default", created=1763803010))

    mk = ChunkMaker("021763803020123456789abcdef0123456789abcdef01234569", "doubao-seed-2-1-pro-260628", created=1763803020, service_tier="default")
    add("volcengine_thinking_stream", "VolcengineChatModel", True, {},
        "Doubao thinking stream: reasoning_content deltas then content deltas; the usage-only chunk (choices []) is absorbed into the final",
        [
            mk({"content": "", "reasoning_content": "先确认", "role": "assistant"}, usage=None),
            mk({"content": "", "reasoning_content": "城市是东京。"}, usage=None),
            mk({"content": "东京晴，", "role": "assistant"}, usage=None),
            mk({"content": "21°C。", "role": "assistant"}, usage=None),
            mk({"content": "", "role": "assistant"}, finish="stop", usage=None),
            mk(choices=False, usage=oa_usage(30, 25, cached=0, reasoning=9)),
            "[DONE]",
        ])

    mk = ChunkMaker("021763803030123456789abcdef0123456789abcdef01234570", "doubao-seed-2-1-pro-260628", created=1763803030, service_tier="default")
    add("volcengine_tool_call_stream", "VolcengineChatModel", True, {},
        "Ark tool stream: id and name only on the first fragment, arguments over four chunks; usage-only chunk at the end",
        [
            mk({"content": "", "role": "assistant", "tool_calls": [tc(0, "", "call_v3n8b1m6k4j2h9g7f5d0s3a1", "get_weather")]}, usage=None),
            mk({"content": "", "tool_calls": [tc(0, "{\"ci", None, None, typ=None)]}, usage=None),
            mk({"content": "", "tool_calls": [tc(0, "ty\":\"Tok", None, None, typ=None)]}, usage=None),
            mk({"content": "", "tool_calls": [tc(0, "yo\",\"unit\":\"celsius\"", None, None, typ=None)]}, usage=None),
            mk({"content": "", "tool_calls": [tc(0, "}", None, None, typ=None)]}, usage=None),
            mk({"content": ""}, finish="tool_calls", usage=None),
            mk(choices=False, usage=oa_usage(188, 31, cached=0, reasoning=0)),
            "[DONE]",
        ])

    mk = ChunkMaker("021763803040123456789abcdef0123456789abcdef01234571", "doubao-seed-2-1-pro-260628", created=1763803040, service_tier="default")
    add("volcengine_error_event_stream", "VolcengineChatModel", True, {},
        "Ark error payload mid-stream (SensitiveContentDetected): APIError after one delta; no final",
        [
            mk({"content": "好的，", "role": "assistant"}, usage=None),
            {"error": {"code": "OutputTextSensitiveContentDetected", "message": "The request failed because the output text may contain sensitive information. Request id: 021763803040123456789abcdef0123456789abcdef01234571", "param": "", "type": "BadRequest"}},
        ])

    # ---------------- MiniMaxChatModel (Anthropic protocol) --------------
    add("minimax_text", "MiniMaxChatModel", False, {},
        "MiniMax Anthropic-compatible message: thinking block (signature kept) then text; usage without cache fields -> 0",
        {"id": "05b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5", "type": "message", "role": "assistant", "model": "MiniMax-M2.7",
         "content": [{"type": "thinking", "thinking": "The user asks about Tokyo weather; answer briefly.", "signature": "c2lnbmF0dXJlLW1pbmltYXgtMDE="},
                     {"type": "text", "text": "Tokyo is sunny today, around 21 °C."}],
         "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 41, "output_tokens": 37}})

    add("minimax_tool_use", "MiniMaxChatModel", False, {},
        "MiniMax tool_use block: input re-serialised with json.dumps(ensure_ascii=False) (non-ASCII kept)",
        {"id": "05b1c2d3e4f5a6b7c8d9e0f1a2b3c4d6", "type": "message", "role": "assistant", "model": "MiniMax-M2.7",
         "content": [{"type": "thinking", "thinking": "Call get_weather for 東京.", "signature": "c2lnbmF0dXJlLW1pbmltYXgtMDI="},
                     {"type": "tool_use", "id": "call_function_8k2j5h7g9f1d_1", "name": "get_weather", "input": {"city": "東京", "unit": "celsius"}}],
         "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 210, "output_tokens": 45}})

    mid = "05b1c2d3e4f5a6b7c8d9e0f1a2b3c4d7"
    add("minimax_thinking_stream", "MiniMaxChatModel", True, {},
        "MiniMax stream: thinking deltas, signature_delta, text deltas; output_tokens updated in place by message_delta",
        [
            anthropic_message_start(mid, "MiniMax-M2.7", 41, 0),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Short answer"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": " is enough."}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJlLW1pbmltYXgtMDM="}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Sunny,"}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": " 21 °C."}},
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 19}},
            {"type": "message_stop"},
        ])

    mid = "05b1c2d3e4f5a6b7c8d9e0f1a2b3c4d8"
    add("minimax_tool_use_stream", "MiniMaxChatModel", True, {},
        "MiniMax tool_use stream: block opened with input \"\" at content_block_start, input_json_delta fragments after",
        [
            anthropic_message_start(mid, "MiniMax-M2.7", 205, 0),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "call_function_3m6n9b2v5c8x_1", "name": "get_time", "input": {}}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"timezone\": "}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "\"Asia/Tokyo\"}"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 28}},
            {"type": "message_stop"},
        ])

    mid = "05b1c2d3e4f5a6b7c8d9e0f1a2b3c4d9"
    add("minimax_error_event_stream", "MiniMaxChatModel", True, {},
        "an SSE `event: error` frame after one text delta: the anthropic SDK raises APIStatusError (its message is the error body's repr); no final",
        [
            anthropic_message_start(mid, "MiniMax-M2.7", 41, 0),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Tokyo"}},
            {"type": "error", "error": {"type": "overloaded_error", "message": "The server cluster is currently under high load. Please retry after a short wait. (2064)"}},
        ])

    # ---------------- AnthropicChatModel extras --------------------------
    mid = "msg_01Jv9kL1mN3oP5qR7sT9uV1w"
    add("anthropic_error_event_stream", "AnthropicChatModel", True, {},
        "overloaded_error event mid-stream: APIStatusError after the text deltas yielded so far; no final",
        [
            anthropic_message_start(mid, "claude-sonnet-4-6", 25),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "ping"},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Tokyo is"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " currently"}},
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011CUxYz1a2b3c4d5e6f7g8h"},
        ])

    mid = "msg_01Kw0lM2nO4pQ6rS8tU0vW2x"
    add("anthropic_tool_no_args_stream", "AnthropicChatModel", True, {},
        "a tool_use without input_json_delta (no-argument call): content_block_stop adds the input \"{}\", so the final input is \"{}\"; a second call with arguments gets no extra \"{}\"; cache usage fields from message_start",
        [
            anthropic_message_start(mid, "claude-sonnet-4-6", 310, 4, cache_creation=1024, cache_read=2048),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_01Lx1mN3oP5qR7sT9uV1wX3y", "name": "list_cities", "input": {}}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01My2nO4pQ6rS8tU0vW2xY4z", "name": "get_weather", "input": {}}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Tokyo\"}"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 61}},
            {"type": "message_stop"},
        ])

    mid = "msg_01Nz3oP5qR7sT9uV1wX3yZ5a"
    add("anthropic_redacted_thinking_stream", "AnthropicChatModel", True, {},
        "redacted_thinking at content_block_start: a thinking delta with thinking \"\" and redacted_thinking_data; then a signed thinking block and text",
        [
            anthropic_message_start(mid, "claude-sonnet-4-6", 52),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgyRedactedPayloadForOracleA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4Y5z6"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "thinking_delta", "thinking": "Answer directly."}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkDoracleSignatureZ9y8X7w6V5u4T3s2R1q0P"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Yes."}},
            {"type": "content_block_stop", "index": 2},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 90}},
            {"type": "message_stop"},
        ])

    # ---------------- GeminiChatModel extras -----------------------------
    rid = "Yq1wcf2rO8-Yz7IPa1b2c3d"
    um = {"promptTokenCount": 52, "totalTokenCount": 52, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 52}]}
    add("gemini_function_call_stream", "GeminiChatModel", True, {},
        "unsigned function calls streamed (gemini-2.5-flash without thinking): the tool_call ids are GENERATED; a chunk with no parts but usageMetadata is absorbed; cachedContentTokenCount -> cache_input_tokens",
        [
            {"candidates": [{"content": {"parts": [{"text": "Checking both."}], "role": "model"}, "index": 0}], "usageMetadata": um, "modelVersion": "gemini-2.5-flash", "responseId": rid},
            {"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Tokyo"}}}, {"functionCall": {"name": "get_time", "args": {"timezone": "Asia/Tokyo"}}}], "role": "model"}, "index": 0}], "usageMetadata": um, "modelVersion": "gemini-2.5-flash", "responseId": rid},
            {"candidates": [{"content": {"role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 52, "candidatesTokenCount": 31, "totalTokenCount": 83, "cachedContentTokenCount": 32, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 52}]}, "modelVersion": "gemini-2.5-flash", "responseId": rid},
        ])

    add("gemini_http_429_error", "GeminiChatModel", False, {"http_status": 429},
        "HTTP 429 RESOURCE_EXHAUSTED: google-genai raises ClientError (retryable for AgentScope, but max_retries=0)",
        {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}})

    # ---------------- OllamaChatModel extra ------------------------------
    add("ollama_thinking", "OllamaChatModel", False, {},
        "think=true non-streamed: message.thinking -> thinking block before the text",
        {"model": "qwen3:8b", "created_at": "2026-11-22T10:20:00.000000Z",
         "message": {"role": "assistant", "content": "Water boils at 100 °C at sea level.", "thinking": "Standard pressure, so 100 °C."},
         "done_reason": "stop", "done": True, "total_duration": 2883583458, "load_duration": 1334875,
         "prompt_eval_count": 21, "prompt_eval_duration": 142546000, "eval_count": 33, "eval_duration": 2535599000})

    # ---------------- OpenAIResponseModel extras -------------------------
    rid = "resp_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d"
    resp_base = {"id": rid, "object": "response", "created_at": 1763804000, "model": "o4-mini-2025-04-16", "output": [], "usage": None}
    reasoning_item = {"id": "rs_0a1b2c3d4e5f", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Answering**\n\nTokyo weather is known."}]}
    message_item = {"id": "msg_0a1b2c3d4e60", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny, 21 °C.", "annotations": [], "logprobs": []}]}
    add("openai-responses_text_stream", "OpenAIResponseModel", True, {},
        "Responses stream: reasoning summary deltas -> thinking, output_text deltas -> text; response.completed adds usage and a thinking delta (thinking \"\") carrying reasoning_item_id / reasoning_item_raw onto the same block",
        [
            {"type": "response.created", "sequence_number": 0, "response": {**resp_base, "status": "in_progress"}},
            {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "rs_0a1b2c3d4e5f", "type": "reasoning", "summary": []}},
            {"type": "response.reasoning_summary_part.added", "sequence_number": 2, "item_id": "rs_0a1b2c3d4e5f", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", "sequence_number": 3, "item_id": "rs_0a1b2c3d4e5f", "output_index": 0, "summary_index": 0, "delta": "**Answering**\n\n"},
            {"type": "response.reasoning_summary_text.delta", "sequence_number": 4, "item_id": "rs_0a1b2c3d4e5f", "output_index": 0, "summary_index": 0, "delta": "Tokyo weather is known."},
            {"type": "response.output_item.done", "sequence_number": 5, "output_index": 0, "item": reasoning_item},
            {"type": "response.output_item.added", "sequence_number": 6, "output_index": 1, "item": {"id": "msg_0a1b2c3d4e60", "type": "message", "status": "in_progress", "role": "assistant", "content": []}},
            {"type": "response.output_text.delta", "sequence_number": 7, "item_id": "msg_0a1b2c3d4e60", "output_index": 1, "content_index": 0, "delta": "Sunny,", "logprobs": []},
            {"type": "response.output_text.delta", "sequence_number": 8, "item_id": "msg_0a1b2c3d4e60", "output_index": 1, "content_index": 0, "delta": " 21 °C.", "logprobs": []},
            {"type": "response.output_text.done", "sequence_number": 9, "item_id": "msg_0a1b2c3d4e60", "output_index": 1, "content_index": 0, "text": "Sunny, 21 °C.", "logprobs": []},
            {"type": "response.completed", "sequence_number": 10, "response": {**resp_base, "status": "completed", "output": [reasoning_item, message_item],
                                                                                "usage": {"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 90, "output_tokens_details": {"reasoning_tokens": 64}, "total_tokens": 110}}},
        ])

    add("openai-responses_error_event_stream", "OpenAIResponseModel", True, {},
        "an `error` event (the SDK passes it through): OpenAIResponseModel raises openai.APIError itself; no final",
        [
            {"type": "response.created", "sequence_number": 0, "response": {**resp_base, "id": "resp_0b1c2d3e4f5a", "status": "in_progress"}},
            {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "msg_0b1c2d3e4f5b", "type": "message", "status": "in_progress", "role": "assistant", "content": []}},
            {"type": "response.output_text.delta", "sequence_number": 2, "item_id": "msg_0b1c2d3e4f5b", "output_index": 0, "content_index": 0, "delta": "Sunny", "logprobs": []},
            {"type": "error", "sequence_number": 3, "code": "server_error", "message": "The model produced invalid content.", "param": None},
        ])

    add("openai-responses_tool_call", "OpenAIResponseModel", False, {"model_name": "gpt-4.1"},
        "non-streamed Responses function_call items: tool_call id = call_id, input = arguments; a call with arguments \"\" gets input \"{}\"; cache_input_tokens from input_tokens_details.cached_tokens",
        {"id": "resp_0c1d2e3f4a5b6c7d", "object": "response", "created_at": 1763804100, "status": "completed", "model": "gpt-4.1-2025-04-14",
         "output": [
             {"id": "fc_0c1d2e3f4a5b", "type": "function_call", "status": "completed", "arguments": "{\"city\":\"Tokyo\"}", "call_id": "call_Xy7zA1bC3dE5fG7h", "name": "get_weather"},
             {"id": "fc_0c1d2e3f4a5c", "type": "function_call", "status": "completed", "arguments": "", "call_id": "call_Ij9kL1mN3oP5qR7s", "name": "list_cities"},
         ],
         "usage": {"input_tokens": 88, "input_tokens_details": {"cached_tokens": 64}, "output_tokens": 35, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 123}})

    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden-v1", default="/work/shared/golden/responses/cases", help="the 1.0.21 response cases")
    args = parser.parse_args()

    cases_dir = os.path.join(ROOT, "cases")
    os.makedirs(cases_dir, exist_ok=True)
    plan = []
    for name, cls, stream, options, desc in COPIED:
        shutil.copyfile(os.path.join(args.golden_v1, f"{name}.json"), os.path.join(cases_dir, f"{name}.json"))
        entry = {"name": name, "model_class": cls, "stream": stream, "source": "1.0.21", "description": desc}
        if options:
            entry["options"] = options
        plan.append(entry)
    for name, cls, stream, options, desc, data in new_cases():
        dump(os.path.join(cases_dir, f"{name}.json"), data)
        entry = {"name": name, "model_class": cls, "stream": stream, "source": "2.x", "description": desc}
        if options:
            entry["options"] = options
        plan.append(entry)
    names = [p["name"] for p in plan]
    assert len(names) == len(set(names)), "duplicate case names"
    plan.sort(key=lambda p: p["name"])
    dump(os.path.join(ROOT, "plan.json"), {"agentscope_version": "2.0.11", "cases": plan})
    print(f"{len(plan)} cases")


if __name__ == "__main__":
    main()
