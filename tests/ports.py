"""Network helpers for tests."""

from __future__ import annotations

import socket


def closed_port() -> int:
    """A local port that was free a moment ago and has no listener now (bound, read, released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
