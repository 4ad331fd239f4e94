#!/usr/bin/env python3
"""Writes tests/golden_v2/ollama_sdk_validation.json: what AgentScope
2.0.11's OllamaChatModel (the ollama SDK 0.6.3, pydantic 2.14) sends, or
the ValidationError its ChatRequest raises, for call kwargs of every type
the SDK's fields take and refuse. Run with the 2.0.11 venv's python
(bash tests/oracle_v2/setup.sh prints it) from the repository root."""
import json
import sys

sys.path.insert(0, "tests/oracle_v2")
import request_oracle_v2  # noqa: E402

CASES = {
    "keep_alive": [5, 5.5, "5m", True, [1], {"a": 1}, "", -1],
    "think": [True, False, "high", "", 1, 0, 3, 1.0, 0.5, "true", [1], {"a": 1}],
    "logprobs": [True, "yes", "no", 1, 0, 2, 1.0, "maybe", [1], "true", "off"],
    "top_logprobs": [2, "2", 2.0, 2.5, "many", True, [1], " 3 ", "3.0", -1],
    "format": ["", "json", "xml", {"type": "object"}, [1], 3, True],
    "options": [{"temperature": 1}, "fast", [1], 3, {"temperature": "hot"}],
}
COMBOS = [{k: v} for k, vals in CASES.items() for v in vals] + [
    {"think": 3, "format": "xml", "top_logprobs": "x"},
    {"keep_alive": [1], "options": 3},
]


def main() -> int:
    request_oracle_v2.setup()
    out = []
    for kwargs in COMBOS:
        got = request_oracle_v2.run(
            "tests/golden_v2/cases/chat_plain.json",
            formatter_name="OllamaChatFormatter",
            model="qwen3:8b",
            stream=None,
            tool_choice=None,
            model_kwargs={},
            call_kwargs=kwargs,
            options={},
            web_roots=[],
        )
        out.append({"call_kwargs": kwargs, "http_body": got.get("http_body"),
                    "http_error": got.get("http_error")})
    with open("tests/golden_v2/ollama_sdk_validation.json", "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(out)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
