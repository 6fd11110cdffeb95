"""Reading payloads, writing JSON, and turning bad input into one line and exit code 2.

Rules:
1. Exit codes: 0 done; 1 the result does not fit and --strict was given; 2 bad input or
   usage. A bad input prints one line naming the file (and, when the library says, the
   message index and field), never a traceback. A reader that stops reading standard
   output early (`| head`) ends every command quietly with 0 (`reader_gone`): it has
   what it wanted, and nothing more can be said to it.
2. `-` is standard input (or output). Input is UTF-8 JSON (a byte-order mark is allowed).
3. JSON goes out as UTF-8 text; strings that cannot be encoded (lone surrogates, which
   JSON escapes allow) fall back to ASCII escapes, so any payload read can be written.
   Plain text (what `recall` prints) writes such a character as its escape, `\\udc80`.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, NoReturn

from contextfold import ContextFoldError, InvalidConversation

from ._echo import echo

STDIO: Final = "-"
EXIT_NOT_FIT: Final = 1
EXIT_BAD_INPUT: Final = 2
_SHOWN: Final = 300
"""Characters of an error message shown; the rest is cut (one line, always)."""


def fail(message: str) -> NoReturn:
    """Print one error line to stderr and exit with code 2."""
    echo(f"contextfold: error: {one_line(message)}", err=True)
    raise SystemExit(EXIT_BAD_INPUT)


def usage_error(message: str, option: tuple[str, ...] | None = None) -> NoReturn:
    """A usage error: typer prints it under the command's usage line and exits with code 2,
    naming `option` (its spellings, e.g. `("--budget", "-b")`) as it names a bad value.
    Commands raise it before they read or write anything (the quick path relies on it)."""
    from typer import BadParameter  # noqa: PLC0415 - only on this error path: start-up time

    raise BadParameter(message, param_hint=list(option) if option else None)


def one_line(text: str) -> str:
    """`text` on a single line, cut to a readable length."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[: _SHOWN - 3] + "..."


def display_name(path: str) -> str:
    """How a path is named in messages."""
    return "<stdin>" if path == STDIO else path


def describe_decode_error(exc: UnicodeDecodeError) -> str:
    """What is wrong with bytes that are not UTF-8."""
    bad = exc.object[exc.start : exc.start + 1]
    shown = f"byte 0x{bad[0]:02x}" if bad else "truncated character"
    return f"not UTF-8 text ({shown} at offset {exc.start}); expected a JSON payload"


def describe_json_error(exc: json.JSONDecodeError) -> str:
    """What is wrong with text that is not JSON, with a hint for the common slips."""
    where = f"not valid JSON: {exc.msg} at line {exc.lineno:,} column {exc.colno:,}"
    if exc.msg == "Extra data":
        return f"{where} (one conversation per line is JSONL: use `contextfold batch`)"
    before = exc.doc[: exc.pos].rstrip()
    if exc.msg.startswith(("Expecting value", "Expecting property name")) and before.endswith(","):
        return f"{where} (a trailing comma before it? JSON allows none)"
    return where


def explain(exc: BaseException, name: str | None = None) -> str | None:
    """The one-line message for an expected failure while reading `name`, else None."""
    if isinstance(exc, ContextFoldError) and not isinstance(exc, InvalidConversation):
        return str(exc)  # configuration, archive, summarizer: the message names its subject
    if isinstance(exc, OSError):
        return f"{exc.filename or name}: {exc.strerror or exc}"
    detail = _detail(exc)
    if detail is None:
        return None
    return detail if name is None else f"{name}: {detail}"


def _detail(exc: BaseException) -> str | None:
    match exc:
        case InvalidConversation():
            return str(exc)
        case json.JSONDecodeError():
            return describe_json_error(exc)
        case UnicodeDecodeError():
            return describe_decode_error(exc)
        case RecursionError():
            return "the JSON is nested too deeply to read"
        case _:
            return None


