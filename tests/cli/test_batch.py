"""`contextfold batch`: the whole corpus on all cores, bad lines reported, order kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import contextfold as cf

from .. import corpus
from .conftest import CHAT_EXAMPLE, assert_one_line_error, run, run_on_a_terminal


@pytest.mark.corpus
def test_whole_corpus_with_a_progress_bar(tmp_path: Path) -> None:
    records = corpus.require()
    source, target = tmp_path / "corpus.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, screen = run_on_a_terminal("batch", source, target, "-b", "40%", "-m", "gpt-4o")
    assert code == 0, screen
    assert "Traceback" not in screen
    assert "compacting" in screen  # the progress bar
    assert f"{len(records)}/{len(records)}" in screen
    assert f"batch: {len(records)} conversations" in screen
    assert "0 failed" in screen
    outputs = [json.loads(line) for line in target.read_text().splitlines()]
    assert [o["id"] for o in outputs] == [r["id"] for r in records]
    for record, out in zip(records, outputs, strict=True):
        _check_record(record, out)
    for record, out in list(zip(records, outputs, strict=True))[::60]:  # a spot check
        assert out["report"]["tokens_before"] == cf.count_tokens(record["messages"], "gpt-4o")


def _check_record(record: dict[str, Any], out: dict[str, Any]) -> None:
    """Envelope kept, messages valid, budget met (or an honest reason)."""
    envelope = {k: v for k, v in record.items() if k != "messages"}
    assert {k: v for k, v in out.items() if k not in ("messages", "report")} == envelope
    report = out["report"]
    assert cf.validate(out["messages"]) == [], record["id"]
    assert report["budget"] == max(1, int(report["tokens_before"] * 0.4))
    if report["fits"]:
        assert cf.count_tokens(out["messages"], "gpt-4o") <= report["budget"], record["id"]
    else:
        assert report["reason"], record["id"]


def _lines(tmp_path: Path) -> Path:
    example = json.loads(CHAT_EXAMPLE.read_text())
    record = {"id": "example", "format": "openai_chat", "messages": example["messages"]}
    bad_record = {"id": "robot", "messages": [{"role": "robot", "content": "beep"}]}
    lines = [
        json.dumps(record).encode(),
        json.dumps(record)[:300].encode(),  # truncated
        b"",  # blank: skipped
        b"\xff\xfe binary",
        json.dumps(example["messages"][:3]).encode(),  # a plain message list
        json.dumps(bad_record).encode(),
        json.dumps(example).encode(),  # a whole request body
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_bad_lines_are_reported_and_the_batch_goes_on(tmp_path: Path) -> None:
    source = _lines(tmp_path)
    target = tmp_path / "out.jsonl"
    ran = run("batch", source, target, "-b", "5000", "-j", "2")
    assert ran.code == 2, ran
    assert "Traceback" not in ran.stderr
    errors = [line for line in ran.lines if line.startswith(str(source))]
    assert errors[0].startswith(f"{source}:2: not valid JSON")
    assert errors[1].startswith(f"{source}:4: not UTF-8 text (byte 0xff at offset 0)")
    assert errors[2].startswith(f"{source}:6: id 'robot': openai-chat, message 0, field 'role'")
    assert len(errors) == 3
    assert "batch: 6 conversations" in ran.stderr
    assert "3 failed" in ran.stderr
    assert "━" not in ran.stderr  # no bar when stderr is not a terminal
    out = [json.loads(line) for line in target.read_text().splitlines()]
    assert [o.get("line") for o in out] == [None, 2, 4, 5, 6, 7]
    assert out[0]["id"] == "example"
    assert cf.validate(out[0]["messages"]) == []
    assert out[0]["report"]["fits"] is True
    assert set(out[1]) == {"line", "error"}
    assert out[3]["report"]["repaired"]  # the list ends in a call with no result
    assert cf.validate(out[3]["payload"]) == []
    assert out[4]["id"] == "robot"
    assert "field 'role'" in out[4]["error"]
    assert set(out[5]) == {"line", "payload", "report"}
    assert isinstance(out[5]["payload"], dict)
    assert out[5]["payload"]["tools"] == json.loads(CHAT_EXAMPLE.read_text())["tools"]
    one = tmp_path / "one.jsonl"
    assert run("batch", source, one, "-b", "5000", "-j", "1").code == 2
    assert one.read_text() == target.read_text()  # same output, whatever the processes


def test_stdin_to_stdout_with_an_archive(tmp_path: Path) -> None:
    example = json.loads(CHAT_EXAMPLE.read_text())
    records = [{"id": f"run-{i}", "messages": example["messages"][: 20 + 10 * i]} for i in range(3)]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    db = tmp_path / "batch.db"
    ran = run("batch", "-", "-", "-b", "1500", "--archive", db, "--strict", stdin=data)
    assert ran.code == 0, ran
    outputs = [json.loads(line) for line in ran.stdout.splitlines()]
    assert [o["id"] for o in outputs] == ["run-0", "run-1", "run-2"]
    refs = [ref for o in outputs for ref in o["report"]["refs"]]
    assert refs
    with cf.Archive(cf.SqliteStore(db, create=False)) as archive:
        assert set(refs) <= set(archive.refs())
    assert "tokens:" in ran.stderr


def test_strict_exits_1_when_some_do_not_fit(tmp_path: Path) -> None:
    example = json.loads(CHAT_EXAMPLE.read_text())
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "x", "messages": example["messages"]}) + "\n")
    ran = run("batch", source, tmp_path / "out.jsonl", "-b", "200", "--strict")
    assert ran.code == 1, ran
    assert "1 do not fit" in ran.stderr


def test_the_output_never_overwrites_the_input(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "x", "messages": [{"role": "user", "content": "hi"}]}\n')
    ran = run("batch", source, tmp_path / "." / "in.jsonl", "-b", "100")
    assert ran.code == 2
    assert "would overwrite the input" in ran.stderr
    assert source.read_text().startswith('{"id": "x"')


def test_an_archive_that_cannot_be_opened_fails_once_before_any_line(tmp_path: Path) -> None:
    example = json.loads(CHAT_EXAMPLE.read_text())
    source = tmp_path / "in.jsonl"
    record = {"id": "x", "messages": example["messages"]}
    source.write_text("".join(json.dumps({**record, "id": f"run-{i}"}) + "\n" for i in range(6)))
    target = tmp_path / "out.jsonl"
    target.write_text("the previous results\n")
    not_a_database = tmp_path / "notes.db"
    not_a_database.write_text("my notes, not an archive\n")
    ran = run("batch", source, target, "-b", "40%", "--archive", not_a_database)
    assert_one_line_error(ran, "notes.db", "not a database")
    assert target.read_text() == "the previous results\n"
    assert not_a_database.read_text() == "my notes, not an archive\n"


def test_an_output_that_is_a_directory_fails_before_any_line(tmp_path: Path) -> None:
    """It used to compact every line (reporting each bad one) and only then fail."""
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "x", "messages": [{"role": "robot", "content": "hi"}]}\n')
    folder = tmp_path / "results"
    folder.mkdir()
    ran = run("batch", source, folder, "-b", "100")
    assert_one_line_error(ran, str(folder), "is a directory")
    assert list(folder.iterdir()) == []
