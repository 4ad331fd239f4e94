#!/usr/bin/env python3
"""Regenerates tests/oracle/expected/ from the real AgentScope 1.0.21.

    bash ../shared/reference/setup.sh            # once: the oracle's venv
    ../.venv/bin/python scripts/oracle-regen.py  # from the repo root

Runs the reference oracle in-process over every tests/oracle/cases/*.json
with all twelve formatters (counts and tool schemas included), plus the
truncation budgets and option variants listed below, and writes a
manifest in the golden files' format. Dev-time only: tests read the
stored outputs, never the oracle.
"""
import json, os, sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE_DIR = os.environ.get("ORACLE_DIR", os.path.join(REPO, "..", "shared", "reference"))
sys.path.insert(0, ORACLE_DIR)
import oracle  # noqa: E402

# (folder of sessions, folder of their expected outputs): our edge cases,
# and the example sessions shipped in sessions/, copied to tests/sessions/cases (all but the invalid one).
SUITES = [
    ("tests/oracle/cases", "tests/oracle"),
    ("tests/sessions/cases", "tests/sessions"),
]
SKIP = {"invalid"}
WEB_ROOT = os.path.join(REPO, "tests", "golden", "media", "web")

# Extra runs: case -> list of (variant name, max_tokens, options)
EXTRA = {
    "library_trip": [("max_200", 200, {}), ("max_120", 120, {})],
    "chat_plain": [("max_120", 120, {}), ("max_60", 60, {})],
    "x_tool_result_shapes_more": [("promote", None, {"images": True, "audios": True, "videos": True}),
                                  ("promote.max_300", 300, {"images": True, "audios": True, "videos": True})],
    "x_orphan_tool_result": [("max_20", 20, {}), ("max_30", 30, {})],
    "x_self_closing_tool": [("max_20", 20, {})],
    "x_multi_starts_with_tools": [("max_60", 60, {}), ("history_prompt", None, {"history_prompt": "HIST:"})],
    "x_empty_session": [("max_3", 3, {}), ("max_1", 1, {})],
    "x_only_system": [("max_5", 5, {})],
    "x_image_url_kinds": [("max_30", 30, {})],
}


def main() -> None:
    oracle.setup()
    for cases, out_dir in SUITES:
        regen(cases, out_dir)


def regen(cases_rel: str, out_rel: str) -> None:
    CASES = os.path.join(REPO, cases_rel)
    EXPECTED = os.path.join(REPO, out_rel, "expected")
    files = []
    for name in sorted(f[:-5] for f in os.listdir(CASES) if f.endswith(".json") and f[:-5] not in SKIP):
        path = os.path.join(CASES, name + ".json")
        session = oracle.load_session(path)
        runs = [("plain", None, {})] + EXTRA.get(name, [])
        for formatter in oracle.FORMATTERS:
            for variant, max_tokens, opts in runs:
                try:
                    options = oracle.option_kwargs(formatter, opts.get("images", False), opts.get("audios", False),
                                                   opts.get("videos", False), opts.get("history_prompt"))
                except SystemExit:
                    # Keep only the options this formatter takes.
                    import inspect, agentscope.formatter as F
                    params = inspect.signature(getattr(F, formatter).__init__).parameters
                    options = {}
                    for key, flag in (("promote_tool_result_images", "images"), ("promote_tool_result_audios", "audios"),
                                      ("promote_tool_result_videos", "videos")):
                        if opts.get(flag) and key in params:
                            options[key] = True
                    if opts.get("history_prompt") and "conversation_history_prompt" in params:
                        options["conversation_history_prompt"] = opts["history_prompt"]
                    if not options and variant != "plain" and max_tokens is None:
                        continue
                plain = variant == "plain"
                has_tools = bool(session.get("tools"))
                try:
                    out = oracle.run(path, formatter, max_tokens=max_tokens, count=plain or bool(opts),
                                     tools=plain and has_tools, options=options, web_roots=[WEB_ROOT])
                finally:
                    oracle.cleanup_saved_files()
                suffix = "" if plain else "." + variant
                rel = f"{name}/{formatter}{suffix}.json"
                dest = os.path.join(EXPECTED, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "w", encoding="utf-8") as f:
                    f.write(oracle.dumps(out))
                command = ["python", "oracle.py", f"{cases_rel}/{name}.json", "--formatter", formatter]
                if max_tokens is not None:
                    command += ["--max-tokens", str(max_tokens)]
                if plain or opts:
                    command.append("--count")
                if plain and has_tools:
                    command.append("--tools")
                for key, value in options.items():
                    if key == "conversation_history_prompt":
                        command += ["--conversation-history-prompt", value]
                    else:
                        command.append("--" + key.replace("_", "-"))
                files.append({"case": name, "formatter": formatter, "variant": variant,
                              "expected": "expected/" + rel, "command": command})
    with open(os.path.join(REPO, out_rel, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"agentscope_version": "1.0.21", "cases": cases_rel, "files": files}, f, indent=1)
        f.write("\n")
    print(f"{out_rel}: {len(files)} expected files written")


main()
