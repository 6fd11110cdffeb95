"""The typer app: help, completion, `--version` and every usage error.

Rules:
1. Every command in `COMMANDS` is registered from its module (`load(name)`), with the
   module's `EXAMPLE` as its epilog; its `Opt`/`Arg` declarations become typer's own
   (`_params` rule 1), so typer builds help and errors from the same declarations the
   quick path reads.
2. The root callback handles `--version` and sends library warnings to stderr.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, Final, get_args, get_origin, get_type_hints

import typer

import contextfold

from . import COMMANDS, load
from ._echo import echo, log_to_stderr
from ._params import Arg, Opt

_NO_ARGS_IS_HELP: Final = frozenset({"compact", "inspect", "recall", "batch"})


def _typer_hint(hint: Any) -> Any:
    """`hint` with typer's declaration in place of an `Opt` or `Arg`."""
    if get_origin(hint) is not Annotated:
        return hint
    kind, *extras = get_args(hint)
    typed = [e.to_typer() if isinstance(e, Opt | Arg) else e for e in extras]
    return Annotated[kind, *typed]


def for_typer(command: Callable[..., None]) -> Callable[..., None]:
    """`command` as typer reads it: the same function, typer's declarations in its signature."""
    hints = get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    parameters = [
        p.replace(annotation=_typer_hint(hints[p.name])) for p in signature.parameters.values()
    ]

    @functools.wraps(command)
    def typed(**kwargs: Any) -> None:
        command(**kwargs)

    # typer reads the signature (which `__signature__` overrides) and the annotations.
    typed.__dict__["__signature__"] = signature.replace(parameters=parameters)
    typed.__annotations__ = {p.name: p.annotation for p in parameters}
    return typed


app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    epilog=load("compact").EXAMPLE,
)

for _name in COMMANDS:
    _module = load(_name)
    app.command(_name, epilog=_module.EXAMPLE, no_args_is_help=_name in _NO_ARGS_IS_HELP)(
        for_typer(getattr(_module, _name))
    )


def _version(value: bool) -> None:
    if value:
        echo(f"contextfold {contextfold.__version__} ({_license()} License)")
        raise typer.Exit


def _license() -> str:
    """The license the installed distribution declares (its metadata, not a copy)."""
    from importlib.metadata import (  # noqa: PLC0415 - lazily: only --version reads it
        PackageNotFoundError,
        metadata,
    )

    try:
        meta = metadata("contextfold")
    except PackageNotFoundError:
        return "unknown"
    return meta["License-Expression"] or meta["License"] or "unknown"


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Keep long-running LLM agents inside their context window."""
    log_to_stderr()


__all__ = ["app", "for_typer"]
