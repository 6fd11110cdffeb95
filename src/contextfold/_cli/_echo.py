"""Lines for people on stderr (and stdout): messages, library warnings and log records.

Rules:
1. A line is written as `click.echo` writes it, so output is the same with or without
   typer loaded: ANSI escape sequences are removed unless the stream is a terminal, a
   stream whose encoding is ASCII gets UTF-8 (unencodable characters replaced), and the
   stream is flushed after every line.
2. Library warnings and `contextfold` log records of level WARNING and up become plain
   `contextfold: ...` lines on stderr (installed once per process).
"""

from __future__ import annotations

import codecs
import logging
import re
import sys
import warnings
from typing import Final, TextIO

__all__ = ["counted", "echo", "log_to_stderr"]

_ANSI: Final = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
"""click's pattern for the codes it strips."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 message`, `2 messages` (`plural` where adding an s is wrong)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def echo(text: str, *, err: bool = False) -> None:
    """`text` and a newline on stdout (stderr with `err`), as click.echo writes it."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # pragma: no cover - no standard streams at all (pythonw)
        return
    line = text + "\n"
    if not _isatty(stream):
        line = _ANSI.sub("", line)
    if _is_ascii(stream) and hasattr(stream, "buffer"):
        stream.flush()
        stream.buffer.write(line.encode("utf-8", "replace"))
        stream.buffer.flush()
        return
    stream.write(line)
    stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except Exception:  # pragma: no cover - a stream that cannot say is not a terminal
        return False


def _is_ascii(stream: TextIO) -> bool:
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:  # pragma: no cover - an encoding Python does not know
        return False


class _Stderr(logging.Handler):
    """Library warnings (a summarizer that failed over, say) as plain stderr lines."""

    def emit(self, record: logging.LogRecord) -> None:
        echo(f"contextfold: {record.getMessage()}", err=True)


def log_to_stderr() -> None:
    """Rule 2: what every command does before it starts."""
    logger = logging.getLogger("contextfold")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr(logging.WARNING))
    warnings.showwarning = _warning_line


def _warning_line(message: Warning | str, *_: object, **__: object) -> None:
    """A library warning (an unknown model, say) as one plain stderr line."""
    echo(f"contextfold: warning: {message}", err=True)
