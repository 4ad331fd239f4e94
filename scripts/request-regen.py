#!/usr/bin/env python3
"""Regenerates tests/wire/: our own request vectors, for rules the shared
request vectors do not reach (extra_body and extra_headers, organizations,
base URLs, unknown arguments, thinking switches, DashScope's headers,
search and endpoints, Ollama's host, images and thinking, ...), judged by
the real request oracle (AgentScope 1.0.21 with its release-day SDKs).

    bash ../shared/reference/setup.sh            # once: the oracle's venv
    ../.venv/bin/python scripts/request-regen.py # from the repo root

Writes tests/wire/expected/NAME.json and tests/wire/manifest.json in the
shared vectors' format. Dev-time only: tests read the stored outputs.
"""
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE_DIR = os.environ.get("ORACLE_DIR", os.path.join(REPO, "..", "shared", "reference"))
sys.path.insert(0, ORACLE_DIR)
import request_oracle  # noqa: E402

LIB = "tests/sessions/cases/library_trip.json"
CHAT = "tests/sessions/cases/chat_plain.json"
MEDIA = "tests/sessions/cases/multimodal.json"
CASES = "tests/golden/cases/"
OWN = "tests/oracle/cases/"
# Sessions of this suite; their web images are under tests/wire/media/web/
# (the oracle's default web root for them).
WIRE = "tests/wire/sessions/"

# Vectors judged by their error's stage and type only (none: every error
# message is compared in full).
MATCH_ERROR_TYPE: set = set()

