"""Updates that share no subject word with what they update (`_updates` rule 2, `_card`)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold._messages import Message, Text
from contextfold._statements._card import CardState

MONTHS = ("March", "May", "June", "October")


def _card(*said: str) -> list[str]:
    state = CardState()
    for text in said:
        state, _ = state.update(Message(role="user", parts=(Text(text=text),)))
    return [s.text for s in state.statements]


def _found(value: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


def _current(lines: list[str], old: str, new: str) -> None:
    """`new` is on the card and `old` shows only beside it."""
    assert any(_found(new, line) for line in lines), lines
    assert not any(_found(old, line) and not _found(new, line) for line in lines), lines


dates = st.tuples(st.sampled_from(MONTHS), st.integers(1, 28)).map(lambda p: f"{p[0]} {p[1]}")
money = st.integers(10, 9_999).map(lambda n: f"${n}")
percents = st.integers(1, 99).map(lambda n: f"{n}%")
versions = st.tuples(st.integers(1, 30), st.integers(0, 30), st.integers(0, 9)).map(
    lambda v: ".".join(map(str, v))
)
times = st.tuples(st.integers(1, 12), st.sampled_from(("00", "15", "30", "45"))).map(
    lambda t: f"{t[0]}:{t[1]}"
)
UNITS = ("words", "nights", "seconds", "guests")
counts = st.tuples(st.integers(2, 900), st.sampled_from(UNITS)).map(lambda c: f"{c[0]} {c[1]}")
OLD = {
    "date": "I'm flying out {v} from Denver.",
    "money": "Our budget for the offsite is {v}.",
    "percent": "Set the sampling rate to {v}.",
    "version": "Pin node to {v} in the Dockerfile.",
    "time": "Standup happens at {v} every day.",
    "count": "Keep it to {v} for the dinner.",
}
VALUES = {
    "date": dates,
    "money": money,
    "percent": percents,
    "version": versions,
    "time": times,
    "count": counts,
}
NEW = (
    "Actually, make it {v}.",
    "Change of plan: {v} then.",
    "Scratch that, {v}.",
    "Update: {v} from now on.",
)


@st.composite
def updates(draw: st.DrawFn) -> tuple[str, str, str, str]:
    kind = draw(st.sampled_from(sorted(OLD)))
    old = draw(VALUES[kind])
    new = draw(VALUES[kind].filter(lambda v: v != old))
    if kind == "count":  # the same unit, a new number
        new = f"{new.split()[0]} {old.split()[1]}"
        if new == old:
            new = f"{int(old.split()[0]) + 1} {old.split()[1]}"
    return OLD[kind].format(v=old), draw(st.sampled_from(NEW)).format(v=new), old, new


@given(updates())
def test_an_update_by_value_alone_replaces_the_newest_value_of_its_kind(
    case: tuple[str, str, str, str],
) -> None:
    older, newer, old, new = case
    before = "My user ID is kim_2291 and I work on the payments team."
    _current(_card(before, older, newer), old, new)


@given(dates, dates)
def test_a_moved_flight_replaces_the_date_it_shares_no_word_with(old: str, new: str) -> None:
    if old == new:
        return
    lines = _card(f"I'm flying out {old} from Denver.", f"I moved my flight to {new}.")
    _current(lines, old, new)


def test_a_bare_number_said_alone_replaces_the_newest_amount_not_an_index() -> None:
    lines = _card(
        "Our budget for the offsite is $500.",
        "Request 2: please check reservation B89BEF.",
        "Actually make it 650.",
    )
    _current(lines, "$500", "650")
    assert "Request 2: please check reservation B89BEF." in lines


def test_an_update_naming_another_budget_leaves_the_first_alone() -> None:
    older = "My budget for flights is at most $500."
    assert older in _card(older, "The budget for the hotel was raised to $800.")


def test_a_new_email_replaces_the_old_one() -> None:
    lines = _card(
        "My email is dana.k@oldmail.org for the invoices.",
        "My email changed to dana.k@newmail.io, please update it.",
    )
    _current(lines, "dana.k@oldmail.org", "dana.k@newmail.io")


def test_a_name_said_alone_replaces_the_name() -> None:
    _current(
        _card("Call me Bob, everyone does.", "Hmm, please use Robert instead."), "Bob", "Robert"
    )


def test_an_update_naming_part_of_a_name_replaces_it() -> None:
    lines = _card(
        "The client contact is Marta Ruiz.", "Marta left; the contact is now Priya Natarajan."
    )
    _current(lines, "Marta Ruiz", "Priya Natarajan")


def test_a_retraction_of_a_named_rule_lifts_it() -> None:
    lines = _card(
        "Ask for my approval before any purchase over $200.",
        "The approval rule no longer applies.",
    )
    assert not any("$200" in line for line in lines), lines


def test_an_update_sharing_one_word_but_no_value_kind_is_no_match() -> None:
    kept = "Neither of those flights work for me; I'm looking to fly after 11 AM EST."
    assert kept in _card(kept, "I moved my flight to May 14.")


def test_chit_chat_after_a_laugh_is_no_statement() -> None:
    lines = _card(
        "haha thanks, my cat just walked across the keyboard and typed 77777",
        "lol ok, it's been raining here for 9 days straight",
        "lol ok, never push to main.",
    )
    assert lines == ["lol ok, never push to main."]


def test_compact_shows_the_moved_date_and_not_the_old_one_alone() -> None:
    messages: list[dict[str, object]] = [{"role": "system", "content": "You book travel."}]
    messages += [
        {"role": "user", "content": "I'm flying out May 12 from Denver."},
        {"role": "assistant", "content": "Noted, May 12. " + "Details follow. " * 60},
        {"role": "user", "content": "haha thanks, my cat just typed 77777 on my keyboard"},
        {"role": "assistant", "content": "Ha! " + "More details here. " * 60},
        {"role": "user", "content": "I moved my flight to May 14."},
        {"role": "assistant", "content": "Got it. " + "Rebooking notes. " * 60},
    ]
    for turn in range(6):
        messages += [
            {"role": "user", "content": f"Check fare class {turn} please."},
            {"role": "assistant", "content": f"Fare class {turn}: " + "fare text " * 80},
        ]
    messages.append({"role": "user", "content": "Thanks, carry on."})
    result = cf.compact(messages, 600, model="gpt-4o")
    payload = result.payload
    assert isinstance(payload, list)
    texts = [str(m["content"]) for m in payload]
    artifacts = [line for t in texts if t.startswith("[cf:") for line in t.splitlines()]
    assert _found("May 14", "\n".join(texts)), texts
    assert not any(_found("May 12", line) and not _found("May 14", line) for line in artifacts)
    cards = [line for t in texts if t.startswith("[cf:rules]") for line in t.splitlines()]
    assert not any("77777" in line for line in cards)
