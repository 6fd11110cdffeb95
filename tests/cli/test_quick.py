"""The quick path (`_cli/_quick.py`) against typer: the same keyword arguments, or none.

Every command line here also goes through typer, in an app built from the same
declarations around a command that only records what it is called with. The quick path
must either decline the command line or call the command with exactly what typer passed;
it must never accept one that typer rejects.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from contextfold._cli import COMMANDS, load
from contextfold._cli._app import for_typer
from contextfold._cli._quick import parse

from .conftest import CHAT_EXAMPLE

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "contextfold" / "_cli"


class Recorded:
    """A typer app with one command that records its keyword arguments."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.command: Callable[..., None] = getattr(load(name), name)
        self.seen: list[dict[str, object]] = []

        @functools.wraps(self.command)
        def record(**kwargs: object) -> None:
            self.seen.append(kwargs)

        self.app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        self.app.command(name)(for_typer(record))
        self.app.callback()(_root)

    def typer_kwargs(self, args: list[str]) -> dict[str, object] | None:
        """What typer calls the command with, or None when it does not call it."""
        self.seen.clear()
        ran = CliRunner().invoke(self.app, [self.name, *args])
        return self.seen[0] if ran.exit_code == 0 and self.seen else None


def _root() -> None:
    """A root, so that the command is a subcommand, as in the real app."""


@functools.cache
def recorded(name: str) -> Recorded:
    return Recorded(name)


def assert_agrees(name: str, args: list[str]) -> dict[str, object] | None:
    """The quick path declines `args` or passes what typer passes; what it passes."""
    quick = parse(recorded(name).command, args)
    if quick is not None:
        assert quick == recorded(name).typer_kwargs(args), (name, args)
    return quick


@pytest.mark.parametrize(
    "args",
    [
        [str(CHAT_EXAMPLE), "-b", "4000", "-m", "gpt-4o"],
        ["-b", "4000", "-m", "gpt-4o", "x.json"],
        ["x.json", "--budget=4_000", "--model=gpt-4o", "--strict"],
        ["-", "-b", "1", "--pin", "3", "--pin", "0", "--fallback", "a", "--fallback", "b"],
        ["x.json", "-b", "9", "--low", "0.5", "--deadline", "2", "-f", "openai-responses"],
        ["x.json", "-b", "9", "--report", "-", "--archive", "a.db", "--summarizer", "x:y"],
        ["x.json", "-b", "9", "--base-url", "http://h", "--cache", "c.db", "-m", ""],
    ],
)
def test_plain_command_lines_take_the_quick_path(args: list[str]) -> None:
    assert assert_agrees("compact", args) is not None


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["x.json"],  # no budget
        ["x.json", "-b", "lots"],
        ["x.json", "-b", "40%"],
        ["x.json", "-b", "4000", "-b", "5000"],
        ["x.json", "-b4000"],
        ["x.json", "-b=4000"],
        ["x.json", "-b", "4000", "-m"],
        ["x.json", "-b", "4000", "-m", "-x"],
        ["x.json", "-b", "4000", "--pin", "-1"],
        ["x.json", "-b", "4000", "--pin", "03"],
        ["x.json", "-b", "4000", "--low", "1.5"],
        ["x.json", "-b", "4000", "--low", ".5"],
        ["x.json", "-b", "4000", "--low", "5e-1"],
        ["x.json", "-b", "4000", "-f", "OPENAI-CHAT"],
        ["x.json", "-b", "4000", "--strict=yes"],
        ["x.json", "-b", "4000", "--"],
        ["x.json", "y.json", "-b", "4000"],
        ["x.json", "-b", "4000", "--version"],
    ],
)
def test_everything_else_is_left_to_typer(args: list[str]) -> None:
    assert parse(recorded("compact").command, args) is None


def test_every_command_but_serve_can_take_the_quick_path() -> None:
    plain = {
        "compact": ["x.json", "-b", "10"],
        "inspect": ["x.json", "--json", "--top", "3", "-b", "40%"],
        "recall": ["r0123456789", "--archive", "a.db", "--json"],
        "batch": ["in.jsonl", "out.jsonl", "-b", "40%", "-j", "2"],
        "example": ["coding-session.openai-chat.json"],
    }
    assert set(plain) == set(COMMANDS) - {"serve"}
    for name, args in plain.items():
        assert assert_agrees(name, args) is not None, name
    assert parse(recorded("serve").command, ["--port", "1"]) is None  # --token reads the env


