"""`contextfold example`: the bundled example sessions, for trying the CLI anywhere.

Rules:
1. The examples ship inside the package (`contextfold/examples/`), so a wheel installed
   without the source tree has them: `contextfold example NAME > FILE`.
2. With no NAME, the names are listed, one a line.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Annotated, Final

from ._io import fail
from ._io import write_text as write
from ._params import argument

EXAMPLE: Final = (
    "\b\nExample:\n  contextfold example coding-session.openai-chat.json > session.json\n"
    "  contextfold compact session.json --budget 6000 --model gpt-4o > compacted.json"
)

NameArgument = Annotated[
    str | None, argument(help="Which example; omit to list them.", show_default=False)
]


def _names() -> list[str]:
    return sorted(p.name for p in files("contextfold").joinpath("examples").iterdir())


def example(name: NameArgument = None) -> None:
    """Print a bundled example session (a 50-message coding agent) to stdout."""
    names = _names()
    if name is None:
        write("-", "".join(f"{n}\n" for n in names))
        return
    if name not in names:
        fail(f"no example named {name!r}; the examples are: {', '.join(names)}")
    write("-", files("contextfold").joinpath("examples", name).read_text(encoding="utf-8"))
