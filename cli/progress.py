"""A one-line spinner showing the running stage(s) of a turn (terminals only)."""

from __future__ import annotations

import threading
import time
from typing import TextIO

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb

_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_CLEAR = "\r\x1b[2K"


class StageTracker:
    """Which stages are running, from the stream's stage events (concurrent stages overlap)."""

    def __init__(self) -> None:
        self._running: list[str] = []
        self.last = ""

    def update(self, stage: str, status: int) -> None:
        """Apply one StageEvent."""
        if status == pb.STAGE_STATUS_STARTED:
            if stage not in self._running:
                self._running.append(stage)
        elif stage in self._running:
            self._running.remove(stage)
        self.last = stage

    def label(self) -> str:
        """What is running now (or the last stage seen between two stages)."""
        return ", ".join(self._running) if self._running else self.last


def status_line(frame: int, label: str, elapsed_s: float) -> str:
    """`⠋ extraction, rubric · 1.2s` (the stage part falls back to `thinking`)."""
    return f"{_FRAMES[frame % len(_FRAMES)]} {label or 'thinking'} · {elapsed_s:.1f}s"


class Spinner:
    """Redraws the status line every 0.1 s on a thread while a turn runs; `stop()` erases it.

    Disabled (no output at all) when the output is not a terminal, so piped transcripts stay clean.
    """

    def __init__(self, out: TextIO, enabled: bool, tracker: StageTracker) -> None:
        self._out = out
        self._enabled = enabled
        self._tracker = tracker
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Begin redrawing (no-op when disabled or already running)."""
        if not self._enabled or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="cli-spinner", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        frame = 0
        while not self._stop.is_set():
            line = status_line(frame, self._tracker.label(), time.monotonic() - started)
            with self._lock:
                self._out.write(_CLEAR + line)
                self._out.flush()
            frame += 1
            self._stop.wait(0.1)

    def stop(self) -> None:
        """Stop and erase the line (safe to call repeatedly)."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        with self._lock:
            self._out.write(_CLEAR)
            self._out.flush()