# name -> (session, arguments as on request_oracle.py's command line)
VECTORS = {
    "openai_extra_body_headers": (CHAT, ["--formatter", "OpenAIChatFormatter", "--call-kwargs", '{"extra_body": {"top_k": 5}, "extra_headers": {"X-Trace": "1"}, "temperature": 0.3}']),
    "openai_organization": (CHAT, ["--formatter", "OpenAIChatFormatter", "--model-kwargs", '{"organization": "org-1"}']),
    "openai_unknown_constructor_argument": (CHAT, ["--formatter", "OpenAIChatFormatter", "--model-kwargs", '{"bogus": 1}']),
    "openai_unknown_call_argument": (CHAT, ["--formatter", "OpenAIChatFormatter", "--call-kwargs", '{"bogus": 1}']),
    "openai_tool_choice_unknown_name": (LIB, ["--formatter", "OpenAIChatFormatter", "--tool-choice", "nope"]),
    "openai_tool_choice_any": (LIB, ["--formatter", "OpenAIChatFormatter", "--tool-choice", "any"]),
    "openai_tool_choice_empty": (LIB, ["--formatter", "OpenAIChatFormatter", "--tool-choice", ""]),
    "openai_omni_audio": (CASES + "audio_blocks.json", ["--formatter", "OpenAIChatFormatter", "--model", "qwen-omni-turbo"]),
    "openai_multi_agent_no_stream": (LIB, ["--formatter", "OpenAIMultiAgentFormatter", "--no-stream", "--tool-choice", "required"]),
    "openai_base_url_slash": (CHAT, ["--formatter", "OpenAIChatFormatter", "--model-kwargs", '{"client_kwargs": {"base_url": "http://127.0.0.1:8000/v1/"}}']),
    "deepseek_reasoner": (LIB, ["--formatter", "DeepSeekChatFormatter", "--model", "deepseek-reasoner", "--model-kwargs", '{"reasoning_effort": "high"}']),
    "deepseek_reasoning_effort_in_call": (CHAT, ["--formatter", "DeepSeekMultiAgentFormatter", "--model-kwargs", '{"reasoning_effort": "high"}', "--call-kwargs", '{"reasoning_effort": "low"}']),
    "anthropic_base_url": (CHAT, ["--formatter", "AnthropicChatFormatter", "--model-kwargs", '{"client_kwargs": {"base_url": "https://proxy.example.com/"}}']),
    "anthropic_no_system": (CASES + "no_system_prompt.json", ["--formatter", "AnthropicChatFormatter"]),
    "anthropic_empty_session": (OWN + "x_empty_session.json", ["--formatter", "AnthropicChatFormatter"]),
    "anthropic_tool_choice_none": (LIB, ["--formatter", "AnthropicMultiAgentFormatter", "--tool-choice", "none"]),
    "anthropic_tool_choice_named": (LIB, ["--formatter", "AnthropicChatFormatter", "--tool-choice", "search_around"]),
    "anthropic_top_k_and_extra_headers": (CHAT, ["--formatter", "AnthropicChatFormatter", "--call-kwargs", '{"top_k": 3, "extra_headers": {"anthropic-beta": "x"}}']),
    "anthropic_unknown_call_argument": (CHAT, ["--formatter", "AnthropicChatFormatter", "--call-kwargs", '{"frequency_penalty": 1}']),
    "anthropic_max_tokens_and_thinking_in_call": (CHAT, ["--formatter", "AnthropicChatFormatter", "--model-kwargs", '{"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048}}', "--call-kwargs", '{"thinking": {"type": "disabled"}}']),
    "dashscope_thinking_forces_stream": (CHAT, ["--formatter", "DashScopeChatFormatter", "--no-stream", "--model-kwargs", '{"enable_thinking": true}']),
    "dashscope_no_stream": (LIB, ["--formatter", "DashScopeMultiAgentFormatter", "--no-stream"]),
    "dashscope_headers": (CHAT, ["--formatter", "DashScopeChatFormatter", "--model-kwargs", '{"generate_kwargs": {"headers": {"X-DashScope-WorkSpace": "ws-1"}}}']),
    "dashscope_search_false": (CHAT, ["--formatter", "DashScopeChatFormatter", "--call-kwargs", '{"enable_search": false}']),
    "dashscope_search_true": (CHAT, ["--formatter", "DashScopeChatFormatter", "--call-kwargs", '{"enable_search": true}']),
    "dashscope_multimodality": (MEDIA, ["--formatter", "DashScopeChatFormatter", "--model", "qwen-vl-max", "--model-kwargs", '{"multimodality": true}']),
    "dashscope_qvq": (MEDIA, ["--formatter", "DashScopeChatFormatter", "--model", "qvq-max"]),
    "dashscope_intl": (CHAT, ["--formatter", "DashScopeChatFormatter", "--model-kwargs", '{"base_http_api_url": "https://dashscope-intl.aliyuncs.com/api/v1"}']),
    "dashscope_tool_choice_unknown_name": (LIB, ["--formatter", "DashScopeChatFormatter", "--tool-choice", "nope"]),
    "dashscope_tools_not_function": (OWN + "x_tools_not_function.json", ["--formatter", "DashScopeChatFormatter"]),
    "ollama_host": (CHAT, ["--formatter", "OllamaChatFormatter", "--model-kwargs", '{"host": "localhost:9999"}']),
    "ollama_thinking": (CHAT, ["--formatter", "OllamaChatFormatter", "--model-kwargs", '{"enable_thinking": true}', "--stream"]),
    "ollama_generate_kwargs_temperature": (CHAT, ["--formatter", "OllamaChatFormatter", "--model-kwargs", '{"generate_kwargs": {"temperature": 0.2}}']),
    "ollama_images": (MEDIA, ["--formatter", "OllamaChatFormatter"]),
    "ollama_tool_choice_and_tools": (LIB, ["--formatter", "OllamaMultiAgentFormatter", "--tool-choice", "auto"]),
    "ollama_rich_tools": (OWN + "x_tools_rich.json", ["--formatter", "OllamaChatFormatter"]),
    "gemini_no_stream_tool_choice_none": (LIB, ["--formatter", "GeminiMultiAgentFormatter", "--no-stream", "--tool-choice", "none"]),
    "gemini_generation_settings": (CHAT, ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"generate_kwargs": {"top_p": 0.9, "top_k": 20, "stop_sequences": ["END"], "candidate_count": 1, "presence_penalty": 0.5}}']),
    "gemini_system_instruction": (CHAT, ["--formatter", "GeminiChatFormatter", "--call-kwargs", '{"system_instruction": "Be terse."}']),
    "gemini_thinking_and_tools": (LIB, ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"thinking_config": {"thinking_budget": 0}}', "--tool-choice", "required"]),
    "gemini_rich_tools": (OWN + "x_tools_rich.json", ["--formatter", "GeminiChatFormatter"]),
    "gemini_enum_int": (OWN + "x_tools_enum_int.json", ["--formatter", "GeminiChatFormatter"]),
    "gemini_signatures": (OWN + "x_gemini_signatures.json", ["--formatter", "GeminiChatFormatter"]),
    "gemini_empty_session": (OWN + "x_empty_session.json", ["--formatter", "GeminiChatFormatter"]),
    "gemini_unknown_config_key": (CHAT, ["--formatter", "GeminiChatFormatter", "--call-kwargs", '{"bogus": 1}']),
    "gemini_images": (MEDIA, ["--formatter", "GeminiChatFormatter"]),
    "ollama_format_call": (CHAT, ["--formatter", "OllamaChatFormatter", "--call-kwargs", '{"format": "json", "think": false}']),
}

