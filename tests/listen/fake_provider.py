#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""A scripted fake LLM provider on 127.0.0.1 (standard library only).

    python3 fake_provider.py [--port 0] [--port-file F] [--record DIR] [--delay SECONDS]

Speaks just enough of three wire protocols for AgentScope's model classes:

  OpenAI chat completions   POST /v1/chat/completions  (or /chat/completions)
                            SSE when the body has "stream": true, else JSON
  Anthropic messages        POST /v1/messages           SSE when "stream": true
  DashScope                 POST /api/v1/services/aigc/text-generation/generation
                            POST /api/v1/services/aigc/multimodal-generation/generation
                            SSE when the request has the header
                            `X-DashScope-SSE: enable` (what the dashscope SDK
                            sends for stream=True), chunks as incremental
                            output (each chunk carries only the new part)

The script is stateless and deterministic: when the conversation ends in a
tool result (OpenAI/DashScope `role: tool`, Anthropic a user message with a
`tool_result` block; 2.x `<system-reminder>` user messages are skipped), the
reply is a plain text answer; otherwise it is a call of the tool
`get_weather` with the arguments `{"city":"東京"}` (compact JSON, as real
OpenAI writes it). So a ReAct agent with that tool makes exactly two model
calls per reply: tool call, then answer. Ids come from the request counter
N (1, 2, ...): response id `chatcmpl-N` / `msg_N` / `req-N`, tool call id
`call_000N` / `toolu_000N`.

With --record DIR every request body is saved EXACTLY as received to
DIR/NNNNN.json (N zero-padded to 5, arrival order, from 00001) and one line
`{"n": N, "file": "NNNNN.json", "method": ..., "path": ..., "stream": ...}` is
appended to DIR/index.jsonl. The first line on stdout is the port (also
written to --port-file). Stops on SIGINT/SIGTERM.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOL_NAME = "get_weather"
TOOL_ARGS = '{"city":"東京"}'
# Streamed in two pieces, as real providers split arguments.
TOOL_ARGS_PARTS = ('{"city":', '"東京"}')
ANSWER = "It's sunny in 東京, 23 °C.\nHave a \"nice\" day!"
ANSWER_PARTS = ("It's sunny in 東京, ", "23 °C.\nHave a \"nice\" day!")
CREATED = 1767225600  # fixed, for determinism

OPENAI_PATHS = ("/v1/chat/completions", "/chat/completions")
ANTHROPIC_PATHS = ("/v1/messages",)
DASHSCOPE_TEXT = "/api/v1/services/aigc/text-generation/generation"
DASHSCOPE_MM = "/api/v1/services/aigc/multimodal-generation/generation"


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------
# Which turn is it?


def _is_reminder(content) -> bool:
    """A 2.x runtime-state hint (`<system-reminder>...`) user message."""
    if isinstance(content, str):
        return content.lstrip().startswith("<system-reminder>")
    if isinstance(content, list) and content:
        texts = [b.get("text", "") for b in content if isinstance(b, dict)]
        return bool(texts) and all(
            isinstance(t, str) and t.lstrip().startswith("<system-reminder>") for t in texts
        )
    return False


def after_tool_result(messages) -> bool:
    """Does the conversation end in a tool result (skipping reminders)?"""
    for msg in reversed(messages or []):
        if not isinstance(msg, dict):
            return False
        role = msg.get("role")
        content = msg.get("content")
        if role == "tool":
            return True
        if role == "user":
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                return True
            if _is_reminder(content):
                continue
        return False
    return False


# --------------------------------------------------------------------------
# OpenAI


