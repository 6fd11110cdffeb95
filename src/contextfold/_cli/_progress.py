"""Progress for long work: what `compact` is doing, on a terminal, for large inputs.

Rules:
1. Shown only when stderr is a terminal and the input is at least `LARGE` bytes: small
   inputs finish before a spinner would help, and pipes and logs get no control codes.
2. One transient status line (spinner, phase, elapsed seconds); it is erased when the work
   ends, so the closing summary reads the same with or without it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

LARGE: Final = 8 * 1024 * 1024
"""Inputs from this many bytes show progress."""

Step = Callable[[str], None]


@contextmanager
def phases(size: int) -> Iterator[Step]:
    """A `step(label)` that names the phase under way (a no-op unless rule 1 holds)."""
    if size < LARGE or not sys.stderr.isatty():
        yield lambda label: None
        return
    from rich.console import Console  # noqa: PLC0415 -- loaded only when shown: CLI start time

    console = Console(stderr=True)
    megabytes = f"{size / 1_048_576:,.0f} MB"
    with console.status(f"reading {megabytes}") as status:
        yield lambda label: status.update(f"{label} ({megabytes})")
