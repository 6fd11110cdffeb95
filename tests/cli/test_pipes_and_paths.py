"""Readers that stop early, text JSON escapes allow, and paths that name no file: every
command exits as documented (0 for a reader gone, 2 with one line for a bad path), never a
traceback and never the exit code of a result that does not fit."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from .conftest import EXECUTABLE, clean_env, run


def _session(tmp_path: Path) -> Path:
    messages: list[dict[str, str]] = [{"role": "system", "content": "Be brief."}]
    for i in range(40):
        messages.append({"role": "user", "content": f"question {i} " + "word " * 80})
        messages.append({"role": "assistant", "content": f"answer {i}\n" + "line\n" * 80})
    path = tmp_path / "session.json"
    path.write_text(json.dumps(messages))
    (tmp_path / "sessions.jsonl").write_text(
        "\n".join(json.dumps(messages[: 10 + i]) for i in range(6)) + "\n"
    )
    return path


def _to_a_closed_pipe(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader has already gone (`| head` done reading)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [str(EXECUTABLE), *map(str, args)],
            stdin=subprocess.DEVNULL,
            stdout=writer,
            stderr=subprocess.PIPE,
            env=clean_env(),
            timeout=120,
            check=False,
        )
    finally:
        os.close(writer)


@pytest.mark.parametrize(
    "args",
    [
        ("compact", "{session}", "-b", "100000"),
        ("compact", "{session}", "-b", "500"),
        ("inspect", "{session}"),
        ("inspect", "{session}", "-b", "500"),
        ("inspect", "{session}", "--json"),
        ("batch", "{jsonl}", "-", "-b", "300", "-j", "1"),
        ("batch", "{jsonl}", "-", "-b", "300", "-j", "2"),
        ("example",),
    ],
)
def test_a_reader_gone_ends_every_command_quietly_with_0(tmp_path: Path, args: tuple[str]) -> None:
    session = _session(tmp_path)
    jsonl = tmp_path / "sessions.jsonl"
    given = [a.format(session=session, jsonl=jsonl) for a in args]
    done = _to_a_closed_pipe(*given)
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "Broken pipe" not in stderr
    assert "error" not in stderr


def test_recall_prints_text_with_lone_surrogates_as_escapes(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "\ud800 start " + "word " * 400},
        {"role": "assistant", "content": "reply \udc80 " + "ok " * 400},
        {"role": "user", "content": "next"},
    ]
    path = tmp_path / "in.json"
    path.write_text(json.dumps(messages))  # ASCII escapes: valid JSON, lone surrogates
    db = tmp_path / "a.db"
    compacted = run("compact", path, "-b", "60", "--archive", db)
    assert compacted.code == 0, compacted.stderr
    todo = set(re.findall(r"r[0-9a-f]{10}", compacted.stdout))
    texts: dict[str, str] = {}
    while todo:  # every reference the output shows, and those their originals show
        ref = todo.pop()
        recalled = run("recall", ref, "--archive", db)
        assert recalled.code == 0, recalled.stderr
        assert "Traceback" not in recalled.stderr
        texts[ref] = recalled.stdout
        todo |= set(re.findall(r"r[0-9a-f]{10}", recalled.stdout)) - set(texts)
    assert any("\\udc80" in text for text in texts.values())
    assert any("\\ud800" in text for text in texts.values())


def test_recall_reads_an_archive_whose_file_name_is_not_utf8(tmp_path: Path) -> None:
    session = _session(tmp_path)
    db = os.fsdecode(bytes(tmp_path) + b"/arch\xff.db")  # as a shell passes the raw bytes
    compacted = run("compact", session, "-b", "500", "--archive", db)
    assert compacted.code == 0, compacted.stderr
    ref = re.findall(r"r[0-9a-f]{10}", compacted.stdout)[0]
    recalled = run("recall", ref, "--archive", db)
    assert recalled.code == 0, recalled.stderr
    assert recalled.stdout.strip()


@pytest.mark.parametrize("option", ["--archive", "--report"])
def test_an_empty_output_path_is_one_error_and_writes_nothing(tmp_path: Path, option: str) -> None:
    session = _session(tmp_path)
    before = sorted(tmp_path.iterdir())
    ran = run("compact", session, "-b", "500", option, "")
    assert ran.code == 2
    assert ran.stdout == ""
    assert ran.stderr.startswith("contextfold: error: ")
    assert ran.stderr.count("\n") == 1
    assert "empty" in ran.stderr
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("command", ["compact", "batch"])
def test_a_run_failing_at_its_last_write_leaves_no_new_archive(
    tmp_path: Path, command: str
) -> None:
    session = _session(tmp_path)
    unwritable = tmp_path / "missing" / "out.json"
    db = tmp_path / "new.db"
    if command == "compact":
        ran = run("compact", session, "-b", "500", "--archive", db, "--report", unwritable)
    else:
        jsonl = tmp_path / "sessions.jsonl"
        ran = run("batch", jsonl, unwritable, "-b", "300", "-j", "1", "--archive", db)
    assert ran.code == 2
    assert "could not be written" in ran.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("new.db")]


def test_a_failed_run_keeps_an_archive_it_did_not_create(tmp_path: Path) -> None:
    session = _session(tmp_path)
    db = tmp_path / "kept.db"
    first = run("compact", session, "-b", "500", "--archive", db)
    assert first.code == 0, first.stderr
    ran = run("compact", session, "-b", "400", "--archive", db, "--report", tmp_path / "no" / "r")
    assert ran.code == 2
    ref = re.findall(r"r[0-9a-f]{10}", first.stdout)[0]
    assert run("recall", ref, "--archive", db).code == 0