def openai_reply(n: int, body: dict) -> tuple[str, bytes | list[bytes]]:
    model = body.get("model", "gpt-4o")
    answer = after_tool_result(body.get("messages"))
    rid = f"chatcmpl-{n}"
    call_id = f"call_{n:04d}"
    usage = {"prompt_tokens": 10 * n, "completion_tokens": 5, "total_tokens": 10 * n + 5}
    if not body.get("stream"):
        if answer:
            message = {"role": "assistant", "content": ANSWER, "refusal": None}
            finish = "stop"
        else:
            message = {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": TOOL_NAME, "arguments": TOOL_ARGS},
                    }
                ],
            }
            finish = "tool_calls"
        out = {
            "id": rid,
            "object": "chat.completion",
            "created": CREATED,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": usage,
        }
        return "application/json", dumps(out).encode()

    def chunk(delta, finish=None, choices=True, with_usage=False):
        c = {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
            if choices
            else [],
        }
        if with_usage:
            c["usage"] = usage
        return f"data: {dumps(c)}\n\n".encode()

    events = []
    if answer:
        events.append(chunk({"role": "assistant", "content": ""}))
        for part in ANSWER_PARTS:
            events.append(chunk({"content": part}))
        events.append(chunk({}, "stop"))
    else:
        events.append(
            chunk(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": TOOL_NAME, "arguments": ""},
                        }
                    ],
                }
            )
        )
        for part in TOOL_ARGS_PARTS:
            events.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}))
        events.append(chunk({}, "tool_calls"))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(chunk(None, choices=False, with_usage=True))
    events.append(b"data: [DONE]\n\n")
    return "text/event-stream; charset=utf-8", events


# --------------------------------------------------------------------------
# Anthropic


def anthropic_reply(n: int, body: dict) -> tuple[str, bytes | list[bytes]]:
    model = body.get("model", "claude")
    answer = after_tool_result(body.get("messages"))
    mid = f"msg_{n}"
    tool_id = f"toolu_{n:04d}"
    usage_in = {"input_tokens": 10 * n, "output_tokens": 1}
    if not body.get("stream"):
        if answer:
            content = [{"type": "text", "text": ANSWER}]
            stop = "end_turn"
        else:
            content = [
                {"type": "tool_use", "id": tool_id, "name": TOOL_NAME, "input": json.loads(TOOL_ARGS)}
            ]
            stop = "tool_use"
        out = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10 * n, "output_tokens": 5},
        }
        return "application/json", dumps(out).encode()

    def ev(name, data):
        return f"event: {name}\ndata: {dumps(data)}\n\n".encode()

    events = [
        ev(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage_in,
                },
            },
        )
    ]
    if answer:
        events.append(
            ev("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        )
        for part in ANSWER_PARTS:
            events.append(
                ev(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": part}},
                )
            )
        stop = "end_turn"
    else:
        events.append(
            ev(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "id": tool_id, "name": TOOL_NAME, "input": {}},
                },
            )
        )
        for part in TOOL_ARGS_PARTS:
            events.append(
                ev(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": part},
                    },
                )
            )
        stop = "tool_use"
    events.append(ev("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(
        ev(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}},
        )
    )
    events.append(ev("message_stop", {"type": "message_stop"}))
    return "text/event-stream; charset=utf-8", events


# --------------------------------------------------------------------------
# DashScope


def dashscope_reply(n: int, body: dict, stream: bool, multimodal: bool) -> tuple[str, bytes | list[bytes]]:
    messages = (body.get("input") or {}).get("messages") or body.get("messages")
    answer = after_tool_result(messages)
    rid = f"req-{n}"
    call_id = f"call_{n:04d}"

    def text(t):
        if multimodal:
            return [{"text": t}] if t else []
        return t

    def usage(out_tokens):
        return {"input_tokens": 10 * n, "output_tokens": out_tokens, "total_tokens": 10 * n + out_tokens}

    if not stream:
        if answer:
            message = {"role": "assistant", "content": text(ANSWER)}
            finish = "stop"
        else:
            message = {
                "role": "assistant",
                "content": text(""),
                "tool_calls": [
                    {"index": 0, "id": call_id, "type": "function", "function": {"name": TOOL_NAME, "arguments": TOOL_ARGS}}
                ],
            }
            finish = "tool_calls"
        out = {
            "output": {"choices": [{"finish_reason": finish, "message": message}]},
            "usage": usage(5),
            "request_id": rid,
        }
        return "application/json", dumps(out).encode()

    deltas = []  # (message, finish_reason)
    if answer:
        for part in ANSWER_PARTS:
            deltas.append(({"role": "assistant", "content": text(part)}, "null"))
        deltas.append(({"role": "assistant", "content": text("")}, "stop"))
    else:
        first, second = TOOL_ARGS_PARTS
        deltas.append(
            (
                {
                    "role": "assistant",
                    "content": text(""),
                    "tool_calls": [
                        {"index": 0, "id": call_id, "type": "function", "function": {"name": TOOL_NAME, "arguments": first}}
                    ],
                },
                "null",
            )
        )
        deltas.append(
            (
                {
                    "role": "assistant",
                    "content": text(""),
                    "tool_calls": [{"index": 0, "function": {"arguments": second}}],
                },
                "null",
            )
        )
        deltas.append(({"role": "assistant", "content": text("")}, "tool_calls"))
    events = []
    for i, (message, finish) in enumerate(deltas, 1):
        data = {
            "output": {"choices": [{"message": message, "finish_reason": finish}]},
            "usage": usage(i),
            "request_id": rid,
        }
        events.append(f"id:{i}\nevent:result\n:HTTP_STATUS/200\ndata:{dumps(data)}\n\n".encode())
    return "text/event-stream;charset=UTF-8", events


