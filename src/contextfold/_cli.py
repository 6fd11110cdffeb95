"""The `contextfold` command line: a thin layer over the public API (commands to come)."""

from __future__ import annotations

import typer

import contextfold

app = typer.Typer(no_args_is_help=True, add_completion=False)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"contextfold {contextfold.__version__}")
        raise typer.Exit


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True),
) -> None:
    """Keep long-running LLM agents inside their context window."""
