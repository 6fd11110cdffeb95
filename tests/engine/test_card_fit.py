"""The dense card in a tight room: rules whole while they all fit, then the most statements.

`fit_card` chooses how many statements the dense card shows whole and how many only by
their values on its "(also: ...)" line (the block entry holds them whole).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Message, Text
from contextfold._engine._cards import fit_card
from contextfold._messages import Card
from contextfold._statements._card import CardState
from contextfold._statements._card_text import dense_text, hint, ordered, parse_card, render_card
from contextfold._statements._kinds import RULE_RANK

SAID = (
    "Never deploy the deploy-8a4d9 service without a dry run first.",
    "Every commit message has to mention ticket INFRA-2121, no exceptions.",
    "You must not delete anything under the folder delete-27c00.",
    "Please write comments in lang-1c74d, that's what the team reads.",
    "Retry at most 5177 times before giving up.",
    "We're aiming to retire target-b1006 completely this sprint.",
    "The monthly spend cap is $6,520, never exceed it without my approval.",
    "The staging database is at pg-stage-04.internal port 6432.",
    "The on-call engineer this week is Priya Raman.",
    "I prefer answers as short bullet lists.",
)
COUNTER = cf.HeuristicCounter()


def _state(texts: list[str]) -> CardState:
    state = CardState()
    for i, text in enumerate(texts):
        state, _ = state.update(Message("user", (Text(text),)), f"r{i:010x}")
    return state


def _cost(text: str) -> int:
    return COUNTER.count(Message("user", (Card(text),)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(SAID), min_size=1, max_size=10, unique=True), st.integers(0, 260))
def test_the_dense_card_fits_keeps_rules_whole_and_loses_nothing_it_used_to_show(
    texts: list[str], room: int
) -> None:
    state = _state(texts)
    card = fit_card(state, room, COUNTER, cf.Archive(), [], dense=True)
    if card is None:
        return
    assert _cost(card) <= room
    lines = card.splitlines()[1:]
    whole = [s for s in ordered(state.statements) if dense_text(s.text) in lines]
    also = lines[-1] if lines and lines[-1].startswith("(also: ") else ""
    hinted = [s for s in ordered(state.statements) if also and hint(s.text) in also]
    on_card = len({s.text for s in whole + hinted})
    rules = [s for s in ordered(state.statements) if s.rank == RULE_RANK]
    block = parse_card(card)[1] or ""
    prefix = max(
        (k for k in range(len(state.statements) + 1) if _cost(_dense(state, block, k)) <= room),
        default=0,
    )
    assert on_card >= prefix  # never fewer statements than whole lines alone would show
    if prefix >= len(rules):  # every rule fits whole: every rule is whole
        assert all(dense_text(s.text) in lines for s in rules)
    assert [s.text for s in parse_card(card)[0].statements] == [dense_text(s.text) for s in whole]


def _dense(state: CardState, block: str, shown: int) -> str:
    return render_card(state, block=block, shown=shown)


class _Probing:
    """COUNTER under another type: `_measure.packaged` does not know it, so `fit_card` probes."""

    def count(self, message: Message) -> int:
        return COUNTER.count(message)

    def count_floor(self, message: Message) -> int:
        return COUNTER.count_floor(message)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(SAID), max_size=10, unique=True),
    st.integers(-60, 40),
    st.booleans(),
)
def test_a_room_under_the_bare_header_gives_the_card_probing_gives(
    texts: list[str], room: int, pointer: bool
) -> None:
    state = _state(texts)
    found = [
        fit_card(
            state, room, counter, cf.Archive(), [], span="r0123456789", dense=True, pointer=pointer
        )
        for counter in (COUNTER, _Probing())
    ]
    assert found[0] == found[1]
