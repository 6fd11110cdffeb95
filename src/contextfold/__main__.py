"""`python -m contextfold` and the `contextfold` executable."""

from __future__ import annotations

import sys
from importlib.util import find_spec


def main() -> None:
    """Run the CLI, or explain how to install it when its extra is missing."""
    try:
        if find_spec("typer") is None:  # looked up, not imported: the quick path runs without
            raise ModuleNotFoundError(name="typer")
        from ._cli import main as run  # noqa: PLC0415 - the CLI extra is optional
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        sys.stderr.write(
            f"The contextfold command line needs the 'cli' extra ({exc.name} is missing):\n"
            "    pip install 'contextfold[cli]'\n"
        )
        raise SystemExit(2) from None
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in a message never crashes
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    run()


if __name__ == "__main__":
    main()
