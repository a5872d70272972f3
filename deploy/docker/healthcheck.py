"""Container health probe: exit 0 when `grpc.health.v1.Health/Check` answers SERVING, else 1.

The image's HEALTHCHECK and docker-compose.yml run it; Kubernetes uses its native gRPC probes instead.

    python deploy/docker/healthcheck.py                     # localhost:$PORT, overall health ("")
    python deploy/docker/healthcheck.py --port 50053 --service interview.graph.v1.GraphService
    python deploy/docker/healthcheck.py --tls --ca /tls/cert.pem --server-name interview.example

A port served with TLS (the orchestrator's public port with ORCHESTRATOR_TLS_CERT_FILE/_KEY_FILE)
needs `--tls` (or HEALTHCHECK_TLS=true): `--ca` (HEALTHCHECK_CA_FILE) holds the roots that signed
the server's certificate (system roots if unset), `--server-name` (HEALTHCHECK_SERVER_NAME) the name
the certificate is for, since the probe dials 127.0.0.1.

Docker reads only the exit status (0 healthy, 1 unhealthy; 2 is reserved), so every failure —
NOT_SERVING, SERVICE_UNKNOWN, nothing listening, a timeout, a bad argument — exits 1 with one line
on stderr saying which. It imports nothing from the project: it runs every few seconds and must
stay cheap.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

HEALTHY = 0
UNHEALTHY = 1


def parse_args(argv: Sequence[str] | None, env: Mapping[str, str]) -> argparse.Namespace:
    """Command-line options; the port defaults to the `PORT` variable the image sets."""
    parser = argparse.ArgumentParser(description="gRPC health probe (grpc.health.v1)")
    parser.add_argument("--host", default="127.0.0.1", help="address of the server (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=env.get("PORT"), help="gRPC port (default: $PORT)")
    parser.add_argument("--service", default="", help='service name to check ("" = the whole server)')
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the answer")
    parser.add_argument(
        "--tls",
        action="store_true",
        default=env.get("HEALTHCHECK_TLS", "").strip().lower() in {"1", "true", "yes"},
        help="connect with TLS (default: $HEALTHCHECK_TLS)",
    )
    parser.add_argument("--ca", default=env.get("HEALTHCHECK_CA_FILE") or None, help="PEM roots for TLS")
    parser.add_argument(
        "--server-name",
        default=env.get("HEALTHCHECK_SERVER_NAME") or None,
        help="name the certificate is for",
    )
    args = parser.parse_args(argv)
    if args.port is None:
        parser.error("no port: pass --port or set PORT")
    return args


def open_channel(target: str, tls: bool, ca: str | None, server_name: str | None) -> grpc.Channel:
    """A plaintext or TLS channel to `target` (raises OSError when the CA file cannot be read)."""
    # No proxy: a probe of a local port must never be routed through $http_proxy.
    options: list[tuple[str, int | str]] = [("grpc.enable_http_proxy", 0)]
    if not tls:
        return grpc.insecure_channel(target, options=options)
    roots = None
    if ca:
        with open(ca, "rb") as pem:
            roots = pem.read()
    if server_name:
        options.append(("grpc.ssl_target_name_override", server_name))
    return grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=roots), options=options)


def check(
    host: str,
    port: int,
    service: str,
    timeout: float,
    *,
    tls: bool = False,
    ca: str | None = None,
    server_name: str | None = None,
) -> tuple[bool, str]:
    """Ask the server for `service`'s status; (healthy, one-line description)."""
    target = f"{host}:{port}"
    try:
        channel = open_channel(target, tls, ca, server_name)
    except OSError as exc:
        return False, f"{target}: cannot read the CA file {ca}: {exc.strerror}"
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            name = code.name if code is not None else "ERROR"
            return False, f"{target}: health check failed: {name}"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return (
        reply.status == health_pb2.HealthCheckResponse.SERVING,
        f"{target} {service or '(server)'}: {status}",
    )


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run one probe and return the exit status (0 SERVING, 1 anything else)."""
    try:
        args = parse_args(argv, os.environ if env is None else env)
    except SystemExit as exc:  # argparse exits 2 on bad usage; Docker reserves 2
        return HEALTHY if exc.code == 0 else UNHEALTHY
    healthy, message = check(
        args.host,
        args.port,
        args.service,
        args.timeout,
        tls=args.tls,
        ca=args.ca,
        server_name=args.server_name,
    )
    print(message, file=sys.stdout if healthy else sys.stderr)
    return HEALTHY if healthy else UNHEALTHY


if __name__ == "__main__":
    sys.exit(main())