# DashScope's text-generation call refuses an empty conversation
# (InputRequired) however it came about; the multimodal call sends it.
for _fmt, _short in (("DashScopeChatFormatter", "chat"), ("DashScopeMultiAgentFormatter", "multi_agent")):
    VECTORS[f"dashscope_{_short}_empty_session"] = (OWN + "x_empty_session.json", ["--formatter", _fmt])
    VECTORS[f"dashscope_{_short}_empty_content"] = (WIRE + "empty_content.json", ["--formatter", _fmt])
    VECTORS[f"dashscope_{_short}_thinking_only"] = (WIRE + "thinking_only.json", ["--formatter", _fmt, "--no-stream"])
    VECTORS[f"dashscope_{_short}_dropped_with_tools"] = (WIRE + "dropped_with_tools.json", ["--formatter", _fmt, "--tool-choice", "pick"])
    VECTORS[f"dashscope_{_short}_unknown_block_only"] = (WIRE + "unknown_block_only.json", ["--formatter", _fmt])
    # Truncation without a system prompt can drop every message.
    VECTORS[f"dashscope_{_short}_truncated_to_nothing"] = (CASES + "no_system_prompt.json", ["--formatter", _fmt, "--max-tokens", "10"])
VECTORS["dashscope_empty_session_qvq"] = (OWN + "x_empty_session.json", ["--formatter", "DashScopeChatFormatter", "--model", "qvq-max"])
VECTORS["dashscope_empty_content_multimodality"] = (WIRE + "empty_content.json", ["--formatter", "DashScopeMultiAgentFormatter", "--model-kwargs", '{"multimodality": true}'])
VECTORS["dashscope_empty_session_thinking"] = (OWN + "x_empty_session.json", ["--formatter", "DashScopeChatFormatter", "--model-kwargs", '{"enable_thinking": true}'])

# Ollama's Image serializer: base64 text, or a name ending in an image
# extension (a missing file), or neither.
for _name in ("web_text_image", "web_pathlike_image", "web_base64like_image", "web_accented_image",
              "web_five_image", "web_badpad_image", "web_upper_ext_image", "web_webp_image",
              "base64_not_base64", "base64_jpg_name"):
    VECTORS[f"ollama_{_name}"] = (WIRE + f"ollama_{_name}.json", ["--formatter", "OllamaChatFormatter"])
VECTORS["ollama_web_text_image_multi_agent"] = (WIRE + "ollama_web_text_image.json", ["--formatter", "OllamaMultiAgentFormatter"])
# google-genai validates the config, then the contents, with pydantic: the
# full report (every location of every union member) is compared.
for _name in ("gemini_enum_float", "gemini_enum_bool_null", "gemini_enum_nested", "gemini_enum_two_tools",
              "gemini_schema_odd_fields", "gemini_schema_lax_values", "gemini_schema_items_not_object",
              "gemini_inline_not_base64", "gemini_inline_two_bad", "gemini_inline_unpadded",
              "gemini_inline_bad_symbol_late", "gemini_web_text_image",
              "gemini_schema_unknown_types", "gemini_schema_unknown_type_and_enum_int"):
    VECTORS[_name] = (WIRE + f"{_name}.json", ["--formatter", "GeminiChatFormatter"])