@contextmanager
def reporting(name: str) -> Iterator[None]:
    """Turn every expected failure inside the block into `fail` (rule 1)."""
    try:
        yield
    except (ContextFoldError, ValueError, RecursionError, OSError) as exc:
        message = explain(exc, name)
        if message is None:
            fail(unexpected(exc, name))
        fail(message)


def unexpected(exc: BaseException, name: str | None = None) -> str:
    """One line for a failure nobody planned for (never a traceback on the terminal)."""
    where = f"{name}: " if name else ""
    return f"{where}unexpected {type(exc).__name__}: {one_line(str(exc))} (please report this)"


@contextmanager
def removed_if_failed(path: str | None) -> Iterator[None]:
    """A database file the block creates at `path` is removed again when the block fails
    (any exit but a quiet 0, `reader_gone`): a failed command leaves nothing behind."""
    created = bool(path) and not os.path.lexists(path or "")  # "" names no file to remove
    try:
        yield
    except BaseException as exc:
        if created and path and not (isinstance(exc, SystemExit) and not exc.code):
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(path + suffix).unlink(missing_ok=True)
        raise


def reject_high(high: float | None, command: str) -> None:
    """One-shot commands have no high-water mark: a flag that cannot act says so."""
    if high is not None:
        fail(
            f"--high has no effect on {command}: a one-shot call leaves a payload that fits "
            "alone and compacts the rest down to --low; drop --high"
        )


def input_size(path: str) -> int:
    """Bytes in the input file (0 for stdin or a file that cannot be read: read_bytes says why)."""
    if path == STDIO:
        return 0
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def read_bytes(path: str) -> bytes:
    """The whole input: a file, or standard input for `-`."""
    if path == STDIO:
        if sys.stdin.isatty():
            fail("no input: give a FILE, or pipe a JSON payload into stdin")
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def load_json(data: bytes) -> object:
    """The JSON value in `data`; a clear error when it is empty or not UTF-8 JSON."""
    text = data.decode("utf-8-sig")
    if not text.strip():
        raise InvalidConversation("empty input; expected a JSON payload (messages or a body)")
    try:
        return json.loads(text, parse_constant=_not_json)
    except (json.JSONDecodeError, InvalidConversation):
        raise
    except ValueError as exc:  # e.g. an integer literal past Python's 4,300-digit limit
        raise InvalidConversation(f"the JSON cannot be read: {one_line(str(exc))}") from None


def _not_json(constant: str) -> object:
    raise InvalidConversation(
        f"{constant} is not valid JSON (strict JSON has no NaN or Infinity); "
        "write it as null or a string"
    )


def to_json(value: object, *, indent: int | None = None) -> str:
    """`value` as JSON text that UTF-8 can always encode (rule 3)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, indent=indent)
    return text


def write_text(path: str, text: str) -> None:
    """Write `text` to a file (atomically: a temporary file renamed over it, so a failed
    write leaves no half file), or to standard output for `-` (a checked write: a failure,
    such as a full disk or a file-size limit, is an error, never a silent truncation)."""
    data = text.encode("utf-8", "backslashreplace")  # rule 3
    if not path:
        fail("an empty output path names no file; give a file name, or - for standard output")
    if path != STDIO:
        write_atomically(Path(path), data)
        return
    try:
        sys.stdout.flush()
        _write_all(sys.stdout.fileno(), data)
    except BrokenPipeError:
        reader_gone()
    except OSError as exc:
        fail(f"standard output: the output could not be written ({exc.strerror or exc})")


def reader_gone() -> NoReturn:
    """The reader of standard output went away (`| head`): nothing to report, nothing left
    to flush (not even at exit); exit 0 (rule 1)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(0)


def _write_all(fd: int, data: bytes) -> None:
    """Every byte of `data` to `fd`, or OSError: a short write (a file-size limit, a full
    disk) is an error here, where a buffered stream could drop it silently."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[: 1 << 20])
        if written <= 0:
            raise OSError(errno.EFBIG, "the write stopped short (file size limit or full disk)")
        view = view[written:]


def write_atomically(path: Path, data: bytes) -> None:
    """`data` at `path`, all or nothing."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        fail(f"{path}: the output could not be written ({exc.strerror or exc})")
