"""LLM summaries inside real compactions: the engine, a real SDK client and a local server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import contextfold as cf

from ..corpus import records
from .llm_server import LLMServer

MODEL = "test-model"


def _conversation() -> list[object]:
    found = [r for r in records() if str(r["id"]).startswith("swe-agent")]
    if found:
        messages = found[0]["messages"]
        assert isinstance(messages, list)
        return messages
    steps: list[object] = [{"role": "user", "content": "Fix the bug in /src/app.py."}]
    for i in range(20):
        steps.append({"role": "assistant", "content": f"Step {i}: reading files."})
        steps.append({"role": "user", "content": f"continue {i} " * 200})
    return steps


def _summarizer(server: LLMServer, cache: Path | None = None) -> cf.Summarizer:
    return cf.summarizer_from_spec(
        f"openai:{MODEL}", base_url=server.openai_url, cache_path=cache, max_retries=0
    )


def test_compaction_uses_the_llm_summary_and_reports_it(llm_server: LLMServer) -> None:
    messages = _conversation()
    budget = cf.count_tokens(messages, "gpt-4o") // 4
    result = cf.compact(messages, budget, "gpt-4o", summarizer=_summarizer(llm_server))
    assert result.report.fits
    assert result.report.summarizer == f"openai:{MODEL}"
    assert f"Summary by {MODEL}" in json.dumps(result.payload)
    assert cf.validate(result.payload, format="openai-chat") == []
    assert sum(s.input_tokens for s in result.report.summaries) > 0


def test_a_failing_model_never_loses_the_turn(llm_server: LLMServer) -> None:
    llm_server.always(MODEL, "500")
    messages = _conversation()
    budget = cf.count_tokens(messages, "gpt-4o") // 4
    result = cf.compact(messages, budget, "gpt-4o", summarizer=_summarizer(llm_server))
    assert result.report.fits
    assert result.report.summarizer == "ledger"
    assert cf.validate(result.payload, format="openai-chat") == []


def test_cached_summaries_make_no_second_request(llm_server: LLMServer, tmp_path: Path) -> None:
    messages = _conversation()
    budget = cf.count_tokens(messages, "gpt-4o") // 4
    cache = tmp_path / "summaries.db"
    first = cf.compact(messages, budget, "gpt-4o", summarizer=_summarizer(llm_server, cache))
    calls = llm_server.count()
    second = cf.compact(messages, budget, "gpt-4o", summarizer=_summarizer(llm_server, cache))
    assert calls >= 1
    assert llm_server.count() == calls
    assert json.dumps(second.payload) == json.dumps(first.payload)
    assert all(s.cached for s in second.report.summaries)


def test_async_compaction_through_the_async_client(llm_server: LLMServer) -> None:
    messages = _conversation()
    budget = cf.count_tokens(messages, "gpt-4o") // 4
    summarizer = _summarizer(llm_server)
    result = asyncio.run(cf.acompact(messages, budget, "gpt-4o", summarizer=summarizer))
    assert result.report.summarizer == f"openai:{MODEL}"
    assert result.report.fits