FLAG = ""
"""A value that marks an option as a flag (it takes none)."""
SHAPES: dict[str, tuple[list[str], dict[str, list[str]]]] = {
    "compact": (
        ["x.json", "-", "y.json"],
        {
            "-b": ["4000", "4_000", "0", "40%", "lots"],
            "--budget": ["7", "8,000"],
            "-m": ["gpt-4o", "", "-x"],
            "-f": ["anthropic", "auto", "Anthropic", "nope"],
            "--low": ["0.5", "1", "1.5", "-1", ".5"],
            "--high": ["0.5"],
            "--deadline": ["0.001", "0", "2"],
            "--pin": ["3", "0", "-1", "03"],
            "--strict": [FLAG, "1"],
            "--report": ["r.json", "-"],
            "--archive": ["a.db"],
            "--summarizer": ["openai:m"],
            "--fallback": ["x:y", "z:w"],
            "--cache": ["c.db"],
            "--nope": ["1"],
            "--help": [FLAG],
            "--": [FLAG],
        },
    ),
    "inspect": (
        ["x.json", "-"],
        {
            "-b": ["40%", "8000", "0"],
            "-m": ["gpt-4o"],
            "--json": [FLAG],
            "--top": ["0", "2", "07", "-3"],
            "-f": ["anthropic", "OPENAI-CHAT"],
        },
    ),
    "batch": (
        ["in.jsonl", "out.jsonl", "-"],
        {
            "-b": ["40%", "8000"],
            "-j": ["0", "2", "-1"],
            "--jobs": ["3"],
            "--strict": [FLAG],
            "--low": ["0.2"],
            "--fallback": ["x:y"],
        },
    ),
    "recall": (
        ["r0123456789", "[cf:r0123456789 masked]"],
        {"--archive": ["a.db", "b.db"], "--json": [FLAG, "yes"]},
    ),
    "example": (["coding-session.openai-chat.json", "nope"], {"--help": [FLAG], "--": [FLAG]}),
}


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A command and a shuffled command line of its options, valid values or not."""
    name = draw(st.sampled_from(sorted(SHAPES)))
    positionals, options = SHAPES[name]
    groups = [[p] for p in draw(st.lists(st.sampled_from(positionals), max_size=3))]
    for flag in draw(st.lists(st.sampled_from(sorted(options)), max_size=6)):
        value = draw(st.sampled_from(options[flag]))
        if value == FLAG:
            groups.append([flag])
        elif flag.startswith("--") and draw(st.booleans()):
            groups.append([f"{flag}={value}"])
        else:
            groups.append([flag, value])
    if name == "compact" and draw(st.booleans()):
        groups.append(["-b", "100"])
    return name, [arg for group in draw(st.permutations(groups)) for arg in group]


@settings(max_examples=300, deadline=None)
@given(command_lines())
def test_any_command_line_agrees_with_typer(line: tuple[str, list[str]]) -> None:
    assert_agrees(*line)


def test_command_modules_never_import_typer() -> None:
    """Only the typer app imports typer at module level (`_cli` rule 4)."""
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "_app.py":
            continue
        for node in ast.parse(path.read_text()).body:
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] in ("typer", "click", "rich") for n in names), path


LEAN = (
    *("typer", "click", "pydantic", "pydantic_core", "rich"),  # the CLI frameworks
    *("asyncio", "ssl", "sqlite3", "multiprocessing", "importlib.metadata"),  # unused here
    *("openai", "anthropic", "httpx", "aiohttp", "starlette", "uvicorn"),  # SDKs, the proxy
)
SCRIPT = """
import sys
lean = set(sys.argv[2:])
sys.argv = ["contextfold", "compact", sys.argv[1], "-b", "4000", "-m", "gpt-4o"]
from contextfold.__main__ import main
try:
    main()
finally:
    loaded = {m.split(".")[0] for m in sys.modules} | set(sys.modules)
    sys.stderr.write("loaded: " + " ".join(sorted(loaded & lean)) + "\\n")
"""


def test_compact_loads_no_cli_framework_and_nothing_it_does_not_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(CHAT_EXAMPLE), *LEAN],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"messages"' not in done.stderr
    assert done.stderr.splitlines()[-1] == "loaded: ", done.stderr
