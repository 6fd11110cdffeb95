"""Agent loops driven through ContextManager, generated in all three wire formats.

Each loop is an agent-shaped conversation (parallel tool calls, huge results, images,
Anthropic thinking with signatures, Responses reasoning items) fed to the manager as
wire messages, with a view sent at every request point (after a user turn, after the
results of a step), some messages pinned, a snapshot restored midway, provider usage
observed, under several policies. Every view:
- is accepted by the format's validator, with every call next to its result (I1);
- keeps the history's order, nothing twice (I2);
- keeps the latest user message and every pin verbatim (I4);
- is within the budget whenever it says it fits, and says it does not fit only when the
  system prompt and the latest user message alone nearly fill the budget (I3);
- starts with the previous view, byte for byte, unless this view compacted (I7), and
  compacts only past the water marks (rarely: Policy rule 2);
- is the same as that of a twin manager that was never snapshotted (restore continues
  exactly).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Conversation, Message, Text, ToolResult
from contextfold._engine._shape import prefill, turn_opening

from ..engine.checks import pairing_problems
from ..engine.conversations import conversation, shapes

POLICIES = (
    cf.Policy(),
    cf.Policy(low=1.0, high=1.0),
    cf.Policy(keep_last=3),
    cf.Policy(steps=cf.chain(cf.mask(), cf.drop())),
)


@dataclass(frozen=True)
class Loop:
    format: str
    system: str | None
    """Anthropic's system prompt (given to the manager); other formats carry it inline."""
    messages: list[Message]
    budget: int
    pins: frozenset[int]
    restore_at: int | None
    usage: float | None
    """Provider-reported prompt tokens as a multiple of the estimate, observed each turn."""
    policy: cf.Policy


def _wire(messages: list[Message], fmt: str) -> list[Any]:
    rendered = cf.render(Conversation(tuple(messages), shape="list"), fmt)
    assert isinstance(rendered, list)
    return rendered


@st.composite
def loops(draw: st.DrawFn) -> Loop:
    fmt = draw(shapes)
    messages = draw(conversation(fmt))
    system = None
    if fmt == "anthropic" and messages and messages[0].role == "system":
        first = messages.pop(0).parts[0]
        assert isinstance(first, Text)
        system = first.text
    total = cf.count_tokens(_wire(messages, fmt), format=fmt)
    return Loop(
        fmt,
        system,
        messages,
        draw(st.integers(max(40, total // 10), max(41, total))),
        frozenset(draw(st.sets(st.integers(0, 40), max_size=2))),
        draw(st.none() | st.integers(0, 40)),
        draw(st.none() | st.floats(0.5, 1.6)),
        draw(st.sampled_from(POLICIES)),
    )


def _request_point(messages: list[Message], i: int) -> bool:
    """After a user turn or a step's results: where an agent sends a request."""
    after = messages[i + 1].role if i + 1 < len(messages) else None
    return after is None or (after == "assistant" and messages[i].role != "assistant")


def _body(manager: cf.ContextManager, view: list[Any], fmt: str) -> object:
    if fmt == "openai-chat":
        return view
    if fmt == "openai-responses":
        return {"model": "gpt-5", "input": view}
    body: dict[str, object] = {"model": "claude-sonnet-4-5", "max_tokens": 1, "messages": view}
    if (system := manager.system_prompt()) is not None:
        body["system"] = system
    return body


def _is_user_turn(message: Message) -> bool:
    return message.role == "user" and not any(isinstance(p, ToolResult) for p in message.parts)


def _floor(loop: Loop, sent: list[Message], counter: cf.TokenCounter) -> int:
    """Tokens of the system prompt and the latest user message alone; for Anthropic, with
    the opening step of a thinking tool loop in progress (its message and its results),
    which the API needs kept (`_engine/_shape` rule 5), and a prefill (rule 6)."""
    floor = [m for m in sent if m.role == "system"]
    if loop.system is not None:
        floor = [Message("system", (Text(loop.system),))]
    floor += [m for m in sent if _is_user_turn(m)][-1:]
    opening = turn_opening(sent) if loop.format == "anthropic" else None
    if opening is not None:
        floor += sent[opening : opening + 2]
    if loop.format == "anthropic" and prefill(sent) and sent[-1] not in floor:
        floor.append(sent[-1])  # the request's own last message (`_shape` rule 6)
    return cf.count_conversation(Conversation(tuple(floor)), counter)


class _Checks:
    """What one loop has seen so far."""

    def __init__(self, loop: Loop) -> None:
        self.loop = loop
        self.previous: str | None = None
        self.last: cf.Report | None = None

    def view(self, manager: cf.ContextManager, sent: list[Message], wire: list[Any]) -> list[Any]:
        loop = self.loop
        before = manager.tokens()
        view = manager.view()
        body = _body(manager, view, loop.format)
        report = manager.last_report
        assert cf.validate(body, format=loop.format) == [], report
        assert pairing_problems(manager.messages(), loop.format) == []
        origins = [e.seq for e in manager._view.items if e.seq is not None]
        assert origins == sorted(set(origins))  # I2: input order, nothing twice
        text = json.dumps(view)
        if report is not None and report is not self.last and report.compacted:
            marks = manager.policy
            assert before > min(marks.prune_at, marks.high) * loop.budget
        elif self.previous is not None:
            assert text[:-1].startswith(self.previous[:-1]) or text == self.previous
        self.previous, self.last = text, report
        for index in loop.pins:
            if index < len(wire):
                assert wire[index] in view
        fits = report is None or report.fits
        if fits:
            users = [w for w, m in zip(wire, sent, strict=False) if _is_user_turn(m)]
            assert not users or users[-1] in view
            assert manager.tokens() <= loop.budget
            if loop.usage is None:
                assert cf.count_tokens(body, format=loop.format) <= loop.budget
        elif not loop.pins and loop.usage is None:
            assert _floor(loop, sent, manager.counter) > 0.9 * loop.budget, report
        return view


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(loops())
def test_agent_loops_stay_valid_ordered_within_budget_and_stable(loop: Loop) -> None:
    def manager() -> cf.ContextManager:
        return cf.ContextManager(
            loop.budget, format=loop.format, system=loop.system, policy=loop.policy
        )

    restored, twin = manager(), manager()
    wire = _wire(loop.messages, loop.format)
    checks = _Checks(loop)
    for i, item in enumerate(wire):
        restored.add(item, pin=i in loop.pins)
        twin.add(item, pin=i in loop.pins)
        if loop.restore_at == i:
            snapshot = json.loads(json.dumps(restored.snapshot()))
            restored = cf.ContextManager.restore(snapshot)
        if not _request_point(loop.messages, i):
            continue
        view = checks.view(restored, loop.messages[: i + 1], wire[: i + 1])
        assert twin.view() == view
        if loop.usage is not None:  # the provider bills its own count of what was sent
            billed = cf.count_tokens(_body(restored, view, loop.format), format=loop.format)
            for m in (restored, twin):
                m.observe_usage(max(1, int(billed * loop.usage)))
