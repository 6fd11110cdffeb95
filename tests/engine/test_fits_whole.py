"""The shortcut for an input within its target (`_flow` rule 9) gives what the plan gives."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import Archive, Message, Policy, Text
from contextfold._engine import _flow, _prepare
from contextfold._engine._drive import run
from contextfold._engine._flow import Marks, Outcome, Settings, compact_flow
from contextfold._summarizers._ledger import LedgerSummarizer
from contextfold.testing import FixedCounter

from .conversations import conversation, shapes

COUNTER = FixedCounter()


def _compact(messages: list[Message], shape: str, budget: int, target: int) -> Outcome:
    settings = Settings(budget, target, shape, Policy(), COUNTER, "fixed", 3)
    flow = compact_flow(messages, settings, Marks(), Archive())
    return run(flow, LedgerSummarizer())


def _both(messages: list[Message], shape: str, budget: int, target: int) -> tuple[Outcome, Outcome]:
    short = _compact(messages, shape, budget, target)
    with patch.object(_flow, "fits_whole", lambda *_: False):
        planned = _compact(messages, shape, budget, target)
    return short, planned


@given(
    shape=shapes,
    data=st.data(),
    spread=st.integers(-40, 40),
    squeeze=st.floats(0.1, 0.6),
)
def test_the_shortcut_agrees_with_the_plan(
    shape: str, data: st.DataObject, spread: int, squeeze: float
) -> None:
    """Around the target (within it, at it, just over), for fresh conversations and for
    outputs carrying a card and summary (artifacts and a possible bridge), the result and
    report are the same with and without the shortcut."""
    messages = data.draw(conversation(shape))
    total = sum(map(COUNTER.count, messages)) + 3
    first = _compact(messages, shape, max(8, int(total * squeeze)), max(8, int(total * squeeze)))
    for current in (messages, list(first.messages)):
        size = sum(map(COUNTER.count, current)) + 3
        target = max(8, size + spread)
        for budget in (target, target + 50):
            short, planned = _both(current, shape, budget, target)
            assert short == planned


def test_the_shortcut_is_taken_when_everything_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    messages = [
        Message("user", (Text("Please keep answers short."),)),
        Message("assistant", (Text("Sure."),)),
    ]
    taken: list[bool] = []
    fits_whole = _prepare.fits_whole

    def spy(*args: object) -> bool:
        taken.append(fits_whole(*args))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(_flow, "fits_whole", spy)
    out = _compact(messages, "openai-chat", 1_000, 1_000)
    assert taken == [True]
    assert out.messages == tuple(messages)
    assert out.report.reason == "fits without compaction"
    assert not out.report.compacted
    over = _compact(messages, "openai-chat", 12, 12)  # over, and all of it protected
    assert taken[-1] is False
    assert over.report.reason.startswith("does not fit")
