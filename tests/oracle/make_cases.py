#!/usr/bin/env python3
"""Writes tests/oracle/cases/*.json: edge cases the public golden set does not
cover, each chosen to pin one rule of AgentScope's formatters. Their expected
outputs come from the real AgentScope (scripts/oracle-regen.sh)."""
import json, os, base64

HERE = os.path.dirname(os.path.abspath(__file__))
PNG = base64.b64encode(open(os.path.join(HERE, "../golden/media/pixel.png"), "rb").read()).decode()
WAV = base64.b64encode(open(os.path.join(HERE, "../golden/media/tone.wav"), "rb").read()).decode()

def msg(name, role, content, **extra):
    return {"name": name, "role": role, "content": content, **extra}

def text(t, **kw): return {"type": "text", "text": t, **kw}
def use(id, name, inp, **kw): return {"type": "tool_use", "id": id, "name": name, "input": inp, **kw}
def result(id, name, out): return {"type": "tool_result", "id": id, "name": name, "output": out}
def img_url(u): return {"type": "image", "source": {"type": "url", "url": u}}
def img_b64(d, mt="image/png"): return {"type": "image", "source": {"type": "base64", "media_type": mt, "data": d}}
SYS = msg("system", "system", "You are Friday.")

CASES = {
    "x_numbers_in_tool_input": [SYS, msg("Bob", "user", "go"),
        msg("Friday", "assistant", [use("n1", "calc", {"a": 1e20, "b": 1.5e-7, "c": -0.0, "d": 123456789012345678901234567890,
            "e": 36.30, "f": [1, 2.0, -3], "g": {"h": None, "i": True}, "j": "tab\tnl\nctl\u0001 é ✓", "k": 1e16, "l": 0.0001, "m": 1e-5})]),
        msg("system", "system", [result("n1", "calc", "ok")])],
    "x_tool_use_missing_fields": [msg("Bob", "user", "x"),
        msg("Friday", "assistant", [{"type": "tool_use", "id": "a", "name": "f"}, {"type": "tool_use", "id": "b", "name": "g", "input": None}]),
        msg("system", "system", [result("a", "f", "1"), result("b", "g", None)])],
    "x_odd_names_and_texts": [msg(None, "user", "null name"), msg(7, "user", [text("number name")]),
        msg("", "assistant", [text("")]), msg("Eve", "user", [text("a"), text(""), text("b")])],
    "x_unknown_blocks": [SYS, msg("Bob", "user", [text("hi"), {"type": "file", "path": "/x"}, {"type": "thinking", "thinking": "hm"}]),
        msg("Friday", "assistant", [{"type": "thinking", "thinking": "only thought", "signature": "sig"}])],
    "x_tool_result_shapes_more": [msg("Bob", "user", "x"),
        msg("Friday", "assistant", [use("1", "a", {}), use("2", "b", {}), use("3", "c", {})]),
        msg("system", "system", [result("1", "a", [text("one")]), result("2", "b", [text("x"), img_url("https://example.com/images/cat.png")]),
                                  result("3", "c", [img_b64(PNG), {"type": "audio", "source": {"type": "base64", "media_type": "audio/wav", "data": WAV}}])])],
    "x_tool_result_dict_output": [msg("Bob", "user", "x"), msg("Friday", "assistant", [use("1", "a", {})]),
        msg("system", "system", [result("1", "a", {"k": "v"})])],
    "x_tool_result_int_output": [msg("Bob", "user", "x"), msg("Friday", "assistant", [use("1", "a", {})]),
        msg("system", "system", [result("1", "a", 42)])],
    "x_tool_result_bad_source": [msg("Bob", "user", "x"), msg("Friday", "assistant", [use("1", "a", {})]),
        msg("system", "system", [result("1", "a", [{"type": "image", "source": {"type": "file", "path": "x"}}])])],
    "x_gemini_signatures": [msg("Bob", "user", "x"),
        msg("Friday", "assistant", [text("t", thought_signature="AAEC"), use("1", "f", {"q": 1}, thought_signature="AQ==junk")]),
        msg("system", "system", [result("1", "f", "r")])],
    "x_gemini_bad_signature": [msg("Friday", "assistant", [text("t", thought_signature="AAE")])],
    "x_image_url_kinds": [SYS, msg("Bob", "user", [text("see"), img_url("data:image/png;base64," + PNG), img_url("ftp://example.com/a.png"),
        img_url("https://example.com/images/missing.png?x=1")])],
    "x_web_image_404": [msg("Bob", "user", [img_url("https://example.com/images/none.png")])],
    "x_web_audio": [msg("Bob", "user", [{"type": "audio", "source": {"type": "url", "url": "https://example.com/audio/hello.mp3"}}])],
    "x_web_audio_404": [msg("Bob", "user", [{"type": "audio", "source": {"type": "url", "url": "https://example.com/audio/none.wav"}}])],
    "x_multi_starts_with_tools": [msg("Friday", "assistant", [use("1", "f", {})]), msg("system", "system", [result("1", "f", "r")]),
        msg("Bob", "user", "after"), msg("Friday", "assistant", [text("I'll call"), use("2", "g", {"x": "y"})]),
        msg("system", "system", [result("2", "g", [text("a"), text("b")])]), msg("Alice", "user", "end")],
    "x_system_with_media": [msg("system", "system", [text("Rules."), img_url("../../golden/media/pixel.png"), text("More.")]),
        msg("Bob", "user", "hi")],
    "x_system_no_text": [msg("system", "system", [img_url("../../golden/media/pixel.png")]), msg("Bob", "user", "hi")],
    "x_system_tool_in_middle": [msg("Bob", "user", "a"), msg("system", "system", "mid rules"),
        msg("Friday", "assistant", [use("1", "f", {})]), msg("system", "system", [result("1", "f", "r")]), msg("system", "system", "late")],
    "x_media_only_history": [SYS, msg("Bob", "user", [img_url("../../golden/media/pixel.png")]), msg("Alice", "user", [img_url("../../golden/media/photo.jpeg")])],
    "x_block_without_type": [msg("Bob", "user", [{"text": "no type"}])],
    "x_text_not_string": [msg("Bob", "user", [text(5)]), msg("Al", "user", [text(None)])],
    "x_missing_text_key": [msg("Bob", "user", [{"type": "text"}])],
    "x_content_item_not_dict": [msg("Bob", "user", ["plain string item"])],
    "x_special_token_text": [msg("Bob", "user", "hello <|endoftext|> world")],
    "x_empty_session": [],
    "x_only_system": [SYS],
    "x_unicode_heavy": [SYS, msg("Zoë", "user", "🇫🇷👩‍👩‍👧 naïve café — ﬁ ｆｕｌｌ 中文 한국어 \u200b\u00a0 e\u0301"), msg("Friday", "assistant", "「ok」")],
    "x_whitespace_runs": [msg("Bob", "user", "a" + " " * 3000 + "b\n\n\n\t\t  \n" + "\u3000" * 50)],
    "x_thinking_with_tools": [msg("Bob", "user", "x"),
        msg("Friday", "assistant", [{"type": "thinking", "thinking": "plan"}, use("1", "f", {"z": [1.25]})]),
        msg("system", "system", [result("1", "f", "r")]), msg("Friday", "assistant", [{"type": "thinking", "thinking": "t2"}, text("done")])],
    "x_orphan_tool_result": [SYS, msg("system", "system", [result("zz", "f", "orphan")]), msg("Bob", "user", "hi"), msg("Friday", "assistant", "yo")],
    "x_self_closing_tool": [SYS, msg("Friday", "assistant", [use("1", "f", {}), result("1", "f", "inline")]), msg("Bob", "user", "x")],
}