# --------------------------------------------------------------------------
# Server


class Recorder:
    def __init__(self, directory: str | None):
        self.directory = directory
        self.lock = threading.Lock()
        self.count = 0
        if directory:
            os.makedirs(directory, exist_ok=True)

    def next(self, method: str, path: str, body: bytes, stream: bool) -> int:
        with self.lock:
            self.count += 1
            n = self.count
            if self.directory:
                name = f"{n:05d}.json"
                with open(os.path.join(self.directory, name), "wb") as fh:
                    fh.write(body)
                line = {"n": n, "file": name, "method": method, "path": path, "stream": stream}
                with open(os.path.join(self.directory, "index.jsonl"), "a", encoding="utf-8") as fh:
                    fh.write(dumps(line) + "\n")
            return n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-provider/1"
    recorder: Recorder
    delay = 0.0

    def log_message(self, fmt, *args):  # quiet; errors go to stderr below
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

    def _send(self, status: int, ctype: str, payload: bytes | list[bytes]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if isinstance(payload, list):
            # An SSE stream: chunked, one HTTP chunk per event, then close.
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for event in payload:
                if self.delay:
                    time.sleep(self.delay)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        else:
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()

    def do_GET(self):
        self._send(404, "application/json", b'{"error":"not found"}')

    def do_POST(self):
        body = self._read_body()
        path = self.path.split("?", 1)[0]
        try:
            parsed = json.loads(body.decode("utf-8")) if body else {}
        except ValueError:
            parsed = None
        if path in OPENAI_PATHS:
            kind = "openai"
            stream = bool(isinstance(parsed, dict) and parsed.get("stream"))
        elif path in ANTHROPIC_PATHS:
            kind = "anthropic"
            stream = bool(isinstance(parsed, dict) and parsed.get("stream"))
        elif path in (DASHSCOPE_TEXT, DASHSCOPE_MM):
            kind = "dashscope"
            stream = (self.headers.get("X-DashScope-SSE") or "").lower() == "enable" or bool(
                isinstance(parsed, dict) and (parsed.get("parameters") or {}).get("stream")
            )
        else:
            kind = None
            stream = False
        n = self.recorder.next("POST", self.path, body, stream)
        if kind is None:
            self._send(404, "application/json", dumps({"error": {"message": f"no route {path}"}}).encode())
            return
        if not isinstance(parsed, dict):
            self._send(400, "application/json", dumps({"error": {"message": "body is not a JSON object"}}).encode())
            return
        try:
            if kind == "openai":
                ctype, payload = openai_reply(n, parsed)
            elif kind == "anthropic":
                ctype, payload = anthropic_reply(n, parsed)
            else:
                ctype, payload = dashscope_reply(n, parsed, stream, path == DASHSCOPE_MM)
        except Exception as exc:  # a bug here should be visible, not a hang
            print(f"fake_provider: {exc!r}", file=sys.stderr)
            self._send(500, "application/json", dumps({"error": {"message": repr(exc)}}).encode())
            return
        self._send(200, ctype, payload)
        if isinstance(payload, list):
            self.close_connection = True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--record", metavar="DIR")
    ap.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                    help="sleep before each SSE event (spreads a run over several span exports)")
    args = ap.parse_args(argv)

    Handler.recorder = Recorder(args.record)
    Handler.delay = args.delay
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
