"""Argument parsing and dispatch; maps failures to exit codes (0 ok, 1 gRPC error, 2 usage)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import grpc

from cli.actions import ExportWriteError
from cli.commands import cmd_answer, cmd_export, cmd_sessions_list, cmd_start
from cli.connection import Client, ConnectionOptions, NotServingError, UsageError, open_channel
from cli.errors import describe, parse_rpc_error
from cli.interactive import InteractiveOptions, Interview
from cli.render import EXPORT_FORMATS, SESSION_STATUSES
from cli.settings import ClientSettings, EnvironmentHints

EXIT_OK, EXIT_RPC, EXIT_USAGE = 0, 1, 2

Handler = Callable[[Client, argparse.Namespace], int]


def _positive(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return number


def _connection_arguments(parser: argparse.ArgumentParser, settings: ClientSettings | None) -> None:
    """--target/--token/--tls/--ca/--timeout. Subcommands get them too, with SUPPRESS defaults, so
    an option given before the subcommand is not overwritten by the subparser's default."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if settings is None else value

    token = settings.token.get_secret_value() if settings and settings.token else None
    parser.add_argument("--target", default=default(settings and settings.target), help="host:port")
    parser.add_argument("--token", default=default(token), help="bearer token (authorization metadata)")
    parser.add_argument("--tls", action="store_true", default=default(settings and settings.tls))
    parser.add_argument("--ca", type=Path, default=default(settings and settings.ca_file), help="PEM roots")
    parser.add_argument(
        "--timeout", type=float, default=default(settings and settings.timeout_s), help="seconds per call"
    )


def build_parser(settings: ClientSettings) -> argparse.ArgumentParser:
    """The command line: interactive by default, or one subcommand."""
    parser = argparse.ArgumentParser(
        prog="python -m cli",
        description="Interview suite client: an interactive interview, or one subcommand.",
    )
    _connection_arguments(parser, settings)
    parser.add_argument("--concept", help="concept id (skips the concept list)")
    parser.add_argument("--methodology", default="", help="methodology override")
    parser.add_argument("--max-turns", type=_positive, default=0, help="0 = the concept's default")
    parser.add_argument("--wait", type=float, default=settings.wait_s, help="seconds to wait for SERVING")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, handler: Handler, **kwargs: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, **kwargs)  # type: ignore[arg-type]
        _connection_arguments(p, None)
        p.set_defaults(handler=handler)
        return p

    start = command("start", cmd_start, help="create a session; print its id and opening question")
    start.add_argument("concept_id")
    # Also accepted before the subcommand (the top-level options): the subcommand's copies only
    # override what they are given, or their defaults would silently replace the earlier values.
    start.add_argument("--methodology", default=argparse.SUPPRESS, help="methodology override")
    start.add_argument(
        "--max-turns", type=_positive, default=argparse.SUPPRESS, help="0 = the concept's default"
    )
    start.add_argument("--json", action="store_true", help="print the CreateSession response as JSON")

    answer = command("answer", cmd_answer, help="answer the next turn of a session")
    answer.add_argument("session_id")
    answer.add_argument("text")
    answer.add_argument("--json", action="store_true", help="print the TurnResult as JSON")

    export = command("export", cmd_export, help="export a session")
    export.add_argument("session_id")
    export.add_argument("--format", required=True, choices=sorted(EXPORT_FORMATS))
    export.add_argument("-o", "--output", help="file to write (default: standard output)")

    sessions = sub.add_parser("sessions", help="list sessions")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list sessions, newest first")
    _connection_arguments(listing, None)
    listing.set_defaults(handler=cmd_sessions_list)
    listing.add_argument("--status", choices=sorted(SESSION_STATUSES))
    listing.add_argument("--page-size", type=_positive, default=50)
    listing.add_argument("--page-token", default="")
    return parser


def _interactive(client: Client, args: argparse.Namespace, hints: EnvironmentHints) -> int:
    with contextlib.suppress(ImportError):  # not on every platform
        import readline  # noqa: F401  (line editing and history for input())
    options = InteractiveOptions(
        concept_id=args.concept,
        max_turns=args.max_turns,
        methodology=args.methodology,
        wait_s=args.wait,
        any_local_llm_key=hints.any_llm_key(),
        color=not (args.no_color or hints.no_color),
        echo_input=not sys.stdin.isatty(),
    )
    return Interview(client, options).run()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the client; returns the process exit code."""
    settings = ClientSettings()
    args = build_parser(settings).parse_args(argv)
    options = ConnectionOptions(
        target=args.target,
        token=args.token,
        tls=args.tls,
        ca_file=args.ca,
        timeout_s=args.timeout,
        turn_timeout_s=settings.turn_timeout_s,
    )
    try:
        channel = open_channel(options)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with channel:
            client = Client(channel, options)
            handler: Handler | None = getattr(args, "handler", None)
            if handler is None:
                return _interactive(client, args, EnvironmentHints())
            return handler(client, args)
    except grpc.RpcError as exc:
        sys.stdout.flush()
        print(f"error: {describe(parse_rpc_error(exc), options.target)}", file=sys.stderr)
        return EXIT_RPC
    except (NotServingError, ExportWriteError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_RPC
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK  # the reader (e.g. `head`) went away
