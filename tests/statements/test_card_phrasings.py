"""Standing statements users phrase without a rule's cue words, and updates they phrase
without naming what they update: the card reads them, keeps them current, and still
leaves chat, predictions and one-off confirmations off."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import Message, Text
from contextfold._statements._card import CardState
from contextfold._statements._kinds import is_update
from contextfold._statements._shapes import _TOP_FOLDERS
from contextfold._statements._statement import extract_statements, kind_of
from contextfold._statements._values import values


def card(*texts: str) -> list[str]:
    """The card's statements after user messages `texts`, in card order."""
    state = CardState()
    for text in texts:
        state, _ = state.update(Message("user", (Text(text),)))
    return [s.text for s in state.statements]


def stated(text: str) -> list[str]:
    return [s.text for s in extract_statements(Message("user", (Text(text),)))]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a convention said of a generic subject
        ("Commit messages should be in the imperative mood.", "obligation"),
        ("Variable names should be descriptive.", "obligation"),
        ("Every function should have a docstring.", "obligation"),
        ("Logs should never contain PII.", "prohibition"),
        # a standing fact with no value in it
        ("The main branch is protected.", "fact"),
        ("Our team owns the payments service.", "fact"),
        ("We use tabs, not spaces.", "fact"),
        ("I'm a premium member.", "fact"),
        ("I'm allergic to peanuts.", "fact"),
        # a short relative path is a value
        ("Put the tests in tests/unit.", "fact"),
        ("Use feature branches named feat/TICKET-id.", "fact"),
        # the task, when what it is about comes before "to"
        ("I need the refund to go to my original card, not store credit.", "goal"),
        # a bare limit, and a permission that lifts a duty
        ("No more than 3 retries.", "limit"),
        ("You no longer need to run the full test suite.", "permission"),
        # an answer that opens with "no" or "ok" but states a value
        ("No, let's do option 2.", "goal"),
        ("Yes, 2 bags.", "fact"),
    ],
)
def test_statements_without_a_rule_cue_are_read(text: str, kind: str) -> None:
    assert kind_of(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "The tests should pass now.",
        "That should be fine.",
        "Things should be better now.",
        "It should work.",
        "My details should be in my profile.",
        "I'm a bit confused.",
        "We use it all the time.",
        "The output is weird.",
        "I'm so tired today.",
        "Sorry, my bad.",
        "Wait, what?",
        "No wait, that's wrong.",
        "Actually, I have another question.",
        "Actually, good point.",
        "No, thanks.",
        "Hmm, interesting.",
        "Yes, please proceed with that booking.",
        "Go with client/server or read/write, whichever.",
    ],
)
def test_chat_predictions_and_confirmations_state_nothing(text: str) -> None:
    assert stated(text) == []


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Let's go with option 1.", "Let's go with option 2."),
        ("Let's go with option 1.", "No, let's do option 2."),
        ("Let's go with option 1.", "Actually, go with option 2."),
        ("I prefer a window seat.", "Scratch that, aisle seat please."),
        ("Let's use the blue theme.", "No wait, the green theme."),
        ("Use npm for installs.", "Use pnpm instead of npm."),
        (
            "Run the full test suite after every change.",
            "You no longer need to run the full test suite; the smoke tests are enough.",
        ),
        ("Always run the full test suite.", "You don't need to run the full test suite anymore."),
        ("No more than 3 retries.", "Let's allow 5 retries."),
    ],
)
def test_a_newer_statement_replaces_what_it_updates(older: str, newer: str) -> None:
    assert card(older, newer) == [newer]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Review PR 123.", "Review PR 124 as well."),
        ("Test 5 fails.", "Test 6 fails too."),
        ("Let's go with option 1.", "Let's go with option 2 and option 3."),
        ("I prefer a window seat.", "Scratch that, plan B."),
        ("Always write tests.", "You don't have to write docs."),
    ],
)
def test_statements_about_other_things_both_hold(first: str, second: str) -> None:
    said = card(first, second)
    assert first in said
    assert said[-1] == second or second not in said  # a permission with nothing to relax


@pytest.mark.parametrize(
    "said",
    ["Hmm, on second thought, plan B.", "No wait, the green theme.", "Scratch that, aisle seat."],
)
def test_a_correction_that_only_names_a_choice_stands_alone(said: str) -> None:
    assert card(said) == [said]


_CHOICES = st.sampled_from(["option", "room", "seat", "item"])
_VERBS = st.sampled_from(["Let's go with", "We'll go with", "I'll take", "Let's pick"])


@given(_CHOICES, _VERBS, st.integers(1, 99), st.integers(1, 99))
def test_picking_another_one_of_many_replaces_the_pick(
    noun: str, verb: str, first: int, second: int
) -> None:
    """Choosing another one by the same noun is a new choice; adding one keeps both."""
    older, newer = f"{verb} {noun} {first}.", f"{verb} {noun} {second}."
    if first == second:
        assert card(older, newer) == [older]
        return
    assert card(older, newer) == [newer]
    added = f"{verb} {noun} {second} as well."
    assert card(older, added) == [older, added]


_LEADS = st.sampled_from(
    ["Actually,", "Scratch that,", "On second thought,", "Wait,", "Correction:", "Change of plan:"]
)
_SOUNDS = st.lists(st.sampled_from(["Hmm,", "Oh,", "Ok", "Well,", "No", "So,", "Um,"]), max_size=1)
_RULES = st.sampled_from(
    [
        ("Use Python 3.11 for new scripts.", "use Python 3.12 for new scripts."),
        ("The deadline is April 30.", "the deadline is May 3."),
        ("Deploy on Fridays.", "never deploy on Fridays."),
    ]
)


@given(_SOUNDS, _LEADS, _RULES)
def test_a_sound_before_an_update_lead_changes_nothing(
    sounds: list[str], lead: str, rule: tuple[str, str]
) -> None:
    """An update reads the same with "Hmm," or "No" before its lead-in: it is an update,
    and it replaces what the bare one replaces."""
    older, said = rule
    bare = f"{lead} {said}"
    opened = " ".join([*sounds, bare])
    assert is_update(bare)
    assert is_update(opened)
    assert card(older, bare) == [bare]
    assert card(older, opened) == [opened]


_SEGMENT = st.from_regex(r"[a-z][a-z_-]{1,10}[a-z]", fullmatch=True)


@given(st.sampled_from(sorted(_TOP_FOLDERS)), _SEGMENT, _SEGMENT)
def test_a_one_slash_path_is_a_value_only_under_a_known_folder(
    top: str, leaf: str, other: str
) -> None:
    assert f"{top}/{leaf}" in values(f"Put it in {top}/{leaf}.")
    if other not in _TOP_FOLDERS:
        assert not values(f"Put it in {other}/{leaf}.")
