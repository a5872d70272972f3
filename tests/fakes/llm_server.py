"""A real local HTTP server speaking the Anthropic Messages and OpenAI Chat Completions APIs.

Tests script it with a queue of replies, point the real SDKs at it through `base_url`, and read
back every request it received::

    with FakeLLMServer() as fake:
        fake.enqueue(Reply.rate_limited(), Reply.structured({"label": "price"}))
        settings = fake_llm_settings(fake, provider="anthropic")
        ...
        assert len(fake.requests) == 2

Routes: `POST /v1/messages` (Anthropic, incl. `tool_use` replies and SSE streaming) and
`POST /v1/chat/completions` or `/chat/completions` (OpenAI-compatible, incl. `stream: true` SSE
chunks with usage). So one `fake.url` serves every provider as its `base_url`.
Each request consumes the next scripted `Reply`; an empty queue answers 500 and says so.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Self

from shared.llm.settings import LLMSettings

ReplyKind = Literal["structured", "text", "status", "malformed", "stall"]


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Use the constructors below."""

    kind: ReplyKind
    data: Any = None
    chunks: tuple[str, ...] = ()
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    input_tokens: int = 12
    output_tokens: int = 7

    @classmethod
    def structured(cls, data: Any, *, input_tokens: int = 12, output_tokens: int = 7) -> Reply:
        """Anthropic: a `tool_use` block with `data` as input. OpenAI: `data` as JSON message content."""
        return cls("structured", data=data, input_tokens=input_tokens, output_tokens=output_tokens)

    @classmethod
    def text(cls, text: str, *, input_tokens: int = 12, output_tokens: int = 7) -> Reply:
        """A text reply (streamed as a single delta if the request asked for a stream)."""
        return cls("text", chunks=(text,), input_tokens=input_tokens, output_tokens=output_tokens)

    @classmethod
    def stream(cls, *chunks: str, input_tokens: int = 12, output_tokens: int = 7) -> Reply:
        """A text reply streamed as these deltas (or joined, for a non-streaming request)."""
        return cls("text", chunks=tuple(chunks), input_tokens=input_tokens, output_tokens=output_tokens)

    @classmethod
    def error(cls, status: int, message: str = "scripted error", **headers: str) -> Reply:
        """An HTTP error with an API-style error body (headers: `retry_after="0"` -> `retry-after`)."""
        return cls(
            "status",
            data=message,
            status=status,
            headers=tuple((name.replace("_", "-"), value) for name, value in headers.items()),
        )

    @classmethod
    def rate_limited(cls, retry_after: str = "0") -> Reply:
        """HTTP 429 with `retry-after` (0 = let the client's own backoff decide)."""
        return cls.error(429, "rate limited", retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        """HTTP 5xx."""
        return cls.error(status, "internal server error")

    @classmethod
    def malformed(cls) -> Reply:
        """HTTP 200, `application/json`, with a body that is not JSON."""
        return cls("malformed")

    @classmethod
    def stall(cls, seconds: float = 3.0) -> Reply:
        """Send nothing for `seconds` (longer than the client's timeout), then a text reply."""
        return cls("stall", seconds=seconds, chunks=("too late",))


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    client_port: int = 0  # the caller's TCP port: equal ports = one reused pooled connection

    @property
    def api(self) -> Literal["anthropic", "openai"]:
        """Which protocol the request used."""
        return "anthropic" if self.path.endswith("/messages") else "openai"

    @property
    def streamed(self) -> bool:
        """Whether the request asked for a stream."""
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def retry_count(self) -> int:
        """The SDK's `x-stainless-retry-count` (0 on the first attempt)."""
        return int(self.headers.get("x-stainless-retry-count", "0"))


@dataclass
class _State:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    listings: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)


