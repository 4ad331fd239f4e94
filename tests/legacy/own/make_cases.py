#!/usr/bin/env python3
"""Our own AgentScope 0.1.6 cases (issue 13): every rule of
formatters-v0.md the 32 shared cases do not reach. The expected outputs
are made by the real 0.1.6 oracle: python3 scripts/legacy-regen.py."""
import json, os

HERE = os.path.join(os.path.dirname(__file__), "cases")
SYS = {"name": "system", "role": "system", "content": "You're Friday."}


def u(text, name="user"):
    return {"name": name, "role": "user", "content": text}


def a(text, name="Friday"):
    return {"name": name, "role": "assistant", "content": text}


CASES = {
    # Msg construction (§1.2, §1.3)
    "x_url_kinds": {"messages": [SYS, {"name": "Bob", "role": "user", "content": "Look:", "url": [
        "../media/pixel.png", "../media/beep.mp3", "../media/clip.mp4", "../media/notes.pdf", "../media/anim.gif",
        "https://example.com/page", "https://example.com/fox.png?size=large", "HTTPS://EXAMPLE.COM/UPPER.JPG",
        "../media/tone.wav"]}, a("Nice.")]},
    "x_url_string_and_null_content": {"messages": [SYS, {"name": "Bob", "role": "user", "content": None, "url": "../media/pixel.png"},
        {"name": "Amy", "role": "user", "content": "", "url": "https://example.com/cat.jpg"}]},
    "x_url_not_iterable": {"messages": [SYS, {"name": "Bob", "role": "user", "content": "x", "url": 5}]},
    "x_url_element_not_string": {"messages": [SYS, {"name": "Bob", "role": "user", "content": "x", "url": ["a.png", 3]}]},
    "x_content_types": {"messages": [SYS, {"name": "n", "role": "user", "content": 42}, {"name": "f", "role": "assistant", "content": 3.5},
        {"name": "b", "role": "user", "content": True}, {"name": "d", "role": "assistant", "content": {"city": "Paris", "ok": False, "t": 2.0}}]},
    "x_missing_two": {"messages": [SYS, {"content": "no name, no role"}]},
    "x_missing_three": {"messages": [SYS, {"metadata": {"k": 1}}]},
    "x_name_not_string": {"messages": [SYS, {"name": None, "role": "user", "content": "x"}]},
    "x_serialized_bad_module": {"messages": [{"__module__": "agentscope.message.other", "__name__": "Msg", "id": "1", "name": "a", "role": "user", "content": "x", "timestamp": "t"}]},
    "x_serialized_no_name_key": {"messages": [{"__module__": "agentscope.message.msg", "id": "1", "name": "a", "role": "user", "content": "x", "timestamp": "t"}]},
    "x_serialized_no_timestamp": {"messages": [{"__module__": "agentscope.message.msg", "__name__": "Msg", "id": "1", "name": "a", "role": "user", "content": "x"}]},
    "x_serialized_extra_key": {"messages": [{"__module__": "agentscope.message.msg", "__name__": "Msg", "id": "1", "name": "a", "role": "user", "content": "x", "timestamp": "t", "extra": 1}]},
    "x_text_block_without_text_later": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text"}]}, a("ok")]},
    "x_text_block_without_text_first": {"messages": [{"name": "system", "role": "system", "content": [{"type": "text"}, {"type": "text", "text": "b"}]}, u("Hi"), a("Hello"), u("Again")]},
    "x_text_null": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [{"type": "text", "text": None}]}]},
    # Tools in messages, Python reprs and json.dumps (§3, §4.2, §10)
    "x_tool_reprs": {"messages": [SYS, u("Weather in Paris?", "Bob"),
        {"name": "Friday", "role": "assistant", "content": [{"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris", "q": "it's \"quoted\"", "n": 2.0, "big": 10**20, "small": 1.5e-7, "zwj": "👩\u200d💻", "ctl": "a\u0001b\u007f", "nl": "a\nb", "neg": -0.0, "e": 1e16}}]},
        {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "c1", "name": "get_weather", "output": {"temp": 25.5, "rain": False, "note": "it's", "list": [1, 2.0, None]}}]},
        {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "c2", "output": "plain text"}]},
        {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "c3", "name": None, "output": [{"type": "text", "text": "x"}]}]},
        a("Sunny.")]},
    # Images (§3 IMG, §4.1 SRC, §5.2 MEDIA)
    "x_images_local_variants": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [
        {"type": "text", "text": "Images:"},
        {"type": "image", "url": "../media/photo.jpg"}, {"type": "image", "url": "../media/PIXEL.PNG"},
        {"type": "image", "url": "../media/a.b.c.jpeg"}, {"type": "image", "url": "../media/anim.gif"},
        {"type": "image", "url": "file://../media/pixel.png"}, {"type": "image", "url": "https://example.com/x.WEBP"}]}, a("ok")]},
    "x_image_directory": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [{"type": "image", "url": "../media/a dir.png"}]}]},
    "x_image_query": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [{"type": "image", "url": "https://example.com/fox.png?size=large"}]}]},
    "x_image_no_url": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [{"type": "image"}]}]},
    "x_dashscope_media_by_extension": {"messages": [SYS, {"name": "Bob", "role": "user", "content": [
        {"type": "text", "text": "Media:"}, {"type": "image", "url": "../media/beep.mp3"}, {"type": "audio", "url": "../media/pixel.png"},
        {"type": "image", "url": "../media/clip.mp4"}, {"type": "audio", "url": "https://example.com/a.wav"},
        {"type": "image", "url": "../media/missing.png"}, {"type": "video", "url": "../media/clip.mp4"}]}, a("Heard.")]},
    # System prompts (§4.2, §5.2, §6.2, §9.2)
    "x_system_blocks_only": {"messages": [{"name": "system", "role": "system", "content": [{"type": "image", "url": "https://example.com/a.png"}]}, u("Hi"), a("Hello"), u("Bye")]},
    "x_system_empty_text": {"messages": [{"name": "system", "role": "system", "content": ""}, u("Hi"), a("Hello"), u("Bye")]},
    "x_system_trailing_newline": {"messages": [{"name": "system", "role": "system", "content": "Be brief.\n"}, u("Hi"), a("Hello"), u("Bye")]},
    "x_only_tools_messages": {"messages": [SYS, {"name": "Friday", "role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "t", "input": {}}]},
        {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "1", "name": "t", "output": None}]}]},
    # Arguments (§2)
    "x_flatten_string_arg": {"messages": [SYS, "just a string", u("Hi")]},
    "x_flatten_number_arg": {"messages": [SYS, 3.5]},
    "x_flatten_list_with_none": {"messages": [SYS, [u("a"), None]]},
    "x_flatten_nested_list": {"messages": [SYS, [[u("a")]]]},
    "x_auto_on_string": {"messages": [u("a"), "s"]},
    "x_auto_three_speakers": {"messages": [u("a", "A"), a("b"), u("c", "C")]},
    "x_auto_two_with_systems": {"messages": [SYS, SYS, u("a", "A"), u("b", "B")]},
    "x_null_arguments_only": {"messages": [None, None]},
    # CommonFormatter (§9)
    "x_common_roles_alternate": {"messages": [SYS, u("a"), a("b"), u("c")]},
    "x_common_two_users_last_assistant": {"messages": [u("a"), u("b"), a("c"), a("d")]},
    "x_non_ascii_names": {"messages": [{"name": "系统", "role": "system", "content": "你好"}, u("Bonjour ça va?", "Zoë"), a("Très bien 👍", "Frî"), u("\u2028line", "Bob")]},
}

