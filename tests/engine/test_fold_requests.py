"""How a folded span reaches the summarizer: the embedded ledger in one request, any other
summarizer in chunks of `chunk_tokens` (default: the budget), counted."""

from __future__ import annotations

import json

import contextfold as cf
from contextfold import SummaryRequest
from contextfold._engine._counting import reads_whole_spans
from contextfold._summarizers._ledger import LedgerSummarizer
from contextfold.testing import FakeSummarizer, FixedCounter

BUDGET = 2_000
COUNTER = FixedCounter()


def history(exchanges: int = 60) -> list[dict[str, object]]:
    """A system prompt, then user requests answered through a tool call each."""
    out: list[dict[str, object]] = [{"role": "system", "content": "You help with orders."}]
    for i in range(exchanges):
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "lookup", "arguments": json.dumps({"order_id": f"ORD-{i:04d}"})},
        }
        out += [
            {"role": "user", "content": f"Please look up order ORD-{i:04d} for me."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "content": f"order ORD-{i:04d}: " + "x" * 300,
            },
            {"role": "assistant", "content": f"Order ORD-{i:04d} is on its way."},
        ]
    return out


def summary_text(request: SummaryRequest) -> str:
    return "## Earlier notes\n- folded"


def tokens(request: SummaryRequest) -> int:
    return sum(COUNTER.count(m) for m in request.messages)


def test_the_embedded_ledger_gets_one_request_per_fold() -> None:
    result = cf.compact(history(), BUDGET, counter=COUNTER)
    assert result.report.summarized > 0
    assert [s.messages for s in result.report.summaries] == [result.report.summarized]
    assert result.report.summarizer == "ledger"


def test_an_llm_summarizer_gets_chunks_of_the_budget() -> None:
    fake = FakeSummarizer(summary_text)
    result = cf.compact(history(), BUDGET, counter=COUNTER, summarizer=fake)
    assert len(fake.requests) > 1
    assert sum(len(r.messages) for r in fake.requests) == result.report.summarized
    assert all(tokens(r) <= BUDGET for r in fake.requests)
    assert fake.requests[1].previous == "## Earlier notes\n- folded"


def test_chunk_tokens_set_in_the_policy_applies_to_the_ledger_too() -> None:
    policy = cf.Policy(steps=cf.chain(cf.prune(), cf.mask(), cf.summarize(chunk_tokens=500)))
    result = cf.compact(history(), BUDGET, counter=COUNTER, policy=policy)
    assert len(result.report.summaries) > 1
    assert sum(s.messages for s in result.report.summaries) == result.report.summarized


def test_a_failing_llm_summarizer_falls_back_to_the_ledger_chunk_by_chunk() -> None:
    def fail(request: SummaryRequest) -> str:
        raise RuntimeError("the model is down")

    result = cf.compact(history(), BUDGET, counter=COUNTER, summarizer=FakeSummarizer(fail))
    assert len(result.report.summaries) > 1
    assert {s.summarizer for s in result.report.summaries} == {"ledger"}


def test_the_context_manager_folds_in_one_ledger_request() -> None:
    manager = cf.ContextManager(BUDGET, counter=COUNTER)
    manager.extend(history())
    manager.view()
    report = manager.last_report
    assert report is not None
    assert report.summarized > 0
    assert len(report.summaries) == 1


def test_only_the_embedded_ledger_reads_whole_spans() -> None:
    assert reads_whole_spans(LedgerSummarizer())
    assert not reads_whole_spans(FakeSummarizer(summary_text))
