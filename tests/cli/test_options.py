"""Shared options: budgets, and the summarizer flags against a real local LLM server.

A canary key is planted in the environment; the executable must use it (the server sees
it) and never show it: not on stdout or stderr, not in the report, cache or archive.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from contextfold._cli._options import Budget, parse_budget

from ..summarizers.llm_server import LLMServer, sent_key
from .conftest import CHAT_EXAMPLE, Ran, assert_one_line_error, run

CANARY = "sk-canary-7f3a9c1e5b0d-cli"
MODEL = "test-model"


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("8000", Budget(tokens=8000)),
        ("8_000", Budget(tokens=8000)),
        ("8,000", Budget(tokens=8000)),
        (" 40% ", Budget(percent=40.0)),
        ("12.5%", Budget(percent=12.5)),
        ("100%", Budget(percent=100.0)),
    ],
)
def test_budgets_parse(text: str, budget: Budget) -> None:
    assert parse_budget(text) == budget


@pytest.mark.parametrize("text", ["", "0", "-5", "0%", "101%", "8k", "lots", "5.5"])
def test_bad_budgets_are_usage_errors(text: str) -> None:
    with pytest.raises(typer.BadParameter, match="not a budget"):
        parse_budget(text)


def test_a_share_resolves_against_the_conversation() -> None:
    def never() -> int:
        raise AssertionError("a budget in tokens needs no count")

    assert Budget(percent=40.0).resolve(lambda: 1000) == 400
    assert Budget(percent=1.0).resolve(lambda: 10) == 1
    assert Budget(tokens=77).resolve(never) == 77


def summarize_with(server: LLMServer, folder: Path, *extra: str) -> tuple[Ran, dict[str, object]]:
    """Compact the example with the server's model as summarizer; (run, report)."""
    report = folder / "report.json"
    ran = run(
        "compact",
        CHAT_EXAMPLE,
        "-b",
        "5000",
        "--summarizer",
        f"openai:{MODEL}",
        "--base-url",
        server.openai_url,
        "--report",
        report,
        *extra,
        env={"OPENAI_API_KEY": CANARY},
    )
    assert ran.code == 0, ran
    return ran, json.loads(report.read_text())


def assert_no_canary(ran: Ran, *files: Path) -> None:
    """The key is nowhere a person or a program could read it."""
    assert CANARY not in ran.stdout
    assert CANARY not in ran.stderr
    for path in files:
        for candidate in (path, *path.parent.glob(path.name + "*")):  # SQLite -wal, -shm
            assert CANARY.encode() not in candidate.read_bytes(), candidate


def test_the_summary_comes_from_the_server(llm_server: LLMServer, tmp_path: Path) -> None:
    db = tmp_path / "archive.db"
    ran, report = summarize_with(llm_server, tmp_path, "--archive", str(db))
    assert llm_server.count(MODEL) > 0
    assert {sent_key(r.headers) for r in llm_server.requests} == {CANARY}
    assert f"Summary by {MODEL} of request" in ran.stdout
    assert report["summarizer"] == f"openai:{MODEL}"
    summaries = report["summaries"]
    assert isinstance(summaries, list)
    assert all(s["summarizer"] == f"openai:{MODEL}" for s in summaries)
    assert f"summaries written by openai:{MODEL}" in ran.stderr
    assert_no_canary(ran, tmp_path / "report.json", db)


def test_a_cached_run_makes_no_requests(llm_server: LLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "summaries.db"
    first, _ = summarize_with(llm_server, tmp_path, "--cache", str(cache))
    requests = llm_server.count()
    assert requests > 0
    second, report = summarize_with(llm_server, tmp_path, "--cache", str(cache))
    assert llm_server.count() == requests
    assert second.stdout == first.stdout
    summaries = report["summaries"]
    assert isinstance(summaries, list)
    assert all(s["cached"] for s in summaries)
    assert "from the cache" in second.stderr
    assert_no_canary(second, cache, tmp_path / "report.json")


def test_a_failing_server_hands_over_to_the_ledger(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.always(MODEL, "401")  # a 401 that echoes the key back, as some providers do
    ran, report = summarize_with(llm_server, tmp_path)
    assert llm_server.count(MODEL) > 0
    assert report["summarizer"] == "ledger"
    assert f"summarizer openai:{MODEL} failed" in ran.stderr
    assert f"openai:{MODEL} did not write them all" in ran.stderr
    assert "Summary by" not in ran.stdout
    assert_no_canary(ran, tmp_path / "report.json")


def test_the_fallback_model_takes_over(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.always(MODEL, "500")
    fallback = f"openai:fallback-model@{llm_server.openai_url}"
    ran, report = summarize_with(llm_server, tmp_path, "--fallback", fallback)
    assert llm_server.count("fallback-model") > 0
    assert report["summarizer"] == "openai:fallback-model"
    assert "Summary by fallback-model of request" in ran.stdout
    assert_no_canary(ran, tmp_path / "report.json")


def test_anthropic_backend(llm_server: LLMServer, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    ran = run(
        "compact",
        CHAT_EXAMPLE,
        "-b",
        "5000",
        "--summarizer",
        "anthropic:claude-haiku-4-5",
        "--base-url",
        llm_server.url,
        "--report",
        report,
        env={"ANTHROPIC_API_KEY": CANARY},
    )
    assert ran.code == 0, ran
    assert "Summary by claude-haiku-4-5 of request" in ran.stdout
    assert json.loads(report.read_text())["summarizer"] == "anthropic:claude-haiku-4-5"
    assert {sent_key(r.headers) for r in llm_server.requests} == {CANARY}
    assert_no_canary(ran, report)


def test_no_key_is_one_line_before_any_request() -> None:
    ran = run("compact", CHAT_EXAMPLE, "-b", "5000", "--summarizer", "openai:gpt-4o-mini")
    assert_one_line_error(ran, "no API key", "OPENAI_API_KEY")


def test_batch_workers_summarize_with_the_server(llm_server: LLMServer, tmp_path: Path) -> None:
    source = CHAT_EXAMPLE.parent / "coding-session.steps.jsonl"
    target, cache = tmp_path / "out.jsonl", tmp_path / "summaries.db"
    args: list[str | Path] = ["batch", source, target, "-b", "3000", "-j", "2", "--cache", cache]
    server = ["--summarizer", f"openai:{MODEL}", "--base-url", llm_server.openai_url]
    ran = run(*args, *server, env={"OPENAI_API_KEY": CANARY})
    assert ran.code == 0, ran
    reports = [json.loads(line)["report"] for line in target.read_text().splitlines()]
    written = {s["summarizer"] for r in reports for s in r["summaries"]}
    assert written == {f"openai:{MODEL}"}
    assert llm_server.count(MODEL) > 0
    assert_no_canary(ran, target, cache)
