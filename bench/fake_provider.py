"""The benchmark's LLM provider: the test fake (`tests.fakes.llm_server`) answering every call by itself.

    python -m bench.fake_provider --latency-ms 300          # prints "port <n>" once listening

`BenchLLMServer` subclasses `FakeLLMServer`: same routes, wire formats and SDK compatibility
(Anthropic Messages with tool use and SSE, OpenAI chat completions with JSON mode and SSE), but
instead of consuming a scripted queue, each request is answered by `bench.auto_llm.AutoResponder`
after a configurable latency. Streams send their first delta after `first_token_share` of the
latency and spread the other deltas over the rest.

Every call is logged with its start and end on `time.monotonic()` (the same clock in every process
of the machine), so the benchmark can tell which calls overlapped within a turn. Control routes
(loopback only, JSON): `GET /_bench/calls?since=<index>` the call log from an index,
`POST /_bench/config` `{"latency_ms": 300, "first_token_share": 0.5}`, `POST /_bench/reset`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import threading
import time
from dataclasses import asdict, dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bench.auto_llm import Api, AutoReply, AutoResponder
from tests.fakes.llm_server import FakeLLMServer, RecordedRequest, Reply, _Handler


@dataclass(frozen=True)
class CallRecord:
    """One answered LLM request: kind, protocol and its start/end on the monotonic clock."""

    index: int
    kind: str
    api: str
    streamed: bool
    start: float
    end: float
    input_tokens: int
    output_tokens: int


@dataclass
class BenchConfig:
    """Latency of every call; `first_token_share` of it passes before a stream's first delta."""

    latency_ms: float = 0.0
    first_token_share: float = 0.5


@dataclass
class _BenchState:
    config: BenchConfig
    responder: AutoResponder = field(default_factory=AutoResponder)
    calls: list[CallRecord] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)


class _Server(ThreadingHTTPServer):
    # Many sessions open connections at once (a stream closes its connection after each reply):
    # the default backlog of 5 would drop SYNs and add 1 s retransmits to the measured latency.
    request_queue_size = 512
    daemon_threads = True


def as_reply(auto: AutoReply) -> Reply:
    """The base fake's `Reply` for an automatic answer (structured data, or text in word chunks)."""
    if auto.data is not None:
        return Reply.structured(auto.data, input_tokens=auto.input_tokens, output_tokens=auto.output_tokens)
    words = auto.text.split(" ")
    chunks = [
        " ".join(words[i : i + 3]) + (" " if i + 3 < len(words) else "") for i in range(0, len(words), 3)
    ]
    return Reply.stream(*chunks, input_tokens=auto.input_tokens, output_tokens=auto.output_tokens)


class _BenchHandler(_Handler):
    bench: _BenchState

    def do_GET(self) -> None:  # noqa: N802 - the http.server handler API
        parts = urlsplit(self.path)
        if parts.path == "/_bench/calls":
            since = int(parse_qs(parts.query).get("since", ["0"])[0])
            with self.bench.lock:  # since=-1: only the total
                calls = [asdict(c) for c in self.bench.calls[since:]] if since >= 0 else []
                total = len(self.bench.calls)
            self._send_json(200, {"calls": calls, "total": total})
        elif parts.path == "/_bench/health":
            self._send_json(200, {"ok": True})
        elif parts.path.startswith("/_bench/"):
            self._send_json(404, {"error": f"unknown path {parts.path}"})
        else:
            self._listing_request()  # the model list (a client's start-up connection)

    def do_POST(self) -> None:  # noqa: N802 - the http.server handler API
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        if path.startswith("/_bench/"):
            self._control(path, raw)
            return
        start = time.monotonic()
        try:
            body: Any = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {}
        if not (path.endswith("/messages") or path.endswith("/chat/completions")):
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
            return
        request = RecordedRequest("POST", path, {k.lower(): v for k, v in self.headers.items()}, body)
        api: Api = request.api
        auto = self.bench.responder.reply(api, body if isinstance(body, dict) else {})
        config = self.bench.config
        latency = config.latency_ms / 1000.0
        if not request.streamed:
            self._wait_until(start + latency)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(request, as_reply(auto))
        with self.bench.lock:
            self.bench.calls.append(
                CallRecord(
                    index=len(self.bench.calls),
                    kind=auto.kind,
                    api=api,
                    streamed=request.streamed,
                    start=start,
                    end=time.monotonic(),
                    input_tokens=auto.input_tokens,
                    output_tokens=auto.output_tokens,
                )
            )

    def _send_sse(self, events: list[str]) -> None:
        """Headers at once, the first delta after `first_token_share` of the latency, the rest spread."""
        config = self.bench.config
        latency = config.latency_ms / 1000.0
        start = time.monotonic()
        first = latency * config.first_token_share
        deltas = [
            i
            for i, e in enumerate(events)
            if "text_delta" in e or ('"content": "' in e and '"content": ""' not in e)
        ]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.flush()
        step = (latency - first) / max(len(deltas) - 1, 1)
        for i, event in enumerate(events):
            if deltas and i >= deltas[0] and i in deltas:
                self._wait_until(start + first + step * deltas.index(i))
            elif deltas and i > deltas[-1]:
                self._wait_until(start + latency)
            self.wfile.write(event.encode())
            self.wfile.flush()
        self.close_connection = True

    def _wait_until(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining > 0:
            self.bench.closing.wait(remaining)

    def _control(self, path: str, raw: bytes) -> None:
        if path == "/_bench/config":
            data = json.loads(raw or b"{}")
            with self.bench.lock:
                if "latency_ms" in data:
                    self.bench.config.latency_ms = float(data["latency_ms"])
                if "first_token_share" in data:
                    self.bench.config.first_token_share = float(data["first_token_share"])
                current = asdict(self.bench.config)
            self._send_json(200, current)
        elif path == "/_bench/reset":
            with self.bench.lock:
                self.bench.calls.clear()
            self._send_json(200, {"ok": True})
        else:
            self._send_json(404, {"error": f"unknown path {path}"})


class BenchLLMServer(FakeLLMServer):
    """`FakeLLMServer` that answers every request automatically after a configurable latency."""

    def __init__(self, config: BenchConfig | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__()
        self.bench = _BenchState(config or BenchConfig())
        self._host, self._bind_port = host, port

    def start(self) -> BenchLLMServer:
        """Bind and serve in a background thread."""
        state = self.bench

        class Handler(_BenchHandler):
            pass

        Handler.bench = state
        self._httpd = _Server((self._host, self._bind_port), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="bench-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; handlers waiting out their latency are released at once."""
        self.bench.closing.set()
        super().stop()

    @property
    def calls(self) -> list[CallRecord]:
        """Every answered call so far."""
        with self.bench.lock:
            return list(self.bench.calls)


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; print the port on the first line of stdout."""
    parser = argparse.ArgumentParser(description="Benchmark LLM provider (loopback only).")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--first-token-share", type=float, default=0.5)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = BenchLLMServer(BenchConfig(args.latency_ms, args.first_token_share), port=args.port).start()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"port {server.port}", flush=True)
    stop.wait()
    server.stop()
    return 0


def free_ports(count: int) -> list[int]:
    """`count` distinct TCP ports free on 127.0.0.1 right now. Every probe stays bound until all
    are picked: probed one at a time, the OS may hand out the same port twice (two services were
    once given one port, and gRPC's SO_REUSEPORT let both bind it)."""
    with contextlib.ExitStack() as stack:
        probes = [stack.enter_context(socket.socket()) for _ in range(count)]
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]


if __name__ == "__main__":
    raise SystemExit(main())
