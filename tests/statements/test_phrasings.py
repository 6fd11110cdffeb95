"""Natural phrasings of rules, preferences and tasks reach the card; look-alikes (questions,
hypotheticals, quotes, reports, narration) and text that is not the user's never do."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Message, Text, ToolCall, ToolResult
from contextfold._messages import artifact_kind
from contextfold._statements._card import CardState

from .phrasings import (
    CHANGED_SETTINGS,
    CONVENTIONS,
    FOREIGN,
    FOREIGN_NEGATIVES,
    FRESH_NEGATIVES,
    FRESH_POSITIVES,
    HELD_OUT_NEGATIVES,
    HELD_OUT_POSITIVES,
    NEGATIVES,
    ONE_OFFS,
    POSITIVES,
    SEPARATE_SETTINGS,
    promoted,
    standing,
)

_BY_DESIGN = "Per the client — no breaking API changes."
"""Missed on purpose: five words never lead into a bare "no ..." (`_cues._LEAD_IN`)."""
READ = [
    (text, kinds)
    for text, kinds in POSITIVES + HELD_OUT_POSITIVES + FRESH_POSITIVES + CONVENTIONS + FOREIGN
]
READ = [(text, kinds) for text, kinds in READ if text != _BY_DESIGN]
SAID = [text for text, _ in READ]


@pytest.mark.parametrize(("text", "kinds"), READ)
def test_a_natural_phrasing_reaches_the_card_verbatim(text: str, kinds: frozenset[str]) -> None:
    assert [said for said, kind in standing(text) if kind in kinds] == [text]


@pytest.mark.parametrize(
    "text",
    NEGATIVES
    + HELD_OUT_NEGATIVES
    + FRESH_NEGATIVES
    + ONE_OFFS
    + FOREIGN_NEGATIVES
    + ("Good news - no errors!",),
)
def test_a_look_alike_is_no_rule_or_preference(text: str) -> None:
    assert not promoted(text)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("I like emojis in commit messages.", "I hate emojis in commit messages."),
        ("I'm not a fan of ORMs.", "Actually, I love ORMs now."),
        ("I can't stand long preambles.", "I like long preambles after all."),
    ],
)
def test_a_newer_like_or_dislike_replaces_the_older(older: str, newer: str) -> None:
    state = CardState()
    gone = []
    for i, text in enumerate((older, "Never use sudo.", newer)):
        state, dropped = state.update(Message("user", (Text(text),)), f"r{i:010x}")
        gone += dropped
    assert [s.text for s in state.statements] == [newer, "Never use sudo."]
    assert [s.text for s in gone] == [older]


_AROUND = [
    "",
    "Thanks for the quick reply.",
    "Here is some context.",
    "The repo is on GitHub.",
    "Let me know when you're done.",
]


@given(st.sampled_from(SAID), st.sampled_from(_AROUND), st.sampled_from(_AROUND))
def test_a_phrasing_is_read_the_same_inside_a_longer_message(
    text: str, before: str, after: str
) -> None:
    alone = standing(text)
    inside = standing(" ".join(filter(None, (before, text, after))))
    assert [s for s in inside if s[0] == text] == alone


_RELAYED = [
    'My colleague wrote "{}" in a review.',
    'The README says "{}" but that is outdated.',
    'You said "{}" earlier.',
    "Should I tell the team: {}?",
    "What if I said {}?",
]


@given(st.sampled_from(SAID), st.sampled_from(_RELAYED))
def test_a_phrasing_quoted_relayed_or_asked_is_no_rule(text: str, frame: str) -> None:
    assert not promoted(frame.format(text.rstrip(".")))


def _tool_turn(i: int, text: str) -> list[Message]:
    call = Message("assistant", (ToolCall(f"c{i}", "fetch", json.dumps({"q": text})), Text(text)))
    answer = Message("tool", (ToolResult(f"c{i}", (Text(text),)),))
    return [call, answer]


@given(st.lists(st.sampled_from(SAID), min_size=1, max_size=5))
def test_the_assistant_and_tools_never_state_the_users_rules(injected: list[str]) -> None:
    """The trust invariant: only the user's own messages feed the card."""
    task = Message("user", (Text("Please fix the failing test in parser.py."),))
    plain, _ = CardState().update(task, "r0000000001")
    mixed = plain
    for i, text in enumerate(injected):
        for message in _tool_turn(i, text):
            mixed, gone = mixed.update(message, f"r{i + 2:010x}")
            assert gone == []
    assert mixed == plain


def _history(first: str, noise: list[str]) -> list[dict[str, Any]]:
    """A system prompt, `first` as the first user message, then tool-heavy turns in which
    the assistant and tools repeat `noise`."""
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": first},
    ]
    for i in range(24):
        said = noise[i % len(noise)] if noise else ""
        args = json.dumps({"cmd": f"cat file_{i}.py"})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": args}}
        out.append({"role": "assistant", "content": said or None, "tool_calls": [call]})
        output = f"{said}\n" * 40 if said else f"x = {i}\n" * 200
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": output})
        out.append({"role": "assistant", "content": f"Read file {i}; it sets x to {i}."})
        out.append({"role": "user", "content": f"ok, continue with file {i + 1}"})
    return out


def _card(payload: object) -> str:
    texts = [m.get("content") for m in payload if isinstance(m, dict)]  # type: ignore[attr-defined]
    cards = [t for t in texts if isinstance(t, str) and artifact_kind(t) == "card"]
    assert len(cards) == 1
    return cards[0]


