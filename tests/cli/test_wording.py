"""What the command line says: every command hints at the payload's own format under a
wrong --format, a refused value names its option, and counts agree with their nouns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextfold._cli._echo import counted

from .conftest import CHAT_EXAMPLE, assert_one_line_error, invoke, run

HINT = "(the payload looks like openai-chat: drop --format anthropic)"


def test_inspect_hints_at_the_format_as_compact_does() -> None:
    inspected = run("inspect", CHAT_EXAMPLE, "--format", "anthropic")
    compacted = run("compact", CHAT_EXAMPLE, "-b", "1000", "--format", "anthropic")
    assert_one_line_error(inspected, "tools[0].name", HINT)
    assert_one_line_error(compacted, "tools[0].name", HINT)


def test_batch_lines_hint_at_the_format(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(json.loads(CHAT_EXAMPLE.read_text())) + "\n")
    ran = run("batch", source, tmp_path / "out.jsonl", "-b", "1000", "-f", "anthropic")
    assert ran.code == 2, ran
    assert HINT in ran.stderr
    assert HINT in json.loads((tmp_path / "out.jsonl").read_text())["error"]


@pytest.mark.parametrize("command", ["compact", "batch"])
@pytest.mark.parametrize(
    ("args", "named"),
    [(["--low", "0"], "--low 0: "), (["--low", "0.95", "--deadline", "3"], "--low 0.95: ")],
)
def test_a_refused_water_mark_names_its_option(
    tmp_path: Path, command: str, args: list[str], named: str
) -> None:
    files = [CHAT_EXAMPLE] if command == "compact" else [CHAT_EXAMPLE, tmp_path / "out.jsonl"]
    ran = run(command, *files, "-b", "1000", *args)
    assert_one_line_error(ran, named, "0 < low <= high <= 1")
    assert "--deadline" not in ran.stderr  # the deadline was fine
    assert not (tmp_path / "out.jsonl").exists()


def test_a_share_for_inspect_names_the_budget_option() -> None:
    ran = invoke("inspect", CHAT_EXAMPLE, "-b", "40%")
    assert ran.code == 2
    assert "Invalid value for '--budget' / '-b': 40% is a share" in ran.stderr


def test_one_conversation_and_one_process_are_singular(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('[{"role": "user", "content": "hi"}]\n')
    ran = run("batch", source, tmp_path / "out.jsonl", "-b", "1000", "--jobs", "1")
    assert ran.code == 0, ran
    assert "batch: 1 conversation in " in ran.stderr
    assert "(1 process)" in ran.stderr


def test_one_message_is_singular() -> None:
    one = b'[{"role": "user", "content": "hi"}]'
    inspected = run("inspect", "-", stdin=one)
    assert inspected.code == 0, inspected
    shown = " ".join(inspected.stdout.split())  # the table may wrap a line anywhere
    assert "openai-chat, 1 message, " in shown
    assert "0 tool definitions" in shown
    compacted = run("compact", "-", "-b", "1000", stdin=one)
    assert "openai-chat, 1 message after compaction" in compacted.stderr


def test_counted_agrees_with_its_noun() -> None:
    assert [counted(n, "original") for n in (0, 1, 2, 1_000)] == [
        "0 originals",
        "1 original",
        "2 originals",
        "1,000 originals",
    ]
    assert counted(1, "process", "processes") == "1 process"
    assert counted(4, "process", "processes") == "4 processes"
