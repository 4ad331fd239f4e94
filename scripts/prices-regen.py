#!/usr/bin/env python3
"""Regenerate crates/core/assets/prices.json from a downloaded LiteLLM wheel (dev-time only).

    pip download litellm --no-deps -d /tmp/litellm
    python3 scripts/prices-regen.py /tmp/litellm/litellm-*.whl [--date YYYY-MM-DD]

Keeps only LiteLLM's entries for models that a pattern in crates/core/assets/models.json
matches, under the provider that pattern names (LiteLLM spells DashScope,
Gemini, Ollama and DeepSeek models with a "provider/" prefix, OpenAI and
Anthropic ones bare). Prices are stored per million tokens. LiteLLM is MIT
licensed; its notice is in crates/core/assets/prices.NOTICE.
"""
import datetime
import json
import pathlib
import re
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILE = "litellm/model_prices_and_context_window_backup.json"
# our provider -> (LiteLLM key prefix, LiteLLM's litellm_provider)
PREFIX = {
    "openai": ("", "openai"),
    "anthropic": ("", "anthropic"),
    "dashscope": ("dashscope/", "dashscope"),
    "gemini": ("gemini/", "gemini"),
    "ollama": ("ollama/", "ollama"),
    "deepseek": ("deepseek/", "deepseek"),
}


def per_million(v):
    return None if v is None else round(float(v) * 1_000_000, 6)


def main():
    args = sys.argv[1:]
    date = datetime.date.today().isoformat()
    if "--date" in args:
        i = args.index("--date")
        date = args[i + 1]
        del args[i : i + 2]
    wheel = pathlib.Path(args[0])
    version = re.match(r"litellm-([^-]+)-", wheel.name).group(1)
    with zipfile.ZipFile(wheel) as z:
        table = json.loads(z.read(FILE))
    models = json.loads((ROOT / "crates/core/assets/models.json").read_text())["models"]
    prices = {p: {} for p in PREFIX}
    for key, entry in sorted(table.items()):
        if not isinstance(entry, dict) or "input_cost_per_token" not in entry:
            continue
        for m in models:
            prefix, lp = PREFIX[m["provider"]]
            if entry.get("litellm_provider") != lp or not key.startswith(prefix):
                continue
            name = key[len(prefix):]
            pat = m["match"]
            hit = name.startswith(pat[:-1]) if pat.endswith("*") else name == pat
            if hit:
                prices[m["provider"]][name] = {
                    "input": per_million(entry.get("input_cost_per_token")),
                    "cached_input": per_million(entry.get("cache_read_input_token_cost")),
                    "output": per_million(entry.get("output_cost_per_token")),
                }
    out = {
        "source": {
            "name": "LiteLLM",
            "version": version,
            "file": FILE,
            "licence": "MIT (see crates/core/assets/prices.NOTICE)",
            "date": date,
        },
        "unit": "USD per million tokens",
        "prices": prices,
    }
    text = json.dumps(out, indent=1, sort_keys=False) + "\n"
    (ROOT / "crates/core/assets/prices.json").write_text(text)
    print({p: len(v) for p, v in prices.items()})


if __name__ == "__main__":
    main()
