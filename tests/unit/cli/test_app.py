"""Command line parsing and exit codes (0 ok, 1 gRPC error, 2 usage)."""

from __future__ import annotations

import pytest

from cli.app import EXIT_RPC, EXIT_USAGE, build_parser, main
from cli.settings import ClientSettings
from tests.ports import closed_port


def test_connection_options_work_before_and_after_the_subcommand() -> None:
    parser = build_parser(ClientSettings(target="default:1"))
    before = parser.parse_args(["--target", "h:1", "--token", "t", "answer", "s", "hello"])
    after = parser.parse_args(["answer", "s", "hello", "--target", "h:2"])
    untouched = parser.parse_args(["sessions", "list"])
    assert (before.target, before.token, before.text) == ("h:1", "t", "hello")
    assert after.target == "h:2"
    assert untouched.target == "default:1"
    assert parser.parse_args([]).command is None  # interactive


def test_start_options_work_before_and_after_the_subcommand() -> None:
    parser = build_parser(ClientSettings())
    before = parser.parse_args(["--methodology", "jobs_to_be_done", "--max-turns", "5", "start", "c1"])
    after = parser.parse_args(["start", "c1", "--methodology", "critical_incident", "--max-turns", "7"])
    plain = parser.parse_args(["start", "c1"])
    assert (before.methodology, before.max_turns, before.concept_id) == ("jobs_to_be_done", 5, "c1")
    assert (after.methodology, after.max_turns) == ("critical_incident", 7)
    assert (plain.methodology, plain.max_turns) == ("", 0)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEW_TARGET", "env-host:7")
    monkeypatch.setenv("ORCHESTRATOR_AUTH_TOKEN", "from-orchestrator")
    args = build_parser(ClientSettings()).parse_args(["sessions", "list"])
    assert (args.target, args.token) == ("env-host:7", "from-orchestrator")


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "s1"],  # --format missing
        ["export", "s1", "--format", "pdf"],
        ["sessions"],  # no action
        ["sessions", "list", "--status", "sleeping"],
        ["--max-turns", "-1"],
    ],
)
def test_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == EXIT_USAGE


def test_unreadable_ca_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ca", "/nonexistent/ca.pem", "sessions", "list"]) == EXIT_USAGE
    assert "cannot read the CA file /nonexistent/ca.pem" in capsys.readouterr().err


def test_unreachable_service_exits_1_with_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    target = f"127.0.0.1:{closed_port()}"
    assert main(["--target", target, "sessions", "list", "--page-size", "5"]) == EXIT_RPC
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: UNAVAILABLE: the service at {target} is not reachable")
    assert "Traceback" not in captured.err