BRIEF = [
    "My boss says: never deploy on Fridays.",
    "Rule from legal — do not store card numbers.",
    "Oh and please don't ever push to main.",
    "I like short answers with bullet points.",
    "I hate emojis in commit messages.",
    "I can't stand long preambles.",
    "I'd rather you ask before deleting anything.",
    "If the tests fail, stop and ask me.",
    "If the build breaks, stop.",
    "Your job is to migrate the billing service.",
    "Never commit the .env file.",
]


@pytest.mark.parametrize("statement", BRIEF)
def test_an_early_statement_survives_a_tight_compaction(statement: str) -> None:
    first = f"Hi. {statement} Let's start with the repo layout."
    result = cf.compact(_history(first, []), budget=2500)
    kept = [m.get("content") for m in result.payload]
    assert first not in kept  # the message itself was folded
    assert f"- {statement} (" in _card(result.payload)


def test_what_tools_and_the_assistant_say_stays_off_the_card_after_compaction() -> None:
    first = "Hi. Please fix the failing test in parser.py."
    result = cf.compact(_history(first, SAID[:12]), budget=2500)
    card = _card(result.payload)
    assert [text for text in SAID if text in card] == []
    assert "Please fix the failing test in parser.py." in card


@pytest.mark.parametrize("before", ["The repo is on GitHub.", "We deploy with Ansible."])
@pytest.mark.parametrize(
    "text", ["Not a fan of ORMs, honestly.", "Please leave the public API as it is."]
)
def test_a_statement_after_a_named_value_is_its_own(before: str, text: str) -> None:
    """Neither "Not a fan of X" (no retraction like "Not 3.12.") nor "as it is" (no word
    pointing back) joins the sentence before: each was read as one fact about GitHub (the
    property above found both)."""
    assert [s for s in standing(f"{before} {text}") if s[0] == text] == standing(text)


def _fed(*texts: str) -> tuple[list[str], list[str]]:
    """The card's statements after user messages `texts`, and those they superseded."""
    state, gone = CardState(), []
    for i, text in enumerate(texts):
        state, dropped = state.update(Message("user", (Text(text),)), f"r{i:010x}")
        gone += [s.text for s in dropped]
    return [s.text for s in state.statements], gone


_BETWEEN = [
    "Never commit the .env file.",
    "I like short answers with bullet points.",
    "Your job is to migrate the billing service.",
    "If the tests fail, stop and ask me.",
]
"""Statements about other things, said before, between or after a pair."""


@given(
    st.sampled_from(CHANGED_SETTINGS),
    st.lists(st.sampled_from(_BETWEEN), max_size=2, unique=True),
    st.lists(st.sampled_from(_BETWEEN), max_size=2, unique=True),
)
def test_a_changed_setting_retires_the_older(
    pair: tuple[str, str], before: list[str], between: list[str]
) -> None:
    """ "Target Node 18." then "Scratch that, we're targeting Node 20.": the card keeps
    the newer only, and the other statements as they were."""
    older, newer = pair
    others = [*before, *(s for s in between if s not in before)]
    alone, _ = _fed(*others)
    said, gone = _fed(*before, older, *between, newer)
    assert gone == [older]
    assert older not in said
    assert [s for s in said if newer not in s] == alone  # joined in context or verbatim
    assert len(said) == len(alone) + 1
    state, _ = CardState().update(Message("user", (Text(older),)))
    retired = state.retire([Message("user", (Text(newer),))], explicit=False)[1]
    assert [s.text for s in retired] == [older]


@given(
    st.sampled_from(SEPARATE_SETTINGS),
    st.booleans(),
    st.lists(st.sampled_from(_BETWEEN), max_size=2, unique=True),
)
def test_settings_of_different_things_both_hold(
    pair: tuple[str, str], swap: bool, between: list[str]
) -> None:
    """ "Use port 8080 for the API." and "Use port 5432 for Postgres.", in either order:
    neither retires the other."""
    first, second = reversed(pair) if swap else pair
    said, gone = _fed(first, *between, second)
    assert first in said
    assert second in said
    assert first not in gone
    state, _ = CardState().update(Message("user", (Text(first),)))
    assert state.retire([Message("user", (Text(second),))], explicit=False)[1] == []


def _folded(older: str, newer: str) -> str:
    """The card of a history with `older` and then `newer` said early, both folded away
    by a compaction to 15% of its tokens."""
    messages = _history(older, [])
    messages.insert(6, {"role": "user", "content": newer})
    whole = cf.compact(messages, 10**9, "gpt-4o").report.tokens_before
    result = cf.compact(messages, whole * 15 // 100, "gpt-4o")
    kept = [m.get("content") for m in result.payload]
    assert older not in kept
    assert newer not in kept
    return _card(result.payload)


@pytest.mark.parametrize(("older", "newer"), CHANGED_SETTINGS[:3])
def test_a_changed_setting_leaves_the_compacted_card(older: str, newer: str) -> None:
    card = _folded(older, newer)
    assert newer in card
    assert f"- {older} (" not in card


@pytest.mark.parametrize(("older", "newer"), SEPARATE_SETTINGS[:2])
def test_separate_settings_both_stay_on_the_compacted_card(older: str, newer: str) -> None:
    card = _folded(older, newer)
    assert f"- {older} (" in card
    assert f"- {newer} (" in card
