#!/usr/bin/env python3
"""Regenerates tests/data/truncation-digests.json: what the real AgentScope
1.0.21 formatters give under a token budget (FIFO truncation, oracle.py's
--max-tokens) on large generated sessions, stored as small digests so a
test can compare formatscope's output without keeping megabytes of JSON.

    bash ../shared/reference/setup.sh                # once: the oracle's venv
    nice -n 10 ../.venv/bin/python scripts/truncation-regen.py   # from the repo root

For each case: benches/gen_session.py N --seed S (plus --one-group where
the case says one_group) writes the session into a temporary directory; the oracle formats it without a budget and counts it
(oracle.py --count: "full_tokens"); the budget is int(full_tokens *
fraction) (or a fixed max_tokens); the oracle formats it again with that
budget (oracle.py --max-tokens) and we keep the number of output messages,
the oracle's "tokens" for them, and the sha256 of
json.dumps(messages, ensure_ascii=False, separators=(",", ":")).
Where the oracle reports an error, error_type/error/error_stage are kept
and the other results are null (Anthropic with tool calls and Gemini: the
gpt-4o counter cannot count their blocks, so the full count fails; with any
--max-tokens the same error comes from the loop's first count). "seconds" is the oracle's time for the case (both runs),
for information only. All cases run in this one process (oracle.setup()
once); progress goes to stderr.

ORACLE_DIR (default ../shared/reference) locates oracle.py. Dev-time only:
tests read the stored digests.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE_DIR = os.environ.get("ORACLE_DIR", os.path.join(REPO, "..", "shared", "reference"))
sys.path.insert(0, ORACLE_DIR)
import oracle  # noqa: E402

GENERATOR = "benches/gen_session.py"
OUT = os.path.join(REPO, "tests", "data", "truncation-digests.json")

FORMATTERS = [
    "OpenAIChatFormatter",
    "OpenAIMultiAgentFormatter",
    "AnthropicChatFormatter",
    "AnthropicMultiAgentFormatter",
    "DashScopeChatFormatter",
    "DashScopeMultiAgentFormatter",
    "GeminiChatFormatter",
    "GeminiMultiAgentFormatter",
    "OllamaChatFormatter",
    "OllamaMultiAgentFormatter",
    "DeepSeekChatFormatter",
    "DeepSeekMultiAgentFormatter",
]
SIZES = [300, 700, 1100, 1600, 2200, 3000]
FRACTIONS = [0.5, 0.15, 0.85, 0.3]


def short(formatter):
    """OpenAIMultiAgentFormatter -> openai_multi_agent."""
    for provider in ("OpenAI", "Anthropic", "DashScope", "Gemini", "Ollama", "DeepSeek"):
        if formatter.startswith(provider):
            rest = formatter[len(provider):]
            return provider.lower() + ("_multi_agent" if rest.startswith("MultiAgent") else "_chat")
    raise ValueError(formatter)


def case(formatter, n, seed, fraction=None, max_tokens=None, one_group=False):
    budget = f"{round(fraction * 100)}" if fraction is not None else f"t{max_tokens}"
    return {"name": f"{short(formatter)}_{n}_s{seed}_{budget}" + ("_onegroup" if one_group else ""),
            "n": n, "seed": seed, "one_group": one_group,
            "formatter": formatter, "fraction": fraction, "fixed_max_tokens": max_tokens}


def cases():
    out = [
        # Sessions as the benches make them (gen_session.py's default seed 7).
        case("OpenAIChatFormatter", 255, 7, 0.5),
        case("OpenAIChatFormatter", 256, 7, 0.5),
        case("OpenAIChatFormatter", 1000, 7, 0.5),   # known: 504 messages, 24619 tokens, budget 24639
        case("OpenAIChatFormatter", 1000, 1, 0.5),
        case("OpenAIMultiAgentFormatter", 2500, 7, max_tokens=57015),  # bench budget (half of 114031)
    ]
    # Three cases per formatter: sizes and fractions rotate over the 36
    # slots (sizes shifted by one per provider, so that chat and multi-agent
    # formatters both see small and large sessions); each size is used six
    # times and takes seeds 1, 2, 3, 1, 2, 3 in turn, so no session is
    # shared by more than two formatters (three seeds allow no fewer).
    uses = {}
    for i, formatter in enumerate(FORMATTERS):
        for j in range(3):
            k = 3 * i + j
            n = SIZES[(k + i // 2) % len(SIZES)]
            seed = 1 + uses.get(n, 0) % 3
            uses[n] = uses.get(n, 0) + 1
            out.append(case(formatter, n, seed, FRACTIONS[k % len(FRACTIONS)]))
    # gen_session.py --one-group: no tool calls. The gpt-4o counter cannot
    # count Anthropic's tool_use/tool_result blocks (any budget raises on the
    # first count), so Anthropic's truncation is only reachable this way;
    # for the multi-agent formatters the whole history is one <history>
    # message that truncation shrinks from the front. (Gemini's "parts"
    # raise in the counter whatever the session.)
    out += [
        case("AnthropicChatFormatter", 1100, 2, 0.5, one_group=True),
        case("AnthropicChatFormatter", 2200, 1, 0.15, one_group=True),
        case("AnthropicMultiAgentFormatter", 700, 3, 0.85, one_group=True),
        case("AnthropicMultiAgentFormatter", 1600, 2, 0.3, one_group=True),
        case("OpenAIMultiAgentFormatter", 1000, 1, 0.5, one_group=True),
        case("DashScopeMultiAgentFormatter", 1100, 3, 0.15, one_group=True),
        case("GeminiChatFormatter", 300, 1, 0.5, one_group=True),
    ]
    return out


def digest(messages):
    text = json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def error_of(out):
    """(error_type, error, stage) of an oracle output, or None."""
    if "error" in out:
        return out.get("error_type"), out["error"], out.get("stage")
    if "tokens_error" in out:
        err = out["tokens_error"]
        return err.get("error_type"), err["error"], err.get("stage")
    return None


def run_case(c, tmp):
    flags = ["--one-group"] if c["one_group"] else []
    path = os.path.join(tmp, f"session_{c['n']}_s{c['seed']}{'_g' if flags else ''}.json")
    if not os.path.exists(path):
        text = subprocess.run([sys.executable, os.path.join(REPO, GENERATOR), str(c["n"]), "--seed", str(c["seed"])]
                              + flags, check=True, capture_output=True, text=True).stdout
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    rec = {"name": c["name"], "n": c["n"], "seed": c["seed"], "one_group": c["one_group"],
           "formatter": c["formatter"], "fraction": c["fraction"], "full_tokens": None, "max_tokens": None,
           "kept_messages": None, "tokens": None, "sha256": None, "error_type": None, "error": None,
           "error_stage": None, "seconds": None}
    t0 = time.perf_counter()
    try:
        try:
            full = oracle.run(path, c["formatter"], count=True)
        finally:
            oracle.cleanup_saved_files()
        err = error_of(full)
        if err is None:
            rec["full_tokens"] = full["tokens"]
            max_tokens = c["fixed_max_tokens"] or int(full["tokens"] * c["fraction"])
            try:
                out = oracle.run(path, c["formatter"], max_tokens=max_tokens)
            finally:
                oracle.cleanup_saved_files()
            err = error_of(out)
            if err is None:
                rec.update(max_tokens=max_tokens, kept_messages=len(out["messages"]),
                           tokens=out["tokens"], sha256=digest(out["messages"]))
    except Exception as exc:  # noqa: BLE001  (oracle.run raising itself)
        err = (type(exc).__name__, str(exc), None)
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    if err is not None:
        for key in ("full_tokens", "max_tokens", "kept_messages", "tokens", "sha256"):
            rec[key] = None
        rec["error_type"], rec["error"], rec["error_stage"] = err
    return rec


def main():
    oracle.setup()
    todo = cases()
    results = []
    total = 0.0
    with tempfile.TemporaryDirectory(prefix="truncation-regen-") as tmp:
        for idx, c in enumerate(todo, 1):
            rec = run_case(c, tmp)
            total += rec["seconds"]
            what = (f"error {rec['error_type']}: {rec['error'][:80]}" if rec["error_type"] else
                    f"full {rec['full_tokens']} budget {rec['max_tokens']} -> {rec['kept_messages']} msgs "
                    f"{rec['tokens']} tokens")
            print(f"[{idx}/{len(todo)}] {rec['name']}: {what} ({rec['seconds']:.2f} s, total {total:.0f} s)",
                  file=sys.stderr, flush=True)
            results.append(rec)
    doc = {
        "generator": GENERATOR,
        "oracle": "agentscope 1.0.21 oracle.py --max-tokens",
        "digest": "sha256 of json.dumps(messages, ensure_ascii=False, separators=(',', ':'))",
        "session": "python3 benches/gen_session.py N --seed SEED [--one-group if one_group]",
        "error_stage": "the oracle's stage: count = the full count without a budget failed (no budget "
                       "could be taken; with --max-tokens the same error comes from the first count, stage format)",
        "budget": "max_tokens = int(full_tokens * fraction), full_tokens = oracle.py --count without a budget; "
                  "fraction null: a fixed max_tokens",
        "seconds": "oracle time for the case (count + truncating format), information only",
        "cases": results,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(results)} cases written to {os.path.relpath(OUT, REPO)} (oracle time {total:.0f} s)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
