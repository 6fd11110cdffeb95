"""The README is true: its opening commands, its console sessions and its Python blocks."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import EXECUTABLE, ROOT, clean_env

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
TIMING = re.compile(r"in [0-9.]+ s \([0-9]+ process(es)?\)")


def blocks(language: str) -> list[str]:
    """The README's fenced blocks in `language`, in order."""
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == language]


def normal(text: str) -> str:
    """Output without trailing spaces and with timings that vary from run to run."""
    lines = [TIMING.sub("in T s (N processes)", line).rstrip() for line in text.splitlines()]
    return "\n".join(lines).strip()


def shell(command: str, cwd: Path) -> str:
    """Run a README command as a user would, with the test environment's executables."""
    env = clean_env(
        {"COLUMNS": "88", "PATH": f"{EXECUTABLE.parent}{os.pathsep}{os.environ['PATH']}"}
    )
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout.decode()
    return done.stdout.decode("utf-8")


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
    assert normal(shell(compact, workdir)) == normal(blocks("console")[0])
    assert (workdir / "compacted.json").stat().st_size > 0


def test_console_sessions_print_what_the_readme_shows(workdir: Path) -> None:
    for block in blocks("console")[1:]:
        steps = re.split(r"^\$ ", block, flags=re.M)[1:]
        assert steps, block
        for step in steps:
            command, _, shown = step.partition("\n")
            assert normal(shell(command, workdir)) == normal(shown), command


def test_python_blocks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    found = blocks("python")
    assert len(found) == 3
    for number, code in enumerate(found, 1):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"README.md python block {number}", "exec"), {})
        shown = [line[3:] for line in code.splitlines() if line.startswith("#> ")]
        assert shown, number
        assert printed.getvalue().splitlines() == shown, number
