"""The README is true: its opening commands, its console sessions and its Python blocks.

When the library's numbers change on purpose, refresh the shown outputs with
`CONTEXTFOLD_UPDATE_README=1 .venv/bin/pytest tests/cli/test_readme.py` and review the diff.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import EXECUTABLE, ROOT, clean_env

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
TIMING = re.compile(r"in [0-9.]+ s \([0-9]+ process(es)?\)")
SHOWN = "# -> "
UPDATE = os.environ.get("CONTEXTFOLD_UPDATE_README") == "1"


def blocks(language: str) -> list[str]:
    """The README's fenced blocks in `language`, in order."""
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == language]


def rewrite(language: str, change: Callable[[int, str], str]) -> None:
    """Replace the body of every `language` block by `change(number, body)`."""
    seen = 0

    def one(match: re.Match[str]) -> str:
        nonlocal seen
        if match.group(1) != language:
            return match.group(0)
        seen += 1
        return f"```{language}\n{change(seen - 1, match.group(2))}```"

    README.write_text(FENCE.sub(one, README.read_text()))


def normal(text: str) -> str:
    """Output without trailing spaces and with timings that vary from run to run."""
    lines = [TIMING.sub("in T s (N processes)", line).rstrip() for line in text.splitlines()]
    return "\n".join(lines).strip()


def shell(command: str, cwd: Path) -> str:
    """Run a README command as a user would, with the test environment's executables."""
    path = f"{EXECUTABLE.parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=clean_env({"COLUMNS": "88", "PATH": path}),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout.decode()
    return "\n".join(line.rstrip() for line in done.stdout.decode("utf-8").splitlines()) + "\n"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A fresh folder holding the examples, as a checkout would."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def test_the_readme_opens_with_setup_and_test_commands(workdir: Path) -> None:
    head = README.read_text().split("\n")[:12]
    assert "```sh" in head
    opening = blocks("sh")[0].strip().split("\n")
    assert len(opening) == 2
    setup, test = opening
    assert setup.startswith("python3 -m venv .venv && .venv/bin/pip install")
    assert "'.[cli,tiktoken]'" in setup
    assert test == "./scripts/test"
    assert "exec ./scripts/test" in (ROOT / ".ci" / "run").read_text()
    compact = setup.split(" && ")[-1].replace(".venv/bin/contextfold", "contextfold")
    actual = shell(compact, workdir)
    if UPDATE:
        rewrite("console", lambda n, body: actual if n == 0 else body)
    assert normal(actual) == normal(blocks("console")[0])
    assert (workdir / "compacted.json").stat().st_size > 0


def _session(block: str, cwd: Path) -> tuple[list[tuple[str, str]], str]:
    """Each `$ command` with what it printed, and the block as it should read."""
    steps = [step.partition("\n") for step in re.split(r"^\$ ", block, flags=re.M)[1:]]
    assert steps, block
    ran = [(command, shown, shell(command, cwd)) for command, _, shown in steps]
    return [(shown, actual) for _, shown, actual in ran], "".join(
        f"$ {command}\n{actual}" for command, _, actual in ran
    )


def test_console_sessions_print_what_the_readme_shows(workdir: Path) -> None:
    sessions = [_session(block, workdir) for block in blocks("console")[1:]]
    if UPDATE:
        rewrite("console", lambda n, body: body if n == 0 else sessions[n - 1][1])
        sessions = [_session(block, workdir) for block in blocks("console")[1:]]
    for steps, _ in sessions:
        for shown, actual in steps:
            assert normal(actual) == normal(shown)


def _printed(code: str, number: int) -> list[str]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"README.md python block {number}", "exec"), {})
    return printed.getvalue().splitlines()


def _with_output(code: str, printed: list[str]) -> str:
    """`code` with its `# -> ` lines replaced, in order, by what it printed."""
    lines = iter(printed)
    return "".join(
        f"{SHOWN}{next(lines)}\n" if line.startswith(SHOWN) else line + "\n"
        for line in code.splitlines()
    )


def test_python_blocks_run_and_print_what_they_show(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    found = blocks("python")
    assert len(found) == 6
    printed = [_printed(code, number) for number, code in enumerate(found, 1)]
    if UPDATE:
        rewrite("python", lambda n, body: _with_output(body, printed[n]))
    for code, lines in zip(blocks("python"), printed, strict=True):
        shown = [line.removeprefix(SHOWN) for line in code.splitlines() if line.startswith(SHOWN)]
        assert shown
        assert lines == shown
