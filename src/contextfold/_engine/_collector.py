"""CPython's cyclic garbage collector, held off while a compaction computes.

Rules:
1. A compaction's CPU steps (parsing, planning, applying, the embedded ledger, rendering)
   allocate hundreds of thousands of short-lived objects that form no cycles; each 700
   allocations the collector would walk them, and every few hundred thousand it walks the
   caller's whole heap. `paused()` disables it for the duration of one such step, so
   the objects are freed by reference counting as always and nothing is walked.
2. Never across a wait: a summarizer's network call, a thread joined until a deadline or
   an `await` runs with the collector as the caller left it (the drivers pause around
   each step of the flow, not around the call).
3. Overlapping steps (threads, nesting) count one another: the collector is disabled by
   the first to enter, and enabled again by the last to leave, only if it was enabled
   when the first entered. A caller who disabled it finds it disabled afterwards.
4. Overlapping steps never starve it: once it has been held off for `LONGEST` seconds on
   end (a server whose compactions keep overlapping), each step that leaves while others
   are still inside runs one full collection and the count starts again.
"""

from __future__ import annotations

import functools
import gc
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Final, ParamSpec, TypeVar

_Params = ParamSpec("_Params")
_Result = TypeVar("_Result")

LONGEST: Final = 1.0
"""Seconds the collector may be held off on end by overlapping steps (rule 4)."""


class _Paused:
    """Context manager for rules 3 and 4: a depth count under a lock."""

    __slots__ = ("_depth", "_lock", "_restore", "_since", "longest")

    def __init__(self, longest: float = LONGEST) -> None:
        self.longest = longest
        self._lock = threading.Lock()
        self._depth = 0
        self._restore = False
        self._since = 0.0

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._restore = gc.isenabled()
                self._since = time.monotonic()
                gc.disable()
            self._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                if self._restore:
                    gc.enable()
                return
            starved = self._restore and time.monotonic() - self._since > self.longest
            if starved:
                self._since = time.monotonic()
        if starved:  # rule 4, outside the lock: the others go on meanwhile
            gc.collect()


_PAUSED: Final = _Paused()


def paused() -> _Paused:
    """The collector disabled until the block ends (rules 1 and 3)."""
    return _PAUSED


def pausing(function: Callable[_Params, _Result]) -> Callable[_Params, _Result]:
    """`function`, each call of it run with the collector paused."""

    @functools.wraps(function)
    def call(*args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        with _PAUSED:
            return function(*args, **kwargs)

    return call