TOOLS_CASES = {
    "x_tools_edge": [
        {"type": "function", "function": {"name": "no_params", "description": "Nothing."}},
    ],
    "x_tools_enum_int": [
        {"type": "function", "function": {"name": "pick", "description": "Pick.", "parameters": {"type": "object",
            "properties": {"n": {"type": "integer", "enum": [1, 2]}}}}},
    ],
    "x_tools_rich": [
        {"type": "function", "function": {"name": "pick", "description": "Pick one..", "parameters": {"type": "object",
            "properties": {"c": {"type": "string", "enum": ["red", "green"], "description": "Colour."},
                           "t": {"type": ["string", "null"]}, "r": {"$ref": "#/$defs/Missing"}, "o": {"$ref": "#/other"}},
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}}}},
        {"type": "function", "function": {"name": "empty", "parameters": {"type": "object", "properties": {}}}},
    ],
    "x_tools_not_function": [
        {"type": "other", "name": "x"},
    ],
}

# Cases written as text: JSON that Python's json reads but json.dump would
# never write (1e400 overflows to inf; NaN and Infinity are Python's own).
RAW_CASES = {
    "x_python_json_extensions": """{
  "title": "Numbers Python's json reads: out of range, NaN, Infinity",
  "messages": [
    {"name": "Bob", "role": "user", "content": "compute"},
    {"name": "Friday", "role": "assistant", "content": [
      {"type": "tool_use", "id": "n1", "name": "calc",
       "input": {"big": 1e400, "neg": -1E+400, "tiny": 1e-400, "nan": NaN, "inf": Infinity, "ninf": -Infinity, "list": [NaN, 2.50]}}]},
    {"name": "system", "role": "system", "content": [
      {"type": "tool_result", "id": "n1", "name": "calc", "output": {"value": Infinity, "nan": NaN, "big": 1e400}}]},
    {"name": "Friday", "role": "assistant", "content": "done"}
  ]
}
""",
}


def main():
    out = os.path.join(HERE, "cases")
    for name, text in RAW_CASES.items():
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
            f.write(text)
    os.makedirs(out, exist_ok=True)
    for name, msgs in CASES.items():
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
            json.dump({"title": name, "messages": msgs}, f, ensure_ascii=False, indent=2)
    base = [SYS, msg("Bob", "user", "hi")]
    for name, tools in TOOLS_CASES.items():
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
            json.dump({"title": name, "tools": tools, "messages": base}, f, ensure_ascii=False, indent=2)

main()
