"""The `contextfold` command line: a thin layer over the public API, one module per command.

Rules:
1. Commands import only `contextfold` itself (the public API), never its private modules.
2. Exit codes: 0 done; 1 the result does not fit and --strict was given; 2 bad input or
   usage (click's own usage errors included). Bad input is one line on stderr, never a
   traceback (see `_io`).
3. Every command's help ends with a runnable example.
"""

from __future__ import annotations

import logging
import warnings

import typer

import contextfold

from . import _batch, _compact, _example, _inspect, _recall, _serve

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    epilog=_compact.EXAMPLE,
)

for _module, _name in (
    (_compact, "compact"),
    (_inspect, "inspect"),
    (_recall, "recall"),
    (_batch, "batch"),
    (_example, "example"),
):
    app.command(_name, epilog=_module.EXAMPLE, no_args_is_help=_name != "example")(
        getattr(_module, _name)
    )
app.command("serve", epilog=_serve.EXAMPLE)(_serve.serve)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"contextfold {contextfold.__version__} ({_license()} License)")
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


class _Stderr(logging.Handler):
    """Library warnings (a summarizer that failed over, say) as plain stderr lines."""

    def emit(self, record: logging.LogRecord) -> None:
        typer.echo(f"contextfold: {record.getMessage()}", err=True)


def _log_to_stderr() -> None:
    logger = logging.getLogger("contextfold")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr(logging.WARNING))
    warnings.showwarning = _warning_line


def _warning_line(message: Warning | str, *_: object, **__: object) -> None:
    """A library warning (an unknown model, say) as one plain stderr line."""
    typer.echo(f"contextfold: warning: {message}", err=True)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Keep long-running LLM agents inside their context window."""
    _log_to_stderr()


__all__ = ["app"]