class FakeLLMServer:
    """The server (ThreadingHTTPServer on 127.0.0.1, port 0, in a daemon thread)."""

    def __init__(self, *, model: str | None = None) -> None:
        self._state = _State()
        self._model = model
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -------------------------------------------------------------------------------
    def start(self) -> Self:
        """Bind an ephemeral port and serve in a background thread."""
        state, model = self._state, self._model

        class Handler(_Handler):
            pass

        Handler.state = state
        Handler.model_override = model
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; stalled handlers are released at once."""
        self._state.closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # scripting and inspection ----------------------------------------------------------------
    @property
    def port(self) -> int:
        """The bound port."""
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for every provider's SDK (`base_url`)."""
        return f"http://127.0.0.1:{self.port}"

    def enqueue(self, *replies: Reply) -> None:
        """Append replies; each request consumes one, in order."""
        with self._state.lock:
            self._state.replies.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def listings(self) -> list[RecordedRequest]:
        """Every model listing (`GET …/models`: free, no completion) received so far, in order."""
        with self._state.lock:
            return list(self._state.listings)

    @property
    def pending(self) -> int:
        """Scripted replies not consumed yet."""
        with self._state.lock:
            return len(self._state.replies)

    def reset(self) -> None:
        """Forget the script and the recorded requests."""
        with self._state.lock:
            self._state.replies.clear()
            self._state.requests.clear()
            self._state.listings.clear()


def fake_llm_settings(
    server: FakeLLMServer,
    provider: str = "anthropic",
    *,
    timeout_s: float = 5.0,
    backoff_s: float = 0.01,
    max_retries: int = 1,
    http_backend: str = "aiohttp",
    **client_overrides: Any,
) -> LLMSettings:
    """`LLMSettings` with all three clients on `provider`, pointed at the fake, with a test key.

    `client_overrides` apply to every client (e.g. `model="kimi-k2-0905-preview"`, `effort=None`);
    `http_backend` is the SDKs' HTTP transport (`LLM_HTTP_BACKEND`).
    """
    client = {"provider": provider, "base_url": server.url, "timeout_s": timeout_s, **client_overrides}
    return LLMSettings(
        _env_file=None,
        extraction=client,
        scoring=client,
        generation=client,
        anthropic_api_key="test-anthropic-key",
        openai_api_key="test-openai-key",
        kimi_api_key="test-kimi-key",
        deepseek_api_key="test-deepseek-key",
        max_retries=max_retries,
        http_backend=http_backend,
        retry_initial_backoff_s=backoff_s,
        retry_max_backoff_s=max(backoff_s, 0.05),
    )


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: _State
    model_override: str | None = None

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without NODELAY, Nagle + delayed ACK add ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test output quiet

    def do_GET(self) -> None:
        """The model list of either API (what a client's start-up connection asks for)."""
        self._listing_request(self._record_listing)

    def _record_listing(self, listed: RecordedRequest) -> None:
        with self.state.lock:
            self.state.listings.append(listed)

    def _listing_request(self, record: Callable[[RecordedRequest], None] | None = None) -> None:
        """Answer `GET …/models` with a one-model list (404 for other paths). `record` is given the
        listing before the answer goes out: a client that has its answer finds it recorded."""
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        if not path.endswith("/models"):
            self._send_json(404, _error_body("not_found_error", f"unknown path {path}"))
            return
        if record is not None:
            record(RecordedRequest("GET", path, headers, None, int(self.client_address[1])))
        model = self.model_override or "fake-model"
        body: dict[str, Any]
        if "anthropic-version" in headers:
            created = "2025-01-01T00:00:00Z"
            entry = {"type": "model", "id": model, "display_name": model, "created_at": created}
            body = {"data": [entry], "has_more": False, "first_id": model, "last_id": model}
        else:
            listed = {"id": model, "object": "model", "created": 0, "owned_by": "fake"}
            body = {"object": "list", "data": [listed]}
        self._send_json(200, body)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?", 1)[0]
        request = RecordedRequest(
            "POST", path, {k.lower(): v for k, v in self.headers.items()}, body, int(self.client_address[1])
        )
        with self.state.lock:
            self.state.requests.append(request)
            reply = self.state.replies.popleft() if self.state.replies else None
        if not (path.endswith("/messages") or path.endswith("/chat/completions")):
            self._send_json(404, _error_body("not_found_error", f"unknown path {path}"))
            return
        if reply is None:
            self._send_json(500, _error_body("api_error", "fake LLM server: no scripted reply left"))
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            self._answer(request, reply)

    def _answer(self, request: RecordedRequest, reply: Reply) -> None:
        if reply.kind == "stall":
            self.state.closing.wait(reply.seconds)
            reply = Reply.text(reply.chunks[0])
        if reply.kind == "status":
            kind = "rate_limit_error" if reply.status == 429 else "api_error"
            self._send_json(reply.status, _error_body(kind, str(reply.data)), dict(reply.headers))
        elif reply.kind == "malformed":
            self._send_bytes(200, b'{"id": "msg_01", "content": [ {"type": "te', "application/json")
        elif request.streamed:
            events = (
                _anthropic_sse(request, reply, self._model(request))
                if request.api == "anthropic"
                else _openai_sse(request, reply, self._model(request))
            )
            self._send_sse(events)
        elif request.api == "anthropic":
            self._send_json(200, _anthropic_message(request, reply, self._model(request)))
        else:
            self._send_json(200, _openai_completion(reply, self._model(request)))

    def _model(self, request: RecordedRequest) -> str:
        if self.model_override:
            return self.model_override
        body = request.body if isinstance(request.body, dict) else {}
        return str(body.get("model", "fake-model"))

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_sse(self, events: list[str]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")  # no content-length: the end of the body is the close
        self.end_headers()
        for event in events:
            self.wfile.write(event.encode())
            self.wfile.flush()
        self.close_connection = True


def _error_body(kind: str, message: str) -> dict[str, Any]:
    # Both SDKs read `error.message`; Anthropic also reads the top-level `type`.
    return {"type": "error", "error": {"type": kind, "message": message, "code": None}}


def _tool_name(request: RecordedRequest) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    choice = body.get("tool_choice") or {}
    if isinstance(choice, dict) and choice.get("name"):
        return str(choice["name"])
    tools = body.get("tools") or [{}]
    return str(tools[0].get("name", "respond"))


def _anthropic_message(request: RecordedRequest, reply: Reply, model: str) -> dict[str, Any]:
    if reply.kind == "structured":
        content: list[dict[str, Any]] = [
            {
                "type": "tool_use",
                "id": f"toolu_{len(request.path)}x",
                "name": _tool_name(request),
                "input": reply.data,
            },
        ]
        stop_reason = "tool_use"
    else:
        content = [{"type": "text", "text": "".join(reply.chunks)}]
        stop_reason = "end_turn"
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
    }


