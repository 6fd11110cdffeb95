"""A tripwire, not a target: one cold compaction of a long history costs a small multiple
of encoding it once (bench/oneshot.py measures ~1.5x at 10,000 messages). A search that
turns quadratic in a long text (a lazy run retried from every position, as `RETRACTION`
was before `is_retraction`) costs tens of times the floor here, so it fails loudly at any
machine speed: both sides are timed in this process, side by side, best of three."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from functools import partial

from bench.common import Wire
from bench.synthetic import history

import contextfold as cf
from bench import baselines as bl
from bench import oneshot

_SIZE = 5_000
_LIMIT = 8.0
"""Times the floor; a slip to quadratic work measured ~45x at 10,000 messages."""


def _best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        gc.disable()
        try:
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        finally:
            gc.enable()
    return min(times)


def _cold(messages: list[Wire], budget: int, counter: Callable[[], cf.TokenCounter]) -> None:
    cf.clear_caches()
    result = cf.compact(list(messages), budget, counter=counter())
    assert result.report.fits


def test_a_long_history_compacts_in_a_small_multiple_of_encoding_it_once() -> None:
    messages = history(_SIZE)
    enc = bl.encoding()
    budget = bl.exact_tokens(messages) // 4
    floor = _best(lambda: oneshot.floor(messages, enc))
    for counter in (lambda: cf.TiktokenCounter(enc), bl.QuarterCounter):
        spent = _best(partial(_cold, messages, budget, counter))
        assert spent <= _LIMIT * floor, (counter().name, spent, floor)
