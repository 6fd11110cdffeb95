"""`contextfold compact`, driven through the installed executable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import contextfold as cf

from .. import corpus
from .conftest import ANTHROPIC_EXAMPLE, CHAT_EXAMPLE, Ran, assert_one_line_error, invoke, run


def compacted(ran: Ran) -> object:
    """The payload a successful run printed."""
    assert ran.code == 0, ran
    assert "Traceback" not in ran.stderr
    return json.loads(ran.stdout)


def test_example_fits_keeps_the_body_and_reports(tmp_path: Path) -> None:
    report_file = tmp_path / "report.json"
    ran = run("compact", CHAT_EXAMPLE, "-b", "6000", "-m", "gpt-4o", "--report", report_file)
    out = compacted(ran)
    original = json.loads(CHAT_EXAMPLE.read_text())
    assert isinstance(out, dict)
    assert {k: v for k, v in out.items() if k != "messages"} == {
        k: v for k, v in original.items() if k != "messages"
    }
    assert cf.validate(out) == []
    assert cf.count_tokens(out, "gpt-4o") <= 6000
    report = json.loads(report_file.read_text())
    assert report["fits"] is True
    assert report["tokens_before"] == cf.count_tokens(original, "gpt-4o")
    assert report["tokens_after"] == cf.count_tokens(out, "gpt-4o")
    assert report["summarized"] > 0
    assert report["refs"]
    assert report["summarizer"] == "ledger"
    summary = ran.stderr
    assert f"{report['tokens_before']:,} -> {report['tokens_after']:,} tokens" in summary
    assert "fits" in summary
    assert "summaries written by ledger" in summary
    assert "--archive DB" in summary


def test_stdin_and_a_file_give_the_same_bytes() -> None:
    data = CHAT_EXAMPLE.read_bytes()
    from_file = run("compact", CHAT_EXAMPLE, "-b", "5000")
    from_dash = run("compact", "-", "-b", "5000", stdin=data)
    from_default = run("compact", "-b", "5000", stdin=data)
    assert compacted(from_file)
    assert from_file.stdout == from_dash.stdout == from_default.stdout
    assert "<stdin>" in from_dash.stderr


def test_anthropic_example_stays_anthropic() -> None:
    out = compacted(run("compact", ANTHROPIC_EXAMPLE, "-b", "5000", "-m", "claude-sonnet-4-5"))
    assert isinstance(out, dict)
    assert cf.detect(out) == "anthropic"
    assert cf.validate(out, "anthropic") == []
    assert out["system"] == json.loads(ANTHROPIC_EXAMPLE.read_text())["system"]
    assert cf.count_tokens(out, "claude-sonnet-4-5") <= 5000


def test_a_fitting_payload_comes_back_unchanged() -> None:
    payload = json.loads(CHAT_EXAMPLE.read_text())
    ran = run("compact", CHAT_EXAMPLE, "-b", "100000")
    assert compacted(ran) == payload
    assert "nothing to do" in ran.stderr


def test_pinned_message_stays_verbatim() -> None:
    payload = json.loads(CHAT_EXAMPLE.read_text())
    pinned = payload["messages"][5]  # the view of invoice.py, old and large
    plain = compacted(run("compact", CHAT_EXAMPLE, "-b", "5000"))
    with_pin = compacted(run("compact", CHAT_EXAMPLE, "-b", "5000", "--pin", "5", "--pin", "4"))
    assert isinstance(plain, dict)
    assert isinstance(with_pin, dict)
    assert pinned not in plain["messages"]
    assert pinned in with_pin["messages"]
    assert cf.validate(with_pin) == []


def test_water_marks_set_the_depth() -> None:
    deep = compacted(run("compact", CHAT_EXAMPLE, "-b", "8000", "--low", "0.3"))
    shallow = compacted(run("compact", CHAT_EXAMPLE, "-b", "8000", "--low", "0.8"))
    assert cf.count_tokens(deep) <= 0.3 * 8000 < cf.count_tokens(shallow) <= 8000


def test_strict_exits_1_when_it_cannot_fit(tmp_path: Path) -> None:
    report_file = tmp_path / "report.json"
    ran = run("compact", CHAT_EXAMPLE, "-b", "300", "--strict", "--report", report_file)
    assert ran.code == 1
    assert "DOES NOT FIT" in ran.stderr
    out = json.loads(ran.stdout)  # the best effort is still printed, and valid
    assert cf.validate(out) == []
    report = json.loads(report_file.read_text())
    assert report["fits"] is False
    assert report["reason"] in ran.stderr
    lenient = run("compact", CHAT_EXAMPLE, "-b", "300")
    assert lenient.code == 0
    assert lenient.stdout == ran.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["compact", CHAT_EXAMPLE],  # no budget
        ["compact", CHAT_EXAMPLE, "-b", "lots"],
        ["compact", CHAT_EXAMPLE, "-b", "0"],
        ["compact", CHAT_EXAMPLE, "-b", "40%"],  # shares are for batch
        ["compact", CHAT_EXAMPLE, "-b", "100", "--high", "1.5"],
        ["compact", CHAT_EXAMPLE, "-b", "100", "--format", "xml"],
        ["compact", CHAT_EXAMPLE, "-b", "100", "--base-url", "http://127.0.0.1:9/v1"],
        ["compact", CHAT_EXAMPLE, "-b", "100", "--nonsense"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    ran = invoke(*args)
    assert ran.code == 2, ran
    assert "Traceback" not in ran.stderr
    assert ran.stdout == ""


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["-b", "100", "--low", "0.95"], ("low=0.95",)),
        (["-b", "100", "--format", "anthropic"], ("anthropic", "tools[0].name")),
        (["-b", "100", "--summarizer", "gemini:pro"], ("unknown summarizer backend",)),
    ],
)
def test_bad_settings_are_one_line(args: list[str], fragments: tuple[str, ...]) -> None:
    assert_one_line_error(run("compact", CHAT_EXAMPLE, *args), *fragments)


def test_usage_errors_exit_2_from_the_executable_too() -> None:
    ran = run("compact", CHAT_EXAMPLE, "-b", "lots")
    assert ran.code == 2
    assert "'lots' is not a budget" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_help_shows_an_example_everywhere() -> None:
    for command in ("compact", "inspect", "recall", "batch"):
        ran = invoke(command, "--help")
        assert ran.code == 0
        assert "Example:" in ran.stdout
        assert f"contextfold {command} " in ran.stdout
    top = run("--help")
    assert top.code == 0
    assert "Example:" in top.stdout
    assert all(c in top.stdout for c in ("compact", "inspect", "recall", "batch"))
    assert run("--version").stdout == f"contextfold {cf.__version__} (MIT License)\n"


def _sample() -> list[tuple[str, list[dict[str, object]]]]:
    """The largest conversation of each corpus file (batch tests cover all of them)."""
    records = corpus.require()
    chosen = []
    for prefix in ("swe", "tau"):
        group = [r for r in records if str(r["id"]).startswith(prefix)]
        group.sort(key=lambda r: len(json.dumps(r["messages"])))
        chosen.append(group[-1])
    return [(str(r["id"]), r["messages"]) for r in chosen]  # type: ignore[misc]


@pytest.mark.corpus
def test_corpus_conversations_compact_to_valid_fitting_payloads(tmp_path: Path) -> None:
    for ident, messages in _sample():
        source = tmp_path / "in.json"
        source.write_text(json.dumps(messages))
        report_file = tmp_path / "report.json"
        budget = 4000
        ran = run("compact", source, "-b", str(budget), "-m", "gpt-4o", "--report", report_file)
        out = compacted(ran)
        assert cf.validate(out) == [], ident
        report = json.loads(report_file.read_text())
        if report["fits"]:
            assert cf.count_tokens(out, "gpt-4o") <= budget, ident
        else:
            assert report["reason"], ident
            assert "DOES NOT FIT" in ran.stderr, ident
