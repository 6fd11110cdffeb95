"""A summarizer that never answers cannot hold a turn: the deadline (issue 12, fault 10).

Against a real server on 127.0.0.1 that accepts the request and never answers (`hang`),
with the SDK's default 120 s timeout: compact, acompact, the manager and the CLI come back
after the policy's deadline with the ledger's summary and a warning in the report.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import contextfold as cf
from contextfold.testing import FakeSummarizer

from .llm_server import LLMServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coding-session.openai-chat.json"
DEADLINE = 0.5
SLACK = 20.0
"""Far below the hang (60 s) and the SDK's timeout (120 s), far above the deadline."""


def body() -> dict[str, object]:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture
def silent() -> object:
    with LLMServer(hang_seconds=60) as server:
        server.always("never-answers", "hang")
        yield server


def hung(server: LLMServer) -> cf.Summarizer:
    return cf.summarizer_from_spec("openai:never-answers", base_url=server.openai_url)


def assert_ledger_wrote_it(report: cf.Report) -> None:
    assert report.summarized > 0
    assert report.summarizer == "ledger"
    assert any("deadline" in w and "never-answers" in w for w in report.warnings), report.warnings


def test_default_deadline_is_well_under_a_minute() -> None:
    assert 0 < cf.Policy().deadline <= 30


def test_compact_returns_after_the_deadline_with_the_ledgers_summary(silent: LLMServer) -> None:
    started = time.monotonic()
    result = cf.compact(body(), 6000, "gpt-4o", summarizer=hung(silent), deadline=DEADLINE)
    assert time.monotonic() - started < SLACK
    assert_ledger_wrote_it(result.report)
    assert silent.count("never-answers") >= 1  # it did ask, and the server held the request
    assert cf.validate(result.payload) == []


def test_acompact_cancels_the_wait(silent: LLMServer) -> None:
    started = time.monotonic()
    result = asyncio.run(
        cf.acompact(body(), 6000, "gpt-4o", summarizer=hung(silent), deadline=DEADLINE)
    )
    assert time.monotonic() - started < SLACK
    assert_ledger_wrote_it(result.report)


def test_manager_view_keeps_the_turn(silent: LLMServer) -> None:
    manager = cf.ContextManager(
        6000, "gpt-4o", summarizer=hung(silent), policy=cf.Policy(deadline=DEADLINE)
    )
    started = time.monotonic()
    messages = body()["messages"]
    assert isinstance(messages, list)
    for message in messages:
        manager.add(message)
        manager.view()
    assert time.monotonic() - started < 3 * SLACK
    reports = [manager.last_report]
    assert reports[0] is not None
    assert manager.tokens() <= 6000


class Blocked:
    """A sync-only summarizer that blocks until released (a hung local model, say)."""

    name = "blocked"

    def __init__(self) -> None:
        self.release = threading.Event()

    def summarize(self, request: cf.SummaryRequest) -> cf.SummaryResult:
        self.release.wait(60)
        return cf.SummaryResult("## Task and goals\nlate", summarizer=self.name)


def test_a_sync_summarizer_that_blocks_is_abandoned_in_async_too() -> None:
    summarizer = Blocked()
    try:
        result = asyncio.run(
            cf.acompact(body(), 6000, "gpt-4o", summarizer=summarizer, deadline=DEADLINE)
        )
        assert result.report.summarizer == "ledger"
        assert any("deadline" in w for w in result.report.warnings)
        started = time.monotonic()
        again = cf.compact(body(), 6000, "gpt-4o", summarizer=summarizer, deadline=DEADLINE)
        assert time.monotonic() - started < SLACK
        assert again.report.summarizer == "ledger"
    finally:
        summarizer.release.set()


def test_a_quick_summarizer_is_used_within_the_deadline() -> None:
    summarizer = FakeSummarizer(lambda request: "## Task and goals\nquick")
    result = cf.compact(body(), 6000, "gpt-4o", summarizer=summarizer, deadline=5.0)
    assert result.report.warnings == ()
    assert result.report.summarizer != "ledger"


def test_deadline_must_be_positive() -> None:
    with pytest.raises(cf.ConfigurationError):
        cf.Policy(deadline=0)


def test_cli_deadline_flag(silent: LLMServer, tmp_path: Path) -> None:
    pytest.importorskip("typer")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}
    command = [
        sys.executable,
        "-m",
        "contextfold",
        "compact",
        str(EXAMPLE),
        "--budget",
        "6000",
        "--summarizer",
        "openai:never-answers",
        "--base-url",
        silent.openai_url,
        "--deadline",
        str(DEADLINE),
    ]
    started = time.monotonic()
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, env=env, timeout=120
    )
    assert time.monotonic() - started < SLACK + 10
    assert done.returncode == 0, done.stderr
    assert "deadline" in done.stderr
    assert cf.validate(json.loads(done.stdout)) == []
