"""The bound's shortcuts answer as the rules they stand for."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold._summarizers._ledger_bound import _ID_LIKE, _id_like

_CHARS = st.sampled_from(list("aZ09_/@. -\n\u0663é"))


@given(st.lists(_CHARS, max_size=40).map("".join))
def test_id_like_is_the_id_pattern(text: str) -> None:
    assert _id_like(text) == (_ID_LIKE.search(text) is not None)
