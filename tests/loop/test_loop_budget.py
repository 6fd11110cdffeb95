"""An agent loop whose view keeps an earlier summary: the bridge it needs is budgeted.

Anthropic turns alternate, so a kept summary (a user turn) before the latest user turn
needs a bridge between them. The planner held room for that bridge when it folded or
dropped, but not when it kept the preamble as it was and only trimmed the newest tool
output: the view came out over the budget with `fits: false`, although the latest user
message alone fitted easily.
"""

from __future__ import annotations

import pytest

import contextfold as cf

IMAGE = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
}


def _user() -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": "the"}, IMAGE]}


def _call(call_id: str) -> dict[str, object]:
    use = {"type": "tool_use", "id": call_id, "name": "bash", "input": {"arg": "the"}}
    return {"role": "assistant", "content": [use]}


def _result(call_id: str, text: str) -> dict[str, object]:
    result = {"type": "tool_result", "tool_use_id": call_id, "content": text}
    return {"role": "user", "content": [result]}


ANSWER: dict[str, object] = {
    "role": "assistant",
    "content": [{"type": "text", "text": "Understood."}],
}


@pytest.mark.parametrize("budget", range(1900, 2000, 4))
def test_a_kept_summary_and_its_bridge_stay_within_the_budget(budget: int) -> None:
    manager = cf.ContextManager(budget, format="anthropic")
    turns: list[list[dict[str, object]]] = [
        [_user()],
        [_call("call_a"), _result("call_a", "the")],
        [ANSWER, _user()],  # the first compaction folds the first turn into a summary
        [_call("call_b"), _result("call_b", "the line\n" * 50)],  # over the high-water mark again
    ]
    for messages in turns:
        manager.extend(messages)
        view = manager.view()
        body = {"model": "claude-sonnet-4-5", "max_tokens": 1, "messages": view}
        assert cf.validate(body, format="anthropic") == []
        report = manager.last_report
        assert report is not None
        assert report.fits, report
        assert manager.tokens() <= budget
        assert cf.count_tokens(body, format="anthropic") <= budget
    assert report is not None
    assert view[-1] == turns[-1][-1] or report.pruned  # the newest output gave way, if any
