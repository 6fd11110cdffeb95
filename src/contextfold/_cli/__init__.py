"""The `contextfold` command line: a thin layer over the public API, one module per command.

Rules:
1. Commands import only `contextfold` itself (the public API), never its private modules.
2. Exit codes: 0 done; 1 the result does not fit and --strict was given; 2 bad input or
   usage (click's own usage errors included). Bad input is one line on stderr, never a
   traceback (see `_io`).
3. Every command's help ends with a runnable example.
4. Options are declared once, as data (`_params`). typer (`_app`) builds help, completion
   and usage errors from them; a well-formed command line runs on the quick path
   (`_quick`) without loading typer, which with pydantic costs ~0.1 s on every run.
   Command modules never import typer; a usage error goes through `_io.usage_error`.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import typer

COMMANDS: Final = ("compact", "inspect", "recall", "batch", "example", "serve")
"""In the order `--help` lists them."""


def load(name: str) -> ModuleType:
    """The module of command `name`: `_<name>`, with the function `<name>` and its `EXAMPLE`."""
    return import_module(f"._{name}", __name__)


def main() -> None:
    """Run the command line in `sys.argv`."""
    from ._quick import run  # noqa: PLC0415 - see rule 4

    if not run(sys.argv[1:]):
        from ._app import app  # noqa: PLC0415 - see rule 4

        app()


def __getattr__(name: str) -> typer.Typer:
    """`app`, the typer app, loaded on first use (rule 4)."""
    if name == "app":
        from ._app import app  # noqa: PLC0415 - see rule 4

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "app", "load", "main"]