def _openai_completion(reply: Reply, model: str) -> dict[str, Any]:
    content = json.dumps(reply.data) if reply.kind == "structured" else "".join(reply.chunks)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
        },
    }


def _sse(event: str | None, data: Any) -> str:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n"


def _anthropic_sse(request: RecordedRequest, reply: Reply, model: str) -> list[str]:
    chunks = reply.chunks if reply.kind == "text" else (json.dumps(reply.data),)
    events = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": reply.input_tokens, "output_tokens": 1},
                },
            },
        ),
        _sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        _sse("ping", {"type": "ping"}),
    ]
    events += [
        _sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": chunk}},
        )
        for chunk in chunks
    ]
    events += [
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": reply.output_tokens},
            },
        ),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return events


def _openai_sse(request: RecordedRequest, reply: Reply, model: str) -> list[str]:
    chunks = reply.chunks if reply.kind == "text" else (json.dumps(reply.data),)

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [_sse(None, chunk({"role": "assistant", "content": ""}))]
    events += [_sse(None, chunk({"content": text})) for text in chunks]
    events.append(_sse(None, chunk({}, "stop")))
    options = request.body.get("stream_options") if isinstance(request.body, dict) else None
    if isinstance(options, dict) and options.get("include_usage"):
        events.append(
            _sse(
                None,
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": reply.input_tokens,
                        "completion_tokens": reply.output_tokens,
                        "total_tokens": reply.input_tokens + reply.output_tokens,
                    },
                },
            )
        )
    events.append(_sse(None, "[DONE]"))
    return events
