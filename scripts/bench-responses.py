#!/usr/bin/env python3
"""AgentScope's own parse of the recorded golden streams (the SDK objects
built from the events, then the model class's stream parser), timed in
process, beside `cargo bench --bench responses` (parse_events) from the
same run. Prints the cost per event of each.
    ../.venv/bin/python scripts/bench-responses.py [criterion estimates dir]
"""
import json, os, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "reference"))
import response_oracle as ro  # noqa: E402

ro.setup()
man = json.load(open(os.path.join(ROOT, "tests/golden/responses/manifest.json")))
runs = []
for c in man["cases"]:
    w = c["command"].split()
    if "--stream" not in w or any(x.startswith("--no") or x == "--structured" for x in w):
        continue
    path = os.path.join(ROOT, "tests/golden/responses", w[2].split("responses/")[1])
    model = w[w.index("--model-name") + 1] if "--model-name" in w else None
    runs.append((path, w[4], model))
events = sum(len(json.load(open(p))) for p, _, _ in runs)
import logging
logging.getLogger("as").setLevel(logging.ERROR)
best = None
for _ in range(5):
    t = time.perf_counter()
    for _ in range(20):
        for path, prov, model in runs:
            ro.run(path, prov, stream=True, model_name=model)
    dt = (time.perf_counter() - t) / 20
    best = dt if best is None else min(best, dt)
print(f"AgentScope: {len(runs)} streams, {events} events: {best*1e3:.2f} ms, {best/events*1e6:.1f} µs per event")
est = os.path.join(ROOT, "target/criterion/parse_events/new/estimates.json")
if len(sys.argv) > 1:
    est = sys.argv[1]
if os.path.exists(est):
    ours = json.load(open(est))["median"]["point_estimate"] / 1e9
    print(f"formatscope: {ours*1e3:.3f} ms, {ours/events*1e6:.2f} µs per event: {best/ours:.0f}× faster")
