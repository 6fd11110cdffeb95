"""A lock an integration's awaited calls share with calls from other threads and loops.

Rules:
1. Frameworks call an integration from whichever event loop runs the agent: a worker
   thread's `run_sync` runs a loop of its own. An `asyncio.Lock` serves one loop only
   (a second loop waiting on it fails or never wakes), so the lock is a `threading.Lock`.
2. It is taken without blocking the event loop: while another call holds it, the waiting
   call sleeps a millisecond at a time, letting a holder on the same loop finish.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

_POLL = 0.001
"""Seconds between two tries while the lock is held (rule 2)."""


@asynccontextmanager
async def holding(lock: threading.Lock) -> AsyncIterator[None]:
    """Hold `lock` for the body, waiting for it without blocking the event loop."""
    while not lock.acquire(blocking=False):
        await asyncio.sleep(_POLL)
    try:
        yield
    finally:
        lock.release()