VECTORS["gemini_schema_unknown_types_no_stream"] = (WIRE + "gemini_schema_unknown_types.json", ["--formatter", "GeminiMultiAgentFormatter", "--no-stream", "--tool-choice", "required"])
VECTORS["gemini_enum_nested_multi_agent"] = (WIRE + "gemini_enum_nested.json", ["--formatter", "GeminiMultiAgentFormatter", "--tool-choice", "t0"])
VECTORS["gemini_inline_not_base64_multi_agent"] = (WIRE + "gemini_inline_not_base64.json", ["--formatter", "GeminiMultiAgentFormatter"])
VECTORS["gemini_tool_result_web_text_image"] = (WIRE + "gemini_tool_result_web_text_image.json", ["--formatter", "GeminiChatFormatter", "--promote-tool-result-images"])
# AgentScope itself decodes a tool result's base64 media (to save it): that
# fails first, at the format stage, with binascii's message.
VECTORS["gemini_tool_result_inline_not_base64"] = (WIRE + "gemini_tool_result_inline_not_base64.json", ["--formatter", "GeminiChatFormatter"])
VECTORS["gemini_bad_config_and_tools"] = (OWN + "x_tools_enum_int.json", ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"thinking_config": {"thinking_budget": "lots"}, "generate_kwargs": {"temperature": "hot", "stop_sequences": "END"}}', "--call-kwargs", '{"bogus": 1}'])
VECTORS["gemini_bad_config_no_stream"] = (CHAT, ["--formatter", "GeminiChatFormatter", "--no-stream", "--model-kwargs", '{"generate_kwargs": {"max_output_tokens": 1.5, "seed": "x", "candidate_count": true}}'])
# What lax validation makes of the config's values is what is sent.
VECTORS["gemini_lax_generation_settings"] = (CHAT, ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"generate_kwargs": {"temperature": "0.5", "top_k": true, "seed": "7", "max_output_tokens": 100.0, "response_logprobs": "yes", "candidate_count": " 1 "}}'])
VECTORS["gemini_thinking_config_lax"] = (CHAT, ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"thinking_config": {"thinking_budget": "100", "include_thoughts": 1, "thinkingLevel": "low"}}'])
VECTORS["gemini_thinking_level_unknown"] = (CHAT, ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"thinking_config": {"thinking_level": "deep"}}'])
VECTORS["gemini_thinking_level_not_a_string"] = (CHAT, ["--formatter", "GeminiChatFormatter", "--model-kwargs", '{"thinking_config": {"thinking_level": 3}}'])
VECTORS["ollama_tool_result_text_image"] = (WIRE + "ollama_tool_result_text_image.json", ["--formatter", "OllamaChatFormatter", "--promote-tool-result-images"])


def parse(args):
    out = {"formatter_name": None, "model": None, "stream": None, "tool_choice": None, "model_kwargs": {}, "call_kwargs": {}}
    promote = {}
    it = iter(args)
    for a in it:
        if a == "--formatter":
            out["formatter_name"] = next(it)
        elif a == "--model":
            out["model"] = next(it)
        elif a == "--tool-choice":
            out["tool_choice"] = next(it)
        elif a == "--stream":
            out["stream"] = True
        elif a == "--no-stream":
            out["stream"] = False
        elif a == "--model-kwargs":
            out["model_kwargs"] = json.loads(next(it))
        elif a == "--call-kwargs":
            out["call_kwargs"] = json.loads(next(it))
        elif a == "--max-tokens":
            out["max_tokens"] = int(next(it))
        elif a.startswith("--promote-tool-result-"):
            promote[a.removeprefix("--promote-tool-result-")] = True
        else:
            raise SystemExit(f"unknown argument {a}")
    out["options"] = request_oracle.oracle.option_kwargs(out["formatter_name"], **promote)
    return out


def main():
    request_oracle.setup()
    out_dir = os.path.join(REPO, "tests", "wire", "expected")
    os.makedirs(out_dir, exist_ok=True)
    files = []
    import dashscope  # noqa: E402  (the oracle's venv)
    # DashScopeChatModel sets the SDK's module-wide URL when given one: put
    # it back so one vector's base URL does not leak into the next.
    dashscope_url = dashscope.base_http_api_url
    for name, (session, args) in VECTORS.items():
        dashscope.base_http_api_url = dashscope_url
        result = request_oracle.run(os.path.join(REPO, session), **parse(args))
        rel = f"expected/{name}.json"
        with open(os.path.join(REPO, "tests", "wire", rel), "w", encoding="utf-8") as f:
            json.dump(result, f, ensure_ascii=False, indent=2)
            f.write("\n")
        entry = {"name": name, "expected": rel, "command": ["python", "shared/reference/request_oracle.py", session] + args}
        if name in MATCH_ERROR_TYPE:
            entry["match"] = "error_type"
        files.append(entry)
    with open(os.path.join(REPO, "tests", "wire", "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"files": files}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(files)} request vectors written")


if __name__ == "__main__":
    main()
