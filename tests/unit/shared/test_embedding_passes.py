"""Callers waiting for the model share its next pass: each gets its own rows, a failure reaches every
caller of the pass and hangs none, and an idle model runs a request at once."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest

from shared.embedding_passes import FloatMatrix, SharedPasses

_WAIT_S = 10.0


def _vector(text: str) -> list[float]:
    """A vector that tells the text apart (its length, its first letter, its checksum)."""
    return [float(len(text)), float(ord(text[0])), float(sum(map(ord, text)) % 997)]


class _Model:
    """A forward pass that records its batches and can be held inside a pass until released."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self._fail_on = fail_on

    def __call__(self, texts: list[str]) -> FloatMatrix:
        self.batches.append(list(texts))
        self.entered.set()
        assert self.release.wait(_WAIT_S)
        if self._fail_on is not None and self._fail_on in texts:
            raise RuntimeError("model failed")
        return np.asarray([_vector(t) for t in texts], dtype=np.float32)


def _queued(passes: SharedPasses, n: int) -> None:
    """Wait until `n` requests queue behind the pass in progress."""
    deadline = time.monotonic() + _WAIT_S
    while len(passes._queue) < n:
        assert time.monotonic() < deadline, "requests did not queue"
        time.sleep(0.001)


def _start(target: Callable[[], Any], results: dict[str, Any], key: str) -> threading.Thread:
    def work() -> None:
        try:
            results[key] = target()
        except BaseException as exc:  # the test asserts on it
            results[key] = exc

    thread = threading.Thread(target=work)
    thread.start()
    return thread


def _expected(texts: list[str]) -> FloatMatrix:
    return np.asarray([_vector(t) for t in texts], dtype=np.float32)


def test_an_idle_model_runs_a_request_at_once_with_its_rows_in_order() -> None:
    model = _Model()
    passes = SharedPasses(model, batch=8)
    texts = ["quiet", "battery life", "quiet", "comfort"]
    np.testing.assert_array_equal(passes.run(texts), _expected(texts))
    assert model.batches == [["quiet", "battery life", "comfort"]]  # a repeated text is encoded once
    assert (passes.passes, passes.requests) == (1, 1)


def test_requests_queued_behind_a_pass_share_the_next_one() -> None:
    model = _Model()
    passes = SharedPasses(model, batch=64)
    model.release.clear()
    results: dict[str, Any] = {}
    threads = [_start(lambda: passes.run(["first label"]), results, "first")]
    assert model.entered.wait(_WAIT_S)
    later = {f"r{i}": [f"label {i} a", f"label {i} b", "shared label"] for i in range(4)}
    for key, texts in later.items():
        threads.append(_start(partial(passes.run, texts), results, key))
        _queued(passes, int(key[1:]) + 1)
    model.release.set()
    for thread in threads:
        thread.join(_WAIT_S)
    np.testing.assert_array_equal(results["first"], _expected(["first label"]))
    for key, texts in later.items():
        np.testing.assert_array_equal(results[key], _expected(texts))
    # Two passes for five requests: the four queued ones went together, the shared text once.
    assert len(model.batches) == 2
    assert sorted(model.batches[1]) == sorted({t for texts in later.values() for t in texts})
    assert (passes.passes, passes.requests) == (2, 5)
    assert not passes._busy


def test_a_group_is_capped_and_the_rest_follow_in_order() -> None:
    model = _Model()
    passes = SharedPasses(model, batch=64, max_texts=4)
    model.release.clear()
    results: dict[str, Any] = {}
    threads = [_start(lambda: passes.run(["holder"]), results, "holder")]
    assert model.entered.wait(_WAIT_S)
    sizes = {"big": 6, "a": 2, "b": 2, "c": 1}  # the first queued goes whole though over the cap
    for i, (key, size) in enumerate(sizes.items()):
        texts = [f"{key} text {j}" for j in range(size)]
        threads.append(_start(partial(passes.run, texts), results, key))
        _queued(passes, i + 1)
    model.release.set()
    for thread in threads:
        thread.join(_WAIT_S)
    assert [len(b) for b in model.batches] == [1, 6, 4, 1]
    for key, size in sizes.items():
        np.testing.assert_array_equal(results[key], _expected([f"{key} text {j}" for j in range(size)]))
    assert not passes._busy


def test_a_large_request_runs_in_chunks_of_the_batch_size() -> None:
    model = _Model()
    passes = SharedPasses(model, batch=3, max_texts=100)
    texts = [f"text {i}" for i in range(8)]
    np.testing.assert_array_equal(passes.run(texts), _expected(texts))
    assert [len(b) for b in model.batches] == [3, 3, 2]


def test_a_failed_pass_fails_its_callers_and_the_queue_goes_on() -> None:
    model = _Model(fail_on="poison")
    passes = SharedPasses(model, batch=64, max_texts=2)
    model.release.clear()
    results: dict[str, Any] = {}
    threads = [_start(lambda: passes.run(["holder"]), results, "holder")]
    assert model.entered.wait(_WAIT_S)
    queued = {"poisoned": ["poison"], "beside": ["innocent"], "after": ["next one", "and another"]}
    for i, (key, texts) in enumerate(queued.items()):
        threads.append(_start(partial(passes.run, texts), results, key))
        _queued(passes, i + 1)
    model.release.set()
    for thread in threads:
        thread.join(_WAIT_S)
        assert not thread.is_alive()
    # The pass of "poisoned" and "beside" failed for both; "after" had a pass of its own.
    for key in ("poisoned", "beside"):
        assert isinstance(results[key], RuntimeError)
    np.testing.assert_array_equal(results["after"], _expected(queued["after"]))
    assert not passes._busy
    np.testing.assert_array_equal(passes.run(["later"]), _expected(["later"]))


def test_no_texts_is_an_error() -> None:
    with pytest.raises(ValueError, match="no texts"):
        SharedPasses(_Model(), batch=4).run([])


async def test_concurrent_encodes_get_the_vectors_each_text_has_alone(embedder: Any) -> None:
    requests = [[f"shared pass check {i} {w}" for w in ("comfort", "battery", "price")] for i in range(6)]
    _, before = embedder.pass_counts
    results = await asyncio.gather(*(embedder.aencode(texts) for texts in requests))
    for texts, vectors in zip(requests, results, strict=True):
        alone = np.concatenate([embedder._forward([text]) for text in texts])
        np.testing.assert_allclose(vectors, alone, atol=1e-5)
    assert embedder.pass_counts[1] - before == len(requests)
