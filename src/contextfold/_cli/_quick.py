"""The quick path: a plain, well-formed command line runs without loading typer.

typer (with pydantic, since typer 0.2x) costs about 0.1 s of start-up on every run, about
as much as a one-shot `contextfold compact` of a small session spends compacting it.

Rules:
1. Only plain command lines take this path: a command followed by its own options
   (`--name VALUE`, `--name=VALUE`, `-n VALUE`, flags) and positional arguments, each
   option at most once unless repeatable, every value converting cleanly. Everything
   else goes to typer, which stays the reference for help, completion and every usage
   error: no arguments, `--help`, `--`, an unknown option, a repeated one, a missing or
   dash-led value (`-5`), a value that does not convert, a command with an option read
   from the environment, a completion request.
2. The command is called with exactly what typer would pass: the declared `parser`'s
   result; `int` and `float` from plain decimal digits within the declared min and max;
   an enum member by its exact value; a list for a repeatable option; a flag's True;
   the signature's default for whatever is not given.
3. A usage error raised by the command itself (`_io.usage_error`, always raised before
   the command reads or writes anything) hands the command line to typer, which runs it
   again and prints the error under the usage line, as it always has.
4. Around the command, what typer's `main` does: Ctrl-C exits 130; end of input prints
   `Aborted!` and exits 1. A closed pipe exits quietly with 0, as every command's own
   writes do (`_io` rule 1): 1 is the exit code of a result that does not fit.
"""

from __future__ import annotations

import enum
import errno
import inspect
import os
import re
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Final, get_args, get_origin, get_type_hints

from . import COMMANDS, load
from ._echo import echo, log_to_stderr
from ._params import Arg, Opt

__all__ = ["parse", "run"]

_INT: Final = re.compile(r"0|[1-9][0-9]*")
_FLOAT: Final = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_EMPTY: Final = inspect.Parameter.empty

Command = Callable[..., None]


@dataclass(frozen=True, slots=True)
class _Param:
    """One parameter of a command, as this path reads it."""

    name: str
    decl: Opt | Arg
    convert: Callable[[str], object]
    default: object
    """`_EMPTY` when the parameter is required."""
    multiple: bool = False
    flag: bool = False


def run(argv: Sequence[str]) -> bool:
    """Run `argv` (without the program name) here; False leaves it to typer (rule 1)."""
    if len(argv) < 2 or argv[0] not in COMMANDS or _completing():
        return False
    command: Command = getattr(load(argv[0]), argv[0])
    kwargs = parse(command, argv[1:])
    if kwargs is None:
        return False
    log_to_stderr()  # what typer's root callback does
    return _call(command, kwargs)


def parse(command: Command, args: Sequence[str]) -> dict[str, object] | None:
    """The keyword arguments typer would call `command` with, or None (rules 1 and 2)."""
    params = _params(command)
    if params is None:
        return None
    given = _split(params, args)
    if given is None:
        return None
    try:
        return _values(params, given)
    except Exception:  # a value that does not convert: typer says why
        return None


def _completing() -> bool:
    """A shell asking for completions (`_CONTEXTFOLD_COMPLETE=...`): typer answers."""
    return any(k.startswith("_") and k.endswith("_COMPLETE") and v for k, v in os.environ.items())


def _split(params: Sequence[_Param], args: Sequence[str]) -> dict[str, list[str]] | None:
    """The texts given for each parameter, by name; None when typer must read `args`."""
    options = {flag: p for p in params if isinstance(p.decl, Opt) for flag in p.decl.decls}
    given: dict[str, list[str]] = {}
    loose: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "-" or not arg.startswith("-"):
            loose.append(arg)
            continue
        flag, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        param = options.get(flag)
        if param is None or (param.flag and equals):
            return None
        if not param.flag and not equals:
            following = next(rest, None)
            if following is None or (following.startswith("-") and following != "-"):
                return None
            value = following
        given.setdefault(param.name, []).append(value)
    arguments = [p for p in params if isinstance(p.decl, Arg)]
    if len(loose) > len(arguments):
        return None
    for param, value in zip(arguments, loose, strict=False):
        given[param.name] = [value]
    return given


