"""How a long command stops when it is told to: Ctrl-C and SIGTERM.

Rules:
1. Ctrl-C (SIGINT) is the parent's to handle: worker processes ignore it, so none dies
   holding the pool's pipes (which left the parent's pool waiting for good). The parent
   unwinds (the pool is terminated, temporary files removed), prints one line, exits 130.
2. SIGTERM (`timeout`, a scheduler) ends the process as it always would, but first removes
   the temporary file being written, so no half file is left behind. Workers keep the
   default action: the pool stops them with SIGTERM.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from ._echo import echo

EXIT_INTERRUPTED: Final = 130


@contextmanager
def interruptible(what: str, left: str) -> Iterator[None]:
    """Ctrl-C inside the block: one line naming `what` was stopped and how `left` is (rule 1)."""
    try:
        yield
    except KeyboardInterrupt:
        echo(f"contextfold: interrupted: {what} not finished; {left}", err=True)
        raise SystemExit(EXIT_INTERRUPTED) from None


def worker_signals() -> None:
    """A worker process's start (rules 1 and 2)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def removed_on_sigterm(tmp: Path) -> Iterator[None]:
    """While `tmp` is written, SIGTERM removes it, then ends the process (rule 2)."""

    def terminate(signum: int, _frame: object) -> None:
        tmp.unlink(missing_ok=True)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
