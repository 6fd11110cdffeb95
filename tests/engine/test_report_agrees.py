"""A report's reason agrees with its count (`_report` rule 5).

The plan's verdict is an estimate made before the card, summary and bridges were placed
and the output counted. A write-file call whose arguments alone were over the budget
made the plan say "does not fit: protected messages need 8569 tokens" while the output,
with that exchange folded, was 27 tokens and `fits` was true: the report contradicted
itself, and named a figure neither the output nor `protected_tokens` showed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import contextfold as cf

from ..adapters.any_strategies import payloads as any_payloads

CODE = "def f(x):\n    return x * 2  # comment here\n" * 400


def _write_file() -> dict[str, Any]:
    """A turn in progress whose one tool call carries a whole file."""
    arguments = json.dumps({"path": "a.py", "content": CODE})
    function = {"name": "write", "arguments": arguments}
    call = {"id": "call_1", "type": "function", "function": function}
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Write the file."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]
    return {"model": "gpt-4o", "messages": messages}


def _agrees(report: cf.Report) -> None:
    assert report.fits == (report.tokens_after <= report.budget)
    assert report.reason.startswith("does not fit") == (not report.fits), report
    named = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", report.reason)]
    shown = max(report.budget, report.tokens_after, report.protected_tokens)
    assert all(n <= shown for n in named), report.reason  # no figure the report does not show


def test_a_folded_call_over_the_budget_leaves_a_report_that_fits_and_says_so() -> None:
    payload = cf.convert(_write_file(), "anthropic")
    for budget in (30, 37, 50):
        result = cf.compact(payload, budget=budget, model="gpt-4o", format="anthropic")
        assert result.report.tokens_after == 27
        assert result.report.fits
        _agrees(result.report)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(payload=any_payloads, share=st.floats(0.01, 0.9))
def test_every_reason_agrees_with_the_count(payload: Any, share: float) -> None:
    assume(cf.validate(payload) == [])
    total = cf.count_tokens(payload, "gpt-4o")
    result = cf.compact(payload, budget=max(1, int(total * share)), model="gpt-4o")
    assert result.report.tokens_after == cf.count_tokens(
        result.payload, "gpt-4o", format=result.report.format
    )
    _agrees(result.report)


def test_a_verdict_naming_the_planned_preamble_gives_way_to_the_count() -> None:
    """Found by the property above: the plan named "the preamble 41" (a summary-shaped
    opening message, as estimated) where the output was 27 tokens in all."""
    use = {"type": "tool_use", "id": "toolu_0000", "name": "_", "input": {}}
    payload = [
        {"role": "user", "content": "[cf:summary] earlier: the user asked for a refund"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0000"}]},
    ]
    result = cf.compact(payload, budget=8, model="gpt-4o")
    assert not result.report.fits
    _agrees(result.report)
