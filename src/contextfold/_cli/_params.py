"""Options and arguments, declared once as data: typer reads them, and so does the quick path.

Rules:
1. A command parameter is `Annotated[T, option(...)]` or `Annotated[T, argument(...)]`.
   The fields are typer's own keywords with typer's defaults, so `to_typer()` hands them
   over unchanged and `--help` reads exactly as typer writes it.
2. Nothing here imports typer: `_app` turns the declarations into typer's when it builds
   the typer app, and `_quick` parses well-formed command lines from them without typer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Arg", "Opt", "argument", "option"]


@dataclass(frozen=True, slots=True)
class Opt:
    """An option: what `typer.Option(*decls, ...)` is given."""

    decls: tuple[str, ...]
    help: str | None = None
    metavar: str | None = None
    parser: Callable[[str], Any] | None = None
    """Turns the text into the value; raises `typer.BadParameter` for a bad one."""
    min: float | None = None
    max: float | None = None
    case_sensitive: bool = True
    envvar: str | None = None
    rich_help_panel: str | None = None

    def to_typer(self) -> object:
        """typer's declaration of this option (a `typer.models.OptionInfo`)."""
        import typer  # noqa: PLC0415 - only the typer app needs it (rule 2)

        return typer.Option(
            *self.decls,
            help=self.help,
            metavar=self.metavar,
            parser=self.parser,
            min=self.min,
            max=self.max,
            case_sensitive=self.case_sensitive,
            envvar=self.envvar,
            rich_help_panel=self.rich_help_panel,
        )


@dataclass(frozen=True, slots=True)
class Arg:
    """A positional argument: what `typer.Argument(...)` is given."""

    help: str | None = None
    metavar: str | None = None
    show_default: bool = True

    def to_typer(self) -> object:
        """typer's declaration of this argument (a `typer.models.ArgumentInfo`)."""
        import typer  # noqa: PLC0415 - only the typer app needs it (rule 2)

        return typer.Argument(help=self.help, metavar=self.metavar, show_default=self.show_default)


def option(
    *decls: str,
    help: str | None = None,
    metavar: str | None = None,
    parser: Callable[[str], Any] | None = None,
    min: float | None = None,
    max: float | None = None,
    case_sensitive: bool = True,
    envvar: str | None = None,
    rich_help_panel: str | None = None,
) -> Opt:
    """An option, spelled as `typer.Option` is."""
    return Opt(decls, help, metavar, parser, min, max, case_sensitive, envvar, rich_help_panel)


def argument(
    *, help: str | None = None, metavar: str | None = None, show_default: bool = True
) -> Arg:
    """A positional argument, spelled as `typer.Argument` is."""
    return Arg(help, metavar, show_default)
