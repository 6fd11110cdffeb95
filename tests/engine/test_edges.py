"""Edge paths of the engine: caps, options and the manager's pin API."""

from __future__ import annotations

import pytest

import contextfold as cf
from contextfold import ContextManager, Message, Text
from contextfold._engine._preamble import summary_body
from contextfold.testing import FakeSummarizer


def _payload(n: int = 20) -> list[object]:
    out: list[object] = [{"role": "user", "content": "Plan the release."}]
    for i in range(n):
        out.append({"role": "assistant", "content": f"Step {i}: " + "details " * 60})
        out.append({"role": "user", "content": f"Next ({i})."})
    return out


def test_a_summarizer_that_talks_too_much_is_capped_to_its_reserve() -> None:
    chatty = FakeSummarizer(lambda req: "\n".join(f"- fact {i} " + "x" * 40 for i in range(400)))
    steps = cf.chain(cf.summarize(reserve=64), cf.drop())
    result = cf.compact(_payload(), 700, summarizer=chatty, policy=cf.Policy(steps=steps))
    summary = next(m for m in result.conversation.messages if "[cf:summary]" in str(m.parts))
    counter = cf.counter_for(None, "openai-chat")
    intro = counter.count(Message("user", (Text(summary_body("") or ""),)))
    assert counter.count(summary) <= intro + 64 + 60
    assert result.report.fits


def test_repair_can_be_turned_off() -> None:
    payload = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "x", "content": "?"},
    ]
    with pytest.raises(cf.InvalidConversation) as caught:  # never returned as it was
        cf.compact(payload, 1000, repair=False)
    assert (caught.value.index, caught.value.field) == (1, "tool_call_id")
    fine = payload[:1]
    result = cf.compact(fine, 1000, repair=False)
    assert result.payload is fine
    assert result.report.repaired == ()


def test_summary_body_reads_foreign_summaries() -> None:
    assert summary_body(None) is None
    assert summary_body("[cf:summary]   written elsewhere") == "written elsewhere"


def test_manager_pins_by_sequence_number() -> None:
    manager = ContextManager(2000)
    with pytest.raises(cf.ConfigurationError):
        manager.pin_last()
    first = manager.add({"role": "user", "content": "Keep this one."}, pin=True)
    second = manager.add({"role": "assistant", "content": "ok"})
    manager.pin_at(second)
    manager.unpin(second)
    with pytest.raises(cf.ConfigurationError):
        manager.pin_at(99)
    manager.extend(_payload(30)[1:])
    view = manager.view()
    assert {"role": "user", "content": "Keep this one."} in view
    assert first == 0
    assert manager.system_prompt() is None  # only Anthropic lifts the system prompt


class _MessageOnly:
    """The minimal TokenCounter: whole messages only, no bare text."""

    def count(self, message: Message) -> int:
        return 4 + sum(len(str(part)) for part in message.parts) // 4


@pytest.mark.parametrize(
    "counter", [_MessageOnly(), cf.CalibratedCounter(_MessageOnly())], ids=["plain", "calibrated"]
)
def test_a_counter_without_bare_text_still_gets_a_bounded_summary(counter: object) -> None:
    result = cf.compact(_payload(), 700, counter=counter)  # type: ignore[arg-type]
    messages = result.conversation.messages
    assert any("[cf:summary]" in str(m.parts) for m in messages)
    assert result.report.fits
    assert result.report.tokens_after <= 700
