"""The command line package: public API only, and a friendly message without its extra."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import contextfold

from .conftest import CHAT_EXAMPLE as EXAMPLE

PACKAGE = Path(contextfold.__file__).parent / "_cli"


def test_commands_import_only_the_public_api() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 6
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:  # relative: only siblings inside the CLI package
                    assert node.level == 1, (path.name, node.module)
                else:
                    assert not (node.module or "").startswith("contextfold."), path.name
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
                assert not any(n.startswith("contextfold.") for n in names), path.name


@pytest.mark.parametrize("args", [[], ["compact", str(EXAMPLE), "-b", "4000"]])
def test_without_the_cli_extra_the_executable_explains_itself(args: list[str]) -> None:
    # The quick path does not import typer; a plain command line still needs the extra.
    code = (
        "import sys; sys.modules['typer'] = None\nfrom contextfold.__main__ import main\nmain()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "pip install 'contextfold[cli]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_python_dash_m_runs_the_same_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "contextfold", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == f"contextfold {contextfold.__version__} (MIT License)\n"
