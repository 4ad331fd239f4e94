#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Response oracle for AgentScope 2.0.11: feed a recorded provider reply
through a real 2.0.11 model class (and the real provider SDK under it) and
print the ChatResponse objects it yields.

    python scripts/response-oracle-v2.py CASE.json --model-class CLASS [--stream]
        [--model-name NAME] [--voice VOICE] [--http-status N] [--number-generated]

CASE.json holds (the format of the 1.0.21 vectors, shared/golden/responses):
  * without --stream: the JSON body the endpoint returns;
  * with --stream: a JSON array of the stream's events, one per SSE `data:`
    payload (Ollama: one per NDJSON line). OpenAI-protocol streams may hold
    the string "[DONE]" where the wire has `data: [DONE]`;
  * with --http-status N (N != 200): the JSON error body the endpoint
    answers with (streamed or not), sent with that status.

How it runs (nothing but AgentScope and the SDK parses):
  The model class is built as a user would (dummy credential, the class's
  own SDK client), with max_retries=0, and called the way an agent calls it:
  `await model([UserMsg], tools=[get_weather, get_time])`; for a stream the
  returned async generator (ChatModelBase.__call__'s wrapper around the
  class's _parse_stream_response, accumulating with _StreamAccumulator) is
  iterated to the end. The recorded reply is put on the wire below the SDK:
    * openai / anthropic SDKs (OpenAIChatModel, DeepSeekChatModel,
      MoonshotChatModel, VolcengineChatModel, DashScopeChatModel,
      OpenAIResponseModel, AnthropicChatModel, MiniMaxChatModel): an
      httpx2.MockTransport given as client_kwargs={"http_client": ...,
      "max_retries": 0}; streams are `text/event-stream` bodies, one frame
      per event (`data: ...\\n\\n`; Anthropic and the Responses API also
      send `event: <type>`, as those servers do);
    * ollama (OllamaChatModel): an httpx.MockTransport given as
      client_kwargs={"transport": ...}; streams are NDJSON lines;
    * google-genai (GeminiChatModel) uses aiohttp: aiohttp.ClientSession.request
      is patched to return an aiohttp.ClientResponse (subclass) whose content
      StreamReader holds the recorded bytes (`data: ...\\r\\n\\r\\n` frames
      for streamGenerateContent?alt=sse, JSON otherwise).
  So the SDK's own HTTP-status handling, SSE/NDJSON decoding and response
  models run exactly as against a live server. Sockets are disabled.
  XAIChatModel (gRPC, xai-sdk) is not supported.

Output (indent 2, ensure_ascii=False, keys in AgentScope's order):
    {"model_class": ..., "stream": ..., "options": {...},
     "chunks": [ChatResponse, ...],   # each ChatResponse the call yields, dumped when yielded;
                                      # non-streamed: [the one ChatResponse]
     "final": ChatResponse | null,    # the last one (is_last=True), dumped after the stream ended;
                                      # null when the call raised
     "warnings": [...],               # only if AgentScope logged warnings ("as" logger)
     "printed": "...",                # only if something was print()ed
     "error": ..., "error_type": ..., "stage": "parse"}   # only if the call raised
  A ChatResponse is dumped as the dict it is (ChatResponse is a dataclass
  dict, not pydantic): content blocks with pydantic model_dump(mode="json")
  (extras such as Anthropic's `signature` included), ChatUsage as its dict,
  enums as values.

Neutralised (non-deterministic) values:
  * every id AgentScope generates (response ids without a provider id, block
    ids of text/thinking/data blocks, Ollama tool-call ids) becomes
    "<generated>" (with --number-generated: "<generated:N>", N numbering
    distinct ids in order of first appearance in the output, so equal ids
    stay recognisable);
  * every timestamp AgentScope generates (`created_at` of responses and
    blocks) becomes "<generated>";
  * `usage.time` (seconds since the request started) becomes "<elapsed>".
  Generated values are recognised exactly: the oracle installs id and
  timestamp factories (agentscope's set_id_factory / set_timestamp_factory)
  that return marker strings, then replaces the markers.

Exit status: 0 ok, 1 the call raised (output has "error"), 2 bad input.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import re
import socket
import sys
import warnings
from enum import Enum
from typing import Any, AsyncIterator, Callable

AGENTSCOPE_VERSION = "2.0.11"

# Versions of the venv the vectors were made with (/work/.venv-v2). Other
# versions only produce a warning on stderr.
PINNED = {
    "agentscope": "2.0.11",
    "openai": "3.40.0",
    "anthropic": "2.3.0",
    "google-genai": "2.33.0",
    "ollama": "0.6.3",
    "httpx": "0.28.1",
    "httpx2": "2.16.0",
    "aiohttp": "3.14.5",
    "pydantic": "2.14.1",
    "json_repair": "0.64.2",
}

# model class -> (wire protocol, default model name, credential class)
MODEL_CLASSES: dict[str, tuple[str, str, str | None]] = {
    "OpenAIChatModel": ("openai-chat", "gpt-4o", "OpenAICredential"),
    "DeepSeekChatModel": ("openai-chat", "deepseek-chat", "DeepSeekCredential"),
    "MoonshotChatModel": ("openai-chat", "kimi-k2.5", "MoonshotCredential"),
    "VolcengineChatModel": ("openai-chat", "doubao-seed-2-1-pro-260628", "VolcengineCredential"),
    "DashScopeChatModel": ("openai-chat", "qwen-plus", "DashScopeCredential"),
    "OpenAIResponseModel": ("openai-responses", "o4-mini", "OpenAICredential"),
    "AnthropicChatModel": ("anthropic", "claude-sonnet-4-6", "AnthropicCredential"),
    "MiniMaxChatModel": ("anthropic", "MiniMax-M2.7", "MiniMaxCredential"),
    "GeminiChatModel": ("gemini", "gemini-2.5-flash", "GeminiCredential"),
    "OllamaChatModel": ("ollama", "qwen3:8b", "OllamaCredential"),
    "XAIChatModel": ("xai", "grok-4.3", "XAICredential"),
}

VOICE_CLASSES = ("OpenAIChatModel", "DashScopeChatModel")

USER_TEXT = "What's the weather in Tokyo right now?"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Get the local time in a time zone.",
            "parameters": {
                "type": "object",
                "properties": {"timezone": {"type": "string"}},
                "required": ["timezone"],
            },
        },
    },
]

ID_MARK = "oracle-generated-id-"
TS_MARK = "oracle-generated-timestamp"
ID_RE = re.compile(r"^oracle-generated-id-\d{6}$")


class OracleInputError(Exception):
    """The input or the options are not what the oracle accepts."""


class _WarningCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record.getMessage())


