"""The CLI under hostile input and a hostile system (issue 12, items 8-9): one line per
failure and never a traceback, nothing half written, nothing created by a failed run, and a
batch goes on past a bad line."""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

import pytest

from .conftest import EXECUTABLE, Ran, clean_env, run

HUGE_INT = "1" + "0" * 5_000


def _one_error(ran: Ran) -> None:
    assert ran.code == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert ran.stderr.startswith("contextfold: error: ")
    assert ran.stderr.count("\n") == 1
    assert ran.stdout == ""


@pytest.mark.parametrize("command", ["compact", "inspect"])
@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[{"role": "user", "content": "hi", "n": ' + HUGE_INT + "}]", "4300 digits"),
        ('[{"role": "user", "content": "hi", "x": NaN}]', "NaN is not valid JSON"),
        ('[{"role": "user", "content": "hi", "x": -Infinity}]', "Infinity is not valid JSON"),
    ],
)
def test_unreadable_json_is_one_line(tmp_path: Path, command: str, text: str, says: str) -> None:
    path = tmp_path / "in.json"
    path.write_text(text)
    args: list[str | Path] = [command, path, *(["-b", "100"] if command == "compact" else [])]
    ran = run(*args)
    _one_error(ran)
    assert says in ran.stderr


def test_a_lone_surrogate_never_crashes_inspect(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text('[{"role": "user", "content": "bad \\ud800 text"}]')
    ran = run("inspect", path)
    assert ran.code == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    compacted = run("compact", path, "-b", "100")
    assert compacted.code == 0
    assert json.loads(compacted.stdout)[0]["content"] == "bad \ud800 text"


def test_a_failed_run_creates_no_archive(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text('[{"role": "assistant", "content": "x"}, {"role": "tool", "content": "y"}]')
    db = tmp_path / "new.db"
    ran = run("compact", path, "-b", "10", "--format", "anthropic", "--archive", db)
    _one_error(ran)
    assert not db.exists()
    assert list(tmp_path.iterdir()) == [path]


def test_a_batch_goes_on_past_a_bad_line(tmp_path: Path) -> None:
    lines = [json.dumps([{"role": "user", "content": f"hello {i}"}]) for i in range(8)]
    lines[2] = '[{"role": "user", "content": ' + HUGE_INT + "}]"
    lines[5] = "not json at all"
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    ran = run("batch", source, out, "-b", "50")
    assert ran.code == 2
    assert "Traceback" not in ran.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [w["line"] for w in written] == list(range(1, 9))
    assert "error" in written[2]
    assert "error" in written[5]
    assert all("payload" in w for i, w in enumerate(written) if i not in (2, 5))
    assert "2 failed" in ran.stderr


def _limited(*args: str | Path, stdout: Path, limit: int) -> subprocess.CompletedProcess[bytes]:
    """The executable with a file-size limit (as `ulimit -f`), stdout into `stdout`."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    with stdout.open("wb") as sink:
        return subprocess.run(
            [str(EXECUTABLE), *map(str, args)],
            stdout=sink,
            stderr=subprocess.PIPE,
            env=clean_env(),
            preexec_fn=cap,
            check=False,
            timeout=120,
        )


def _big(tmp_path: Path) -> Path:
    messages = [{"role": "user", "content": "Read it all."}]
    for i in range(60):
        messages.append({"role": "assistant", "content": f"Part {i}: " + "word " * 500})
        messages.append({"role": "user", "content": "go on"})
    path = tmp_path / "big.json"
    path.write_text(json.dumps(messages))
    return path


def test_a_write_cut_short_by_a_file_size_limit_is_an_error(tmp_path: Path) -> None:
    big = _big(tmp_path)
    done = _limited("compact", big, "-b", "1000000", stdout=tmp_path / "out.json", limit=50_000)
    assert done.returncode == 2
    stderr = done.stderr.decode()
    assert "Traceback" not in stderr
    assert "could not be written" in stderr


def test_a_batch_under_a_file_size_limit_leaves_no_half_file(tmp_path: Path) -> None:
    big = _big(tmp_path)
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join([big.read_text()] * 4) + "\n")
    out = tmp_path / "out.jsonl"
    done = _limited("batch", source, out, "-b", "1000000", stdout=tmp_path / "log", limit=300_000)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr.decode()
    assert not out.exists()
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--high", "0.9"], "--high has no effect on compact"),
        (["--pin", "999"], "999 is not a message index"),
        (["--pin", "-1"], "-1 is not a message index"),
    ],
)
def test_flags_that_cannot_act_say_so(tmp_path: Path, extra: list[str], says: str) -> None:
    path = tmp_path / "in.json"
    path.write_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]')
    ran = run("compact", path, "-b", "100", *extra)
    _one_error(ran)
    assert says in ran.stderr


def test_a_misspelled_model_warns_once_and_names_the_nearest(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    ran = run("compact", path, "-b", "100", "-m", "gtp-4o")
    assert ran.code == 0
    warnings = [line for line in ran.lines if line.startswith("contextfold: warning:")]
    assert len(warnings) == 1
    assert "did you mean 'gpt-4o'" in warnings[0]
    quiet = run("compact", path, "-b", "100", "-m", "qwen3-32b")  # a local model: no warning
    assert not [line for line in quiet.lines if "warning" in line]


@pytest.mark.parametrize(
    ("text", "extra", "hint"),
    [
        ('[{"role": "user", "content": "a"}]\n[{"role": "user", "content": "b"}]\n', [], "batch"),
        ('[{"role": "user", "content": "a"},]', [], "trailing comma"),
        (
            json.dumps(
                {"model": "m", "messages": [{"role": "tool", "tool_call_id": "x", "content": "t"}]}
            ),
            ["--format", "anthropic"],
            "looks like openai-chat",
        ),
        (json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}), [], "Gemini"),
    ],
)
def test_bad_input_says_how_to_fix_it(
    tmp_path: Path, text: str, extra: list[str], hint: str
) -> None:
    path = tmp_path / "in.json"
    path.write_text(text)
    ran = run("compact", path, "-b", "100", *extra)
    _one_error(ran)
    assert hint in ran.stderr


def test_a_zero_budget_does_not_suggest_a_share_compact_refuses(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    ran = run("compact", path, "-b", "0")
    assert ran.code == 2
    assert "positive number of tokens" in ran.stderr
    assert "%" not in ran.stderr


@pytest.mark.parametrize("command", ["compact", "recall", "batch"])
def test_an_archive_that_is_a_directory_says_so(tmp_path: Path, command: str) -> None:
    """SQLite said 'unable to open database file' (compact, batch) or 'disk I/O error'
    (recall) for a directory given as --archive."""
    folder = tmp_path / "archives"
    folder.mkdir()
    session = tmp_path / "in.json"
    session.write_text('[{"role": "user", "content": "hi"}]')
    args: dict[str, list[str | Path]] = {
        "compact": ["compact", session, "-b", "100"],
        "recall": ["recall", "r0123456789"],
        "batch": ["batch", session, tmp_path / "out.jsonl", "-b", "100"],
    }
    ran = run(*args[command], "--archive", folder)
    _one_error(ran)
    assert f"{folder}" in ran.stderr
    assert "is a directory" in ran.stderr
    assert list(folder.iterdir()) == []
