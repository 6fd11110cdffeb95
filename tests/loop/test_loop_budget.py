"""An agent loop whose view keeps earlier compactions' artifacts: their bridges are budgeted.

Anthropic turns alternate, so a kept summary or card (a user turn) before a user turn
needs a bridge between them, and so does every place where an earlier compaction took a
run of turns out between two turns of one role. The planner held room for one bridge
when it folded or dropped, but none for the bridges a preamble kept as it was needs:
when it kept the preamble and only trimmed or masked, the view came out over the budget
(`fits: false`) although the latest user message alone fitted easily.
"""

from __future__ import annotations

import pytest

import contextfold as cf

IMAGE = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
}
Wire = dict[str, object]
MODEL = "claude-sonnet-4-5"
"""The budgets below are set around its image rule (an unreadable image costs 1,600)."""


def _user(text: str = "the") -> Wire:
    return {"role": "user", "content": [{"type": "text", "text": text}, IMAGE]}


def _said(role: str, text: str) -> Wire:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def _call(call_id: str) -> Wire:
    use = {"type": "tool_use", "id": call_id, "name": "bash", "input": {"arg": "the"}}
    return {"role": "assistant", "content": [use]}


def _result(call_id: str, content: object) -> Wire:
    result = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    return {"role": "user", "content": [result]}


def _run(manager: cf.ContextManager, turns: list[list[Wire]]) -> cf.Report:
    """Send a view after each turn; every view is valid and within the budget."""
    report = None
    for messages in turns:
        manager.extend(messages)
        view = manager.view()
        body: Wire = {"model": MODEL, "max_tokens": 1, "messages": view}
        if (system := manager.system_prompt()) is not None:
            body["system"] = system
        assert cf.validate(body, format="anthropic") == []
        report = manager.last_report
        assert report is not None
        assert report.fits, report
        assert manager.tokens() <= manager.budget
        assert cf.count_tokens(body, MODEL, format="anthropic") <= manager.budget
    assert report is not None
    return report


@pytest.mark.parametrize("budget", range(1900, 2000, 4))
def test_a_kept_summary_and_its_bridge_stay_within_the_budget(budget: int) -> None:
    turns = [
        [_user()],
        [_call("call_a"), _result("call_a", "the")],
        [_said("assistant", "Understood."), _user()],  # compacts: a summary, then a bridge
        [_call("call_b"), _result("call_b", "the line\n" * 50)],  # trims the newest output
    ]
    _run(cf.ContextManager(budget, MODEL, format="anthropic"), turns)


@pytest.mark.parametrize("budget", range(1860, 1960, 4))
def test_bridges_left_by_earlier_compactions_stay_within_the_budget(budget: int) -> None:
    output = [{"type": "text", "text": "the line\n" * 50}, IMAGE]
    turns = [
        [_user("the $500")],
        [_said("assistant", "the"), _said("user", "Go on.")],
        [_said("assistant", "the"), _said("user", "Go on.")],
        [_call("call_a"), _result("call_a", output)],
        [_call("call_b"), _result("call_b", output)],  # a card, a summary and two bridges
        [_said("assistant", "Understood."), _user()],  # keeps them, masks: over by a bridge
    ]
    policy = cf.Policy(low=1.0, high=1.0)
    manager = cf.ContextManager(
        budget, MODEL, format="anthropic", system="You are a careful agent. the", policy=policy
    )
    _run(manager, turns)


def _use(call_id: str) -> Wire:
    return {"type": "tool_use", "id": call_id, "name": "bash", "input": {"cmd": call_id}}


def _thinking(text: str, n: int) -> Wire:
    return {"type": "thinking", "thinking": text, "signature": f"sig{n}=="}


def test_an_earlier_card_gives_way_when_what_must_stay_fills_the_budget() -> None:
    """The card a first compaction made stays as it is while later turns only mask; when
    the latest user turn and the opening step of a thinking turn then fill the budget
    (the floor fits, the card and its bridge do not), the card gives way instead of
    pushing the view over (805 -> 832 tokens in the run that found it)."""
    turns: list[list[Wire]] = [
        [
            _said("user", "Never push to main."),
            {"role": "assistant", "content": [_thinking("Look first.", 1), _use("toolu_a")]},
            _result("toolu_a", "line of output\n" * 80),
        ],
        [_said("assistant", "Done."), _user("Use the Zürich region.")],
        [
            {"role": "assistant", "content": [_thinking("Now deploy. " * 20, 2), _use("toolu_c")]},
            _result("toolu_c", "deploy log line\n" * 40),
        ],
    ]
    gave_way = []
    for budget in range(1760, 1830, 3):
        manager = cf.ContextManager(budget, MODEL, format="anthropic")
        for messages in turns:
            manager.extend(messages)
            view = manager.view()
            body: Wire = {"model": MODEL, "max_tokens": 1, "messages": view}
            assert cf.validate(body, format="anthropic") == []
            report = manager.last_report
            if report is not None and report.protected_tokens > budget:
                continue  # what must stay is over the budget: nothing can fit
            assert cf.count_tokens(body, MODEL, format="anthropic") <= budget, report
        assert report is not None
        if "gave way" in report.reason:
            gave_way.append(budget)
            assert not any("[cf:rules]" in str(m["content"]) for m in view)
    assert gave_way, "no budget in the range puts the floor between the card and the budget"