# ---------------------------------------------------------------------------
# The wire: recorded events -> bytes, as each server sends them
# ---------------------------------------------------------------------------
def _compact(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def wire_frames(protocol: str, data: Any, stream: bool) -> tuple[str, list[bytes]]:
    """(content type, body split into the chunks the server would flush)."""
    if not stream:
        if not isinstance(data, dict):
            raise OracleInputError("a non-streamed reply must be a JSON object (use --stream for an event list)")
        return "application/json", [json.dumps(data, ensure_ascii=False).encode("utf-8")]
    if not isinstance(data, list):
        raise OracleInputError("with --stream the file must hold a JSON array of events")
    frames: list[bytes] = []
    for ev in data:
        if isinstance(ev, str):
            if protocol in ("openai-chat", "openai-responses") and ev.startswith("[DONE]"):
                frames.append(f"data: {ev}\n\n".encode("utf-8"))
                continue
            raise OracleInputError(f"unexpected string event {ev!r} (only \"[DONE]\", OpenAI protocol)")
        if not isinstance(ev, dict):
            raise OracleInputError(f"stream events must be objects, got {ev!r}")
        if protocol == "openai-chat":
            frames.append(f"data: {_compact(ev)}\n\n".encode("utf-8"))
        elif protocol in ("openai-responses", "anthropic"):
            etype = ev.get("type")
            if not isinstance(etype, str):
                raise OracleInputError(f"{protocol} stream events need a string \"type\" (the SSE event name): {ev!r}")
            frames.append(f"event: {etype}\ndata: {_compact(ev)}\n\n".encode("utf-8"))
        elif protocol == "gemini":
            frames.append(f"data: {_compact(ev)}\r\n\r\n".encode("utf-8"))
        elif protocol == "ollama":
            frames.append((_compact(ev) + "\n").encode("utf-8"))
        else:  # pragma: no cover
            raise OracleInputError(protocol)
    ctype = "application/x-ndjson" if protocol == "ollama" else "text/event-stream"
    return ctype, frames


class Wire:
    """The one recorded HTTP answer, and the requests that asked for it."""

    def __init__(self, status: int, content_type: str, frames: list[bytes]) -> None:
        self.status = status
        self.content_type = content_type
        self.frames = frames
        self.requests: list[str] = []

    def headers(self) -> dict[str, str]:
        return {"content-type": self.content_type, "x-request-id": "req_oracle"}

    def _aiter(self):
        frames = self.frames

        class _Body:
            async def __aiter__(self) -> AsyncIterator[bytes]:
                for frame in frames:
                    yield frame

        return _Body()

    def httpx_handler(self, httpx_mod: Any) -> Callable[[Any], Any]:
        def handler(request: Any) -> Any:
            self.requests.append(f"{request.method} {request.url.path}")
            return httpx_mod.Response(self.status, headers=self.headers(), content=self._aiter())

        return handler


def patch_aiohttp(wire: Wire) -> None:
    """google-genai's default async transport is aiohttp: answer its session
    requests with a ClientResponse whose content stream holds the bytes."""
    import aiohttp
    from multidict import CIMultiDict, CIMultiDictProxy

    class _Protocol:  # flow control stand-in for StreamReader
        def pause_reading(self, *args: Any, **kwargs: Any) -> None:
            pass

        def resume_reading(self, *args: Any, **kwargs: Any) -> None:
            pass

    class RecordedClientResponse(aiohttp.ClientResponse):
        _closed = True  # nothing to clean up in __del__

        def __init__(self, status: int, headers: dict[str, str], frames: list[bytes]) -> None:  # noqa: D401
            # ClientResponse.__init__ wants a live connection; set up only
            # what a finished response read by google-genai uses.
            self.status = status
            self.reason = "OK" if status == 200 else "Error"
            self._recorded_headers = CIMultiDictProxy(CIMultiDict(headers))
            self._body = None
            reader = aiohttp.StreamReader(_Protocol(), 2**22, loop=asyncio.get_running_loop())
            for frame in frames:
                reader.feed_data(frame)
            reader.feed_eof()
            self.content = reader

        @property
        def headers(self) -> Any:  # type: ignore[override]
            return self._recorded_headers

        async def read(self) -> bytes:  # type: ignore[override]
            if self._body is None:
                self._body = await self.content.read()
            return self._body

        def release(self) -> Any:  # type: ignore[override]
            self._released = True
            return None

        def close(self) -> None:  # type: ignore[override]
            return None

    async def request(self: Any, method: str, url: Any, **kwargs: Any) -> Any:  # noqa: ARG001
        from urllib.parse import urlsplit

        wire.requests.append(f"{method} {urlsplit(str(url)).path}")
        return RecordedClientResponse(wire.status, wire.headers(), wire.frames)

    aiohttp.ClientSession.request = request  # type: ignore[assignment]


# ---------------------------------------------------------------------------
# Serialisation
# ---------------------------------------------------------------------------
def _jsonable(value: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return _jsonable(value.model_dump(mode="json"))
    if isinstance(value, Enum):
        return _jsonable(value.value)
    if isinstance(value, dict):  # also ChatResponse / ChatUsage (dict dataclasses)
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return {"<bytes>": value.hex()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return {"<object>": type(value).__name__, "repr": repr(value)}


def dump_response(resp: Any) -> dict[str, Any] | None:
    """A snapshot of one ChatResponse (new containers: later mutation of the
    object, e.g. Anthropic's shared ChatUsage, does not leak in)."""
    if resp is None:
        return None
    out = _jsonable(resp)
    usage = out.get("usage")
    if isinstance(usage, dict) and "time" in usage:
        usage["time"] = "<elapsed>"
    return out


class Neutraliser:
    def __init__(self, numbered: bool) -> None:
        self.numbered = numbered
        self.numbers: dict[str, int] = {}

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, str):
            if value == TS_MARK:
                return "<generated>"
            if ID_RE.match(value):
                if not self.numbered:
                    return "<generated>"
                n = self.numbers.setdefault(value, len(self.numbers) + 1)
                return f"<generated:{n}>"
            if ID_MARK in value or TS_MARK in value:
                # A generated value inside a larger string: not expected in
                # 2.0.11; show it rather than hide it.
                return value.replace(TS_MARK, "<generated>").replace(ID_MARK, "<generated-id>")
        return value


def dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------
# Running AgentScope
# ---------------------------------------------------------------------------
def build_model(model_class: str, model_name: str, stream: bool, voice: str | None, wire: Wire) -> Any:
    import agentscope.credential as creds
    import agentscope.model as models

    protocol, _, cred_name = MODEL_CLASSES[model_class]
    cls = getattr(models, model_class)
    cred_cls = getattr(creds, cred_name)
    params = None
    if voice is not None:
        if model_class not in VOICE_CLASSES:
            raise OracleInputError(f"--voice applies to {', '.join(VOICE_CLASSES)} only")
        params = cls.Parameters(voice=voice)

    if protocol in ("openai-chat", "openai-responses", "anthropic"):
        import httpx2

        http_client = httpx2.AsyncClient(transport=httpx2.MockTransport(wire.httpx_handler(httpx2)))
        return cls(
            cred_cls(api_key="sk-oracle"),
            model_name,
            parameters=params,
            stream=stream,
            max_retries=0,
            client_kwargs={"http_client": http_client, "max_retries": 0},
        )
    if protocol == "ollama":
        import httpx

        return cls(
            cred_cls(),
            model_name,
            stream=stream,
            max_retries=0,
            client_kwargs={"transport": httpx.MockTransport(wire.httpx_handler(httpx))},
        )
    if protocol == "gemini":
        patch_aiohttp(wire)
        return cls(cred_cls(api_key="oracle-key"), model_name, stream=stream, max_retries=0)
    raise OracleInputError(f"{model_class} is not supported by this oracle (xAI speaks gRPC)")


async def _call(model: Any, stream: bool, collect: list) -> Any:
    """Call the model as an agent does; snapshot every yielded ChatResponse
    into `collect`. Returns the last ChatResponse object."""
    from agentscope.message import TextBlock, UserMsg

    msgs = [UserMsg(name="user", content=[TextBlock(text=USER_TEXT)])]
    try:
        res = await model(msgs, tools=TOOLS)
        if not stream:
            collect.append(dump_response(res))
            return res
        last = None
        async for chunk in res:
            collect.append(dump_response(chunk))
            last = chunk
        return last
    finally:
        aio = getattr(getattr(model, "client", None), "aio", None)
        if aio is not None and hasattr(aio, "aclose"):
            await aio.aclose()


def run(
    path: str,
    model_class: str,
    stream: bool = False,
    model_name: str | None = None,
    voice: str | None = None,
    http_status: int = 200,
    numbered: bool = False,
) -> dict[str, Any]:
    if model_class not in MODEL_CLASSES:
        raise OracleInputError(f"unknown model class {model_class}")
    protocol, default_name, _ = MODEL_CLASSES[model_class]
    if protocol == "xai":
        raise OracleInputError("XAIChatModel is not supported (gRPC transport; see the README)")
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    model_name = model_name or default_name
    if http_status != 200:
        if not isinstance(data, dict):
            raise OracleInputError("with --http-status the file must hold the JSON error body")
        wire = Wire(http_status, "application/json", [json.dumps(data, ensure_ascii=False).encode("utf-8")])
    else:
        ctype, frames = wire_frames(protocol, data, stream)
        wire = Wire(200, ctype, frames)

    options: dict[str, Any] = {"model_name": model_name}
    if voice is not None:
        options["voice"] = voice
    if http_status != 200:
        options["http_status"] = http_status
    out: dict[str, Any] = {"model_class": model_class, "stream": stream, "options": options}

    as_logger = logging.getLogger("as")
    collector = _WarningCollector()
    as_logger.addHandler(collector)
    printed = io.StringIO()
    chunks: list = []
    try:
        model = build_model(model_class, model_name, stream, voice, wire)
        with contextlib.redirect_stdout(printed):
            last = asyncio.run(_call(model, stream, chunks))
        out["chunks"] = chunks
        out["final"] = dump_response(last)
    except OracleInputError:
        raise
    except Exception as exc:  # AgentScope or the SDK under it raised
        out["chunks"] = chunks
        out["final"] = None
        out["error"] = str(exc)
        out["error_type"] = type(exc).__name__
        out["stage"] = "parse"
    finally:
        as_logger.removeHandler(collector)
    if collector.records:
        out["warnings"] = collector.records
    if printed.getvalue():
        out["printed"] = printed.getvalue()
    if len(wire.requests) > 1:
        raise OracleInputError(f"expected one HTTP request, got {wire.requests}")
    return Neutraliser(numbered)(out)


def _check_versions() -> None:
    from importlib import metadata

    problems = []
    for dist, want in PINNED.items():
        try:
            have = metadata.version(dist)
        except metadata.PackageNotFoundError:
            have = None
        if have != want:
            problems.append(f"{dist} {have} (want {want})")
    if any(p.startswith("agentscope ") for p in problems):
        raise SystemExit(f"response-oracle-v2.py: needs agentscope {AGENTSCOPE_VERSION} (e.g. /work/.venv-v2/bin/python)")
    if problems:
        sys.stderr.write("response-oracle-v2.py: warning: other versions than the vectors': " + "; ".join(problems) + "\n")


def setup() -> None:
    _check_versions()
    # Importing agentscope resets the "as" logger's handlers: import first,
    # then attach the collector (in run()).
    import agentscope.model  # noqa: F401  pylint: disable=unused-import
    from agentscope._utils._common import set_id_factory, set_timestamp_factory

    counter = iter(range(1, 10**6))
    set_id_factory(lambda: f"{ID_MARK}{next(counter):06d}")
    set_timestamp_factory(lambda: TS_MARK)
    logging.getLogger("as").setLevel(logging.INFO)
    # SDK / aiohttp deprecation notices (e.g. anthropic's model deprecation
    # list) would only clutter stderr.
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    def _no_network(*args: Any, **kwargs: Any):
        raise OSError("network disabled by response-oracle-v2.py")

    socket.socket.connect = _no_network  # type: ignore[assignment]
    socket.create_connection = _no_network  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("response", help="recorded reply: a JSON body, or with --stream a JSON array of events")
    parser.add_argument("--model-class", required=True, choices=list(MODEL_CLASSES))
    parser.add_argument("--stream", action="store_true", help="the model is built with stream=True; the file is an event list")
    parser.add_argument("--model-name", help="model name given to the class (only shapes the request)")
    parser.add_argument("--voice", help="Parameters(voice=...) of OpenAIChatModel / DashScopeChatModel (audio output, pcm16 wire format)")
    parser.add_argument("--http-status", type=int, default=200, help="answer with this HTTP status and the file as JSON error body")
    parser.add_argument("--number-generated", action="store_true", help="write generated ids as <generated:N> instead of <generated>")
    args = parser.parse_args(argv)

    setup()
    try:
        out = run(
            args.response,
            args.model_class,
            stream=args.stream,
            model_name=args.model_name,
            voice=args.voice,
            http_status=args.http_status,
            numbered=args.number_generated,
        )
    except OracleInputError as exc:
        sys.stderr.write(f"response-oracle-v2.py: {exc}\n")
        return 2
    sys.stdout.write(dumps(out))
    return 1 if "error" in out else 0


if __name__ == "__main__":
    sys.exit(main())
