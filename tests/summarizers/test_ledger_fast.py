"""Each test the ledger writes for speed answers as its plain form does."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contextfold._summarizers import _ledger_bound, _ledger_text, _ledger_values

_NEEDS_QUOTES = re.compile(r', |: |; |^"|\)$|^\s|\s$|^$|\n')
_PIECES = st.sampled_from(("a", ", ", ": ", "; ", ",", ":", '"', ")", " ", "\n", "\t", "\u2003"))
values = st.lists(_PIECES | st.text(max_size=3), max_size=8).map("".join)


@given(values)
def test_quoting_is_the_pattern(value: str) -> None:
    assert _ledger_text._needs_quotes(value) == (_NEEDS_QUOTES.search(value) is not None)


_ROLES = st.sampled_from(("code", "number", "cabin", "flights[].cabin", "user_id", "date", "x"))


@given(_ROLES, st.booleans(), _ROLES, st.booleans(), st.sampled_from(("economy", "HAT1", "a b")))
def test_renaming_compares_the_role_ranks(
    role: str, named: bool, known_role: str, known_named: bool, value: str
) -> None:
    known = _ledger_values._Record(known_role, known_named, 5, 0, 5, "")
    for seq in (4, 5, 6):
        rank = _ledger_values._role_rank(role, named, value, seq)
        before = _ledger_values._role_rank(known_role, known_named, value, 5)
        assert _ledger_values._renames(known, role, named, value, seq) == (rank > before)


_TEXTS = st.lists(
    st.sampled_from(("1", "٣", "12", "-", ":", "/", ".", ",", "%", "$", "€", " ", "a", "GB", "x"))
    | st.text(max_size=2),
    max_size=6,
).map("".join)


@given(_TEXTS, st.sampled_from(("seen", "identifiers", "user", "goals")))
def test_weight_is_the_plain_weight(text: str, section: _ledger_text.Section) -> None:
    entry = _ledger_text.Entry(section, text, group="flights[].date")
    assert _ledger_bound.weight(entry) == _plain_weight(entry)


def _plain_weight(entry: _ledger_text.Entry) -> int:
    if entry.section not in _ledger_text.VALUES:
        return 1
    if entry.section == "user":
        return 0
    text = entry.text
    if _ledger_bound._TIME_OR_DATE.match(text) is not None:
        return 1
    if text[:1] in ("$", "€", "£"):
        return 2
    if _ledger_bound._NUMERIC.fullmatch(text) is not None:
        return 3
    setting = _ledger_text.is_setting(entry.group, text)
    return 2 if setting or not _ledger_bound._id_like(text) else 0
