"""Forward passes shared by the callers that wait for the model at the same time.

A pass over a few short texts costs mostly what it costs to run the model at all: on the 2-core
benchmark machine one fp32 pass took about 4.3 ms plus 1.3 ms per label (bench/README.md,
2026-12-03), the fixed part being the transformer's 42 MB of weights read once per pass. The model
runs one pass at a time, so under load (many sessions' turns at once) requests queue for it; each
used to get a pass of its own. Now the caller that finds the model idle runs a pass for itself and
for every request queued by then, and hands the model on to the oldest request still queued once
the pass is done. An idle service runs each request at once, exactly as before; a busy one pays
the fixed part once per group instead of once per request.

Vectors do not depend on the grouping beyond floating-point noise (a text padded beside a longer
one gives the same vector to ~1e-7), as they already did not on the texts a caller encodes
together.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

FloatMatrix = npt.NDArray[np.float32]


class _Request:
    """One caller's texts, and what it is told: its vectors, an error, or that it leads next."""

    __slots__ = ("done", "error", "leads", "result", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.done = threading.Event()
        self.result: FloatMatrix | None = None
        self.error: BaseException | None = None
        self.leads = False

    def outcome(self) -> FloatMatrix:
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


class SharedPasses:
    """Runs `forward` over the texts of every caller waiting for it, one pass at a time.

    `forward` takes at most `batch` texts and returns one row per text; a group larger than that
    is run in chunks. `max_texts` caps the texts of one group (the first request always goes in
    whole): a pass pads every text to the longest, so an unbounded group of long texts would
    cost more than it saves. Thread-safe; `run` blocks its thread until its vectors are ready.
    """

    def __init__(
        self, forward: Callable[[list[str]], FloatMatrix], *, batch: int, max_texts: int | None = None
    ) -> None:
        self._forward = forward
        self._batch = batch
        self._max_texts = max_texts if max_texts is not None else batch
        self._lock = threading.Lock()
        self._queue: list[_Request] = []
        self._busy = False
        # Passes run and requests served, for tests and diagnostics.
        self.passes = 0
        self.requests = 0

    def run(self, texts: Sequence[str]) -> FloatMatrix:
        """The vectors of `texts` (row i ↔ texts[i]), from a pass this call may share."""
        if not texts:
            raise ValueError("no texts to encode")
        request = _Request(list(texts))
        with self._lock:
            self._queue.append(request)
            waits = self._busy
            self._busy = True
        if waits:
            request.done.wait()
            if not request.leads:
                return request.outcome()
        self._serve()
        return request.outcome()

    def _take(self) -> list[_Request]:
        """The requests of the next group, oldest first (caller holds the lock)."""
        group = [self._queue[0]]
        count = len(group[0].texts)
        for request in self._queue[1:]:
            if count + len(request.texts) > self._max_texts:
                break
            group.append(request)
            count += len(request.texts)
        del self._queue[: len(group)]
        return group

    def _serve(self) -> None:
        with self._lock:
            group = self._take()
        try:
            unique = list(dict.fromkeys(text for request in group for text in request.texts))
            vectors = np.concatenate(
                [self._forward(unique[i : i + self._batch]) for i in range(0, len(unique), self._batch)]
            )
            row = {text: i for i, text in enumerate(unique)}
            for request in group:
                request.result = vectors[[row[text] for text in request.texts]]
        except BaseException as exc:  # every caller of the group gets the failure, not a hang
            for request in group:
                request.error = exc
        finally:
            with self._lock:
                self.passes += 1
                self.requests += len(group)
                if self._queue:
                    following = self._queue[0]
                    following.leads = True
                    following.done.set()
                else:
                    self._busy = False
            for request in group:
                request.done.set()