def _values(params: Sequence[_Param], given: Mapping[str, list[str]]) -> dict[str, object] | None:
    """The command's keyword arguments from the texts (rule 2)."""
    kwargs: dict[str, object] = {}
    for param in params:
        texts = given.get(param.name)
        if texts is None:
            if param.default is _EMPTY:
                return None  # a required parameter is missing
            kwargs[param.name] = param.default
        elif param.flag:
            kwargs[param.name] = True
        elif param.multiple:
            kwargs[param.name] = [param.convert(text) for text in texts]
        elif len(texts) > 1:
            return None
        else:
            kwargs[param.name] = param.convert(texts[0])
    return kwargs


def _params(command: Command) -> list[_Param] | None:
    """The command's parameters, or None when one is beyond this path (rule 1)."""
    hints = get_type_hints(command, include_extras=True)
    found = []
    for parameter in inspect.signature(command).parameters.values():
        param = _param(parameter.name, hints[parameter.name], parameter.default)
        if param is None:
            return None
        found.append(param)
    return found


def _param(name: str, hint: object, default: object) -> _Param | None:
    """One parameter from its `Annotated[T, Opt | Arg]` hint and its default."""
    if get_origin(hint) is not Annotated:
        return None
    kind, *extras = get_args(hint)
    if len(extras) != 1 or not isinstance(extras[0], Opt | Arg):
        return None
    decl: Opt | Arg = extras[0]
    kind = _without_none(kind)
    multiple = get_origin(kind) is list
    if multiple:
        (kind,) = get_args(kind)
    flag = kind is bool
    if isinstance(decl, Opt) and (decl.envvar or any("/" in d for d in decl.decls)):
        return None
    if isinstance(decl, Arg) and (multiple or flag):
        return None
    convert = str if flag else _converter(kind, decl)
    if convert is None or not _plain_default(default, kind, multiple):
        return None
    return _Param(name, decl, convert, default, multiple=multiple, flag=flag)


def _without_none(kind: Any) -> Any:
    """`T` from `T | None`."""
    if isinstance(kind, types.UnionType):
        rest = [k for k in get_args(kind) if k is not type(None)]
        return rest[0] if len(rest) == 1 else kind
    return kind


def _plain_default(default: object, kind: Any, multiple: bool) -> bool:
    """A default typer passes on as it is: none, None, or already of the declared type."""
    if default is _EMPTY or default is None:
        return True
    return not multiple and isinstance(kind, type) and isinstance(default, kind)


def _converter(kind: Any, decl: Opt | Arg) -> Callable[[str], object] | None:
    """How a text becomes the value (rule 2); None for a type left to typer."""
    if isinstance(decl, Opt) and decl.parser is not None:
        return decl.parser
    low, high = (decl.min, decl.max) if isinstance(decl, Opt) else (None, None)
    if kind is str:
        return str
    if kind is int:
        return partial(_number, _INT, int, low, high)
    if kind is float:
        return partial(_number, _FLOAT, float, low, high)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind
    return None


def _number(
    pattern: re.Pattern[str],
    kind: Callable[[str], float],
    low: float | None,
    high: float | None,
    text: str,
) -> float:
    """A number written in plain digits, within its bounds; ValueError otherwise."""
    if not pattern.fullmatch(text):
        raise ValueError(text)
    value = kind(text)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(text)
    return value


def _call(command: Command, kwargs: Mapping[str, object]) -> bool:
    """Run the command as typer's `main` would (rules 3 and 4); False hands it to typer."""
    try:
        command(**kwargs)
    except EOFError:
        echo("", err=True)
        echo("Aborted!", err=True)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _silence()
        raise SystemExit(0) from None
    except Exception as exc:
        if _is_usage_error(exc):
            return False
        raise
    return True


def _is_usage_error(exc: Exception) -> bool:
    """Whether the command raised `_io.usage_error` (rule 3)."""
    from typer import BadParameter  # noqa: PLC0415 - loaded already when it raised one

    return isinstance(exc, BadParameter)


def _silence() -> None:
    """After a closed pipe, nothing more is written (not even at exit, when Python flushes)."""
    null = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(null, stream.fileno())
        except (OSError, ValueError):  # pragma: no cover - a stream without a descriptor
            continue
