"""`bench.trace_turns`: its options and the services' span export."""

from __future__ import annotations

import argparse

import pytest

from bench.trace_turns import main, otlp_overrides, parse_window
from services.launcher import SERVICES


def test_every_service_exports_its_spans_to_the_receiver_and_the_mode_is_passed_on() -> None:
    overrides = otlp_overrides("http://127.0.0.1:4317", "inline")
    for name, _, _ in SERVICES:
        assert overrides[f"{name.upper()}_OTEL_EXPORTER"] == "otlp"
        assert overrides[f"{name.upper()}_OTEL_ENDPOINT"] == "http://127.0.0.1:4317"
    assert overrides["ORCHESTRATOR_CANONICAL_SLOTS_MODE"] == "inline"


@pytest.mark.parametrize(("text", "window"), [("3-7", (3, 7)), ("46-50", (46, 50)), ("5", (5, 5))])
def test_a_window_is_first_and_last_turn(text: str, window: tuple[int, int]) -> None:
    assert parse_window(text) == window


@pytest.mark.parametrize("text", ["7-3", "0-2", "a-b", "3-", ""])
def test_a_bad_window_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        parse_window(text)


@pytest.mark.parametrize("argv", [["--turns", "0"], ["--turns", "5", "--window", "3-7"]])
def test_bad_options_stop_before_anything_starts(argv: list[str], tmp_path: object) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
