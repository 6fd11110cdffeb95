"""Fixtures for the command line tests: the installed executable, run as a user would."""

from __future__ import annotations

import logging
import os
import pty
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..summarizers.llm_server import LLMServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CHAT_EXAMPLE = EXAMPLES / "coding-session.openai-chat.json"
ANTHROPIC_EXAMPLE = EXAMPLES / "coding-session.anthropic.json"
EXECUTABLE = Path(sys.executable).parent / "contextfold"
CREDENTIALS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")


@dataclass(frozen=True)
class Ran:
    """One finished run of the executable."""

    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        """Non-empty stderr lines."""
        return [line for line in self.stderr.splitlines() if line.strip()]


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without anyone's credentials, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in CREDENTIALS}
    env["COLUMNS"] = "100"
    env.update(extra or {})
    return env


def run(
    *args: str | Path,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> Ran:
    """Run `contextfold ARGS...` and wait for it."""
    assert EXECUTABLE.exists(), f"{EXECUTABLE} is missing: install with pip install -e '.[cli]'"
    done = subprocess.run(
        [str(EXECUTABLE), *map(str, args)],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env=clean_env(env),
        timeout=timeout,
        check=False,
    )
    return Ran(
        done.returncode,
        done.stdout.decode("utf-8"),
        done.stderr.decode("utf-8", "replace"),
    )


def run_on_a_terminal(*args: str | Path) -> tuple[int, str]:
    """Run the executable with stdin, stdout and stderr on a pseudo-terminal."""
    leader, follower = pty.openpty()
    env = clean_env({"TERM": "xterm-256color", "COLUMNS": "100"})
    process = subprocess.Popen(
        [str(EXECUTABLE), *map(str, args)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")


def invoke(*args: str | Path, stdin: bytes | str | None = None) -> Ran:
    """Run the command line in this process (for usage and help, where speed matters)."""
    from typer.testing import CliRunner

    from contextfold._cli import app

    logger = logging.getLogger("contextfold")
    handlers = list(logger.handlers)
    try:
        result = CliRunner().invoke(app, [str(a) for a in args], input=stdin)
    finally:
        logger.handlers[:] = handlers
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def assert_one_line_error(ran: Ran, *fragments: str) -> None:
    """Exit code 2, a single `contextfold: error:` line naming `fragments`, no traceback."""
    assert ran.code == 2, ran
    assert "Traceback" not in ran.stderr, ran.stderr
    assert ran.stdout == ""
    assert len(ran.lines) == 1, ran.stderr
    assert ran.lines[0].startswith("contextfold: error: "), ran.stderr
    for fragment in fragments:
        assert fragment in ran.lines[0], (fragment, ran.lines[0])


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A fresh chat-completions server on 127.0.0.1 for one test."""
    with LLMServer() as server:
        yield server
