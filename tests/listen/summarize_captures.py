#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Decode and summarize OTLP captures (needs opentelemetry-proto: run it with
a listen venv's python).

    PY summarize_captures.py DIR...            # one summary per scenario dir
    PY summarize_captures.py --spans DIR       # every span: export, name, ids, attribute keys
    PY summarize_captures.py --dump FILE.bin   # one export as JSON-ish text

DIR holds NNN.bin (+ NNN.headers.json, whose Content-Encoding says gzip or
deflate) and optionally bodies/ (the fake provider's request bodies).
"""
from __future__ import annotations

import collections
import glob
import gzip
import json
import os
import sys
import zlib

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def load(path: str) -> ExportTraceServiceRequest:
    data = open(path, "rb").read()
    hdr = path[: -len(".bin")] + ".headers.json"
    enc = ""
    if os.path.exists(hdr):
        headers = {k.lower(): v for k, v in json.load(open(hdr, encoding="utf-8"))["headers"].items()}
        enc = headers.get("content-encoding", "").lower()
    if enc == "gzip":
        data = gzip.decompress(data)
    elif enc == "deflate":
        data = zlib.decompress(data)
    req = ExportTraceServiceRequest()
    req.ParseFromString(data)
    return req


def spans(req):
    for rs in req.resource_spans:
        for ss in rs.scope_spans:
            for sp in ss.spans:
                yield rs, ss, sp


def summarize(d: str) -> dict:
    bins = sorted(glob.glob(os.path.join(d, "*.bin")))
    names = collections.Counter()
    scopes = collections.Counter()
    per_export = []
    encodings = collections.Counter()
    for b in bins:
        hdr = b[: -len(".bin")] + ".headers.json"
        if os.path.exists(hdr):
            h = {k.lower(): v for k, v in json.load(open(hdr, encoding="utf-8"))["headers"].items()}
            encodings[h.get("content-encoding", "identity")] += 1
        req = load(b)
        n = 0
        for _, ss, sp in spans(req):
            names[sp.name] += 1
            scopes[f"{ss.scope.name} {ss.scope.version}"] += 1
            n += 1
        per_export.append(n)
    bodies = sorted(glob.glob(os.path.join(d, "bodies", "*.json")))
    return {
        "dir": d,
        "exports": len(bins),
        "spans_per_export": per_export,
        "encodings": dict(encodings),
        "scopes": dict(scopes),
        "spans_by_name": dict(sorted(names.items())),
        "provider_requests": len(bodies),
        "bytes": sum(os.path.getsize(p) for p in bins + bodies),
    }


def list_spans(d: str) -> None:
    for b in sorted(glob.glob(os.path.join(d, "*.bin"))):
        for _, ss, sp in spans(load(b)):
            keys = [a.key for a in sp.attributes]
            print(f"{os.path.basename(b)} {sp.name!r} span={sp.span_id.hex()} parent={sp.parent_span_id.hex() or '-'} "
                  f"trace={sp.trace_id.hex()[:8]} status={sp.status.code} keys={keys}")


def dump(path: str) -> None:
    from google.protobuf.json_format import MessageToDict

    print(json.dumps(MessageToDict(load(path)), ensure_ascii=False, indent=1))


def main(argv) -> int:
    if len(argv) == 3 and argv[1] == "--spans":
        list_spans(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "--dump":
        dump(argv[2])
        return 0
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for d in argv[1:]:
        print(json.dumps(summarize(d), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
