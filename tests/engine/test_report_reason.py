"""A report that does not fit names the floor it could not go under (`_flow` rule 10).

The plan's verdict counted every protected unit at its full size, the tail that yields
included, so a compaction that cut the tail to a few hundred tokens still said the
protected messages needed tens of thousands: a figure neither the output nor
`protected_tokens` showed, and no help in choosing a budget.
"""

from __future__ import annotations

import re

import contextfold as cf

BIG = "\n".join(f"line {i}: value={i * 7} path=/srv/app/{i}.py" for i in range(400))


def _agent(latest: str) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are an agent."}]
    for step in range(4):
        function = {"name": "cat", "arguments": "{}"}
        call = {"id": f"c{step}", "type": "function", "function": function}
        messages += [
            {"role": "user", "content": f"Read file {step}."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{step}", "content": BIG},
        ]
    messages.append({"role": "user", "content": latest})
    call = {"id": "c9", "type": "function", "function": {"name": "cat", "arguments": "{}"}}
    messages += [  # the turn in progress: protected as the tail, yet it yields
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c9", "content": BIG * 3},
    ]
    return messages


def test_a_report_that_does_not_fit_names_the_floor_it_reports() -> None:
    messages = _agent("Fix it. " + "Here is the whole context again. " * 120)
    result = cf.compact(messages, 400)
    report = result.report
    assert not report.fits
    assert report.protected_tokens > report.budget
    assert report.tokens_after <= report.protected_tokens + 40  # the best effort is the floor
    named = [int(n) for n in re.findall(r"\d+", report.reason)]
    assert report.protected_tokens in named, report.reason
    assert str(report.budget) in report.reason
    assert all(n <= report.tokens_before // 2 for n in named), report.reason


def test_a_report_that_fits_keeps_the_plans_verdict() -> None:
    report = cf.compact(_agent("Fix it."), 2_000).report
    assert report.fits
    assert report.reason.startswith(("compacted to the target", "compacted within the budget"))
