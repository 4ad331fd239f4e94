#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""A recording OTLP/HTTP receiver on 127.0.0.1 (standard library only).

    python3 capture_otlp.py --out DIR [--port 0] [--port-file F]

Every POST (any path; exporters use /v1/traces) is answered 200 with an
empty body (an empty ExportTraceServiceRequest response) and its body is
saved exactly as received to DIR/NNN.bin (NNN zero-padded to 3, arrival
order, from 001; still compressed when the exporter compressed it) with the
request line and headers in DIR/NNN.headers.json. The first line on stdout
is the port (also written to --port-file). Stops on SIGINT/SIGTERM.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "capture-otlp/1"
    out_dir = "."
    lock = threading.Lock()
    count = 0

    def log_message(self, fmt, *args):
        pass

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_POST(self):
        body = self._read_body()
        with Handler.lock:
            Handler.count += 1
            n = Handler.count
            base = os.path.join(self.out_dir, f"{n:03d}")
            with open(base + ".bin", "wb") as fh:
                fh.write(body)
            meta = {
                "method": self.command,
                "path": self.path,
                "headers": {k: v for k, v in self.headers.items()},
                "length": len(body),
            }
            with open(base + ".headers.json", "w", encoding="utf-8") as fh:
                json.dump(meta, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
        ctype = self.headers.get("Content-Type") or "application/x-protobuf"
        reply = b"{}" if "json" in ctype else b""
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if reply else "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, metavar="DIR")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    Handler.out_dir = args.out

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(f"{port}\n")
        os.replace(tmp, args.port_file)
    print(port, flush=True)

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    server.serve_forever(poll_interval=0.1)
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
