#!/usr/bin/env python3
"""Our own response cases, for rules the shared golden set leaves out.
Writes cases/NAME.json and plan.json (NAME -> oracle options); then
`scripts/response-regen.py` asks the response oracle for expected/.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
cases = {}

def chunk(delta, finish=None, cid="chatcmpl-own1", usage=None, choices=True):
    c = {"id": cid, "object": "chat.completion.chunk", "created": 1763798400, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []}
    if usage is not None:
        c["usage"] = usage
    return c

cases["openai_stream_error_midway"] = (["--stream"], "openai", [
    chunk({"role": "assistant", "content": "Hel"}),
    chunk({"content": "lo"}),
    {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}},
    chunk({"content": "never"}),
])
cases["openai_audio_whole"] = (["--audio-format", "wav"], "openai", {
    "id": "chatcmpl-audio", "object": "chat.completion", "created": 1, "model": "gpt-4o-audio-preview",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": None,
        "audio": {"id": "audio_1", "data": "UklGRg==", "expires_at": 1, "transcript": "Hello there."}}}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}})
cases["openai_audio_stream"] = (["--stream"], "openai", [
    chunk({"role": "assistant", "audio": {"id": "a1", "data": "UklG", "transcript": "Hel"}}),
    chunk({"audio": {"data": "Rg==", "transcript": "lo."}}),
    chunk({}, finish="stop"),
    "[DONE]",
])
cases["openai_tool_args_python_style_stream"] = (["--stream"], "openai", [
    chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_py", "type": "function", "function": {"name": "book", "arguments": "{'from': 'OSL', "}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": "'to': 'NRT', 'n': 2, 'ok': True, 'x': None,"}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": " 'note': \"l\u00e5ng \\\"quote\\\"\"}"}}]}),
    chunk({}, finish="tool_calls"),
    "[DONE]",
])
cases["openai_whole_no_choices"] = ([], "openai", {"id": "chatcmpl-x", "object": "chat.completion", "choices": [],
    "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3}})
cases["anthropic_error_event"] = (["--stream"], "anthropic", [
    {"type": "message_start", "message": {"id": "msg_err", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Partial"}},
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
])
cases["anthropic_two_text_blocks_stream"] = (["--stream"], "anthropic", [
    {"type": "message_start", "message": {"id": "msg_two", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 30, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "First. "}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"q\": \"\u4e1c\u4eac"}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"}"}},
    {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Second."}},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"input_tokens": 35, "output_tokens": 44}},
    {"type": "message_stop"},
])
cases["dashscope_error_body"] = ([], "dashscope", {"code": "InvalidParameter", "message": "Range of input length should be [1, 30720]", "request_id": "req-err-1"})
cases["dashscope_error_frame"] = (["--stream"], "dashscope", [
    {"output": {"choices": [{"message": {"role": "assistant", "content": "Hi"}, "finish_reason": "null"}]}, "usage": {"input_tokens": 5, "output_tokens": 1}, "request_id": "req-2"},
    {"event": "error", "status": 429, "data": {"code": "Throttling", "message": "Requests throttled", "request_id": "req-2"}},
])
cases["dashscope_repeated_names_stream"] = (["--stream"], "dashscope", [
    {"output": {"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"ci"}}]}, "finish_reason": "null"}]}, "usage": {"input_tokens": 9, "output_tokens": 2}, "request_id": "req-3"},
    {"output": {"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "ty\": \"Oslo\"}"}}]}, "finish_reason": "tool_calls"}]}, "usage": {"input_tokens": 9, "output_tokens": 6}, "request_id": "req-3"},
])
cases["gemini_unpadded_signature_two_texts"] = ([], "gemini", {
    "candidates": [{"content": {"role": "model", "parts": [
        {"text": "Part one. "}, {"text": "Part two.", "thoughtSignature": "c2lnbmF0dXJl"},
        {"functionCall": {"name": "f", "args": {"k": "\u00e9", "n": 1.5}}}]}, "finishReason": "STOP"}],
    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 20},
    "responseId": "resp-own-1"})
cases["ollama_tool_calls_unicode_whole"] = ([], "ollama", {
    "model": "qwen3:8b", "created_at": "2026-01-01T00:00:00Z", "done": True, "done_reason": "stop",
    "message": {"role": "assistant", "content": "", "thinking": "Need weather.",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "\u6771\u4eac", "days": 3}}},
                       {"function": {"name": "get_time", "arguments": {}}}]},
    "prompt_eval_count": 40, "eval_count": 22})
cases["responses_function_call_whole"] = ([], "openai-responses", {
    "id": "resp_own", "object": "response", "status": "completed", "model": "gpt-4.1",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Think A."}, {"type": "summary_text", "text": ""}]},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Calling.", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"a\": [1, 2"}],
    "usage": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18, "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 3}}})

os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
plan = {}
for name, (opts, provider, data) in cases.items():
    with open(os.path.join(HERE, "cases", name + ".json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
    plan[name] = {"provider": provider, "options": opts}
with open(os.path.join(HERE, "plan.json"), "w") as f:
    json.dump(plan, f, indent=2)
    f.write("\n")
print(len(cases), "cases")