TOOL_CASES = {
    "x_tools_list_duplicates": {"tools": [
        {"type": "function", "function": {"name": "a", "description": "first", "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"description": "no name"}},
        {"type": "function", "function": {"name": "a", "description": "second"}, "strict": True}]},
    "x_tools_value_not_dict": {"tools": {"a": "not a dict"}},
    "x_tools_missing_keys": {"tools": {"a": {"function": {"name": "a"}}}},
    "x_tools_function_without_name": {"tools": {"a": {"type": "function", "function": {"description": "x"}}}},
    "x_tools_function_string": {"tools": {"a": {"type": "function", "function": "has a name inside"}}},
    "x_tools_parameters_null": {"tools": {"a": {"type": "function", "function": {"name": "a", "parameters": None}}}},
    "x_tools_string": {"tools": "not tools"},
}

MODEL_CASES = {
    "x_models_edges": {"models": ["o1-preview", "o1-pro", "o1mini", "o3", "o4-mini", "gpt-", "gpt", "GPT-4o", " gpt-4o", "gpt-4o\n",
        "chatgpt-4o-latest", "claude-3-5", "claude-3-50", "claude-3.5-sonnet", "claude-sonnet-4", "claude-3-7-sonnet",
        "qwen-max", "qwen2.5-72b", "qwen3-8b", "qwq-32b", "Qwen-max", "gemini-", "gemini-2.5-flash", "gemini", "", "o3-mini-high"]},
}

os.makedirs(HERE, exist_ok=True)
for name, case in {**CASES, **TOOL_CASES, **MODEL_CASES}.items():
    with open(os.path.join(HERE, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(case, f, indent=1, ensure_ascii=False)
        f.write("\n")
print(len(CASES) + len(TOOL_CASES) + len(MODEL_CASES), "cases")
