"""Where the PostgreSQL tests get their server: TEST_DATABASE_URL, else testcontainers, else a skip."""

from __future__ import annotations

from tests.pg import docker_unavailable_reason


def test_no_docker_engine_is_a_stated_reason() -> None:
    # This machine has no Docker engine; a socket nobody listens on stands for any such host.
    reason = docker_unavailable_reason({"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert reason is not None
    assert reason.startswith("no Docker engine answers (") and "testcontainers cannot start one" in reason
