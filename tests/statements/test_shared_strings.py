"""Statement caches share what they hold: interned words, the gates' strings, one empty set."""

from __future__ import annotations

from contextfold._content_cache import WordMemo
from contextfold._statements import _cues, _kinds, _values


def _fresh(word: str) -> str:
    """An equal copy of `word` that is not the object the caller holds."""
    return "".join(list(word))


def test_word_memo_keeps_one_string_per_word() -> None:
    seen: list[str] = []

    def make(word: str) -> tuple[str, ...]:
        seen.append(word)
        return (word,)

    first, second = WordMemo(make, 8), WordMemo(len, 8)
    word = _fresh("reservationx")
    value = first[word]
    assert value == (word,)
    assert second[_fresh(word)] == len(word)
    held = [next(iter(first)), next(iter(second)), seen[0], value[0]]
    assert all(s is held[0] for s in held)  # keys and value: one object


def test_word_memo_is_bounded() -> None:
    memo = WordMemo(len, 2)
    for word in ("alpha", "beta", "gamma"):
        memo[_fresh(word)]
    assert len(memo) <= 2
    assert memo[_fresh("gamma")] == len("gamma")


def test_words_of_holds_the_gates_strings() -> None:
    folded = _fresh("we decided to go with it, never mind")
    found = _cues.words_of(folded)
    assert found
    for word in found:
        assert word in _cues._GATED
        assert _cues._GATED[word] is word


def test_cues_needing_is_read_by_the_shared_set() -> None:
    first = _cues.candidates(_fresh("you must never deploy on friday"))
    assert first
    assert _cues.candidates(_fresh("you must never deploy on friday")) is first
    same_cues = _cues.candidates(_fresh("you must never deploy on friday, please"))
    assert same_cues == first
    assert same_cues is first  # another set of words, the same cues: one tuple


def test_no_values_is_one_shared_set() -> None:
    assert _values.values(_fresh("ok sounds good")) is _values.values(_fresh("hello there"))
    plain = _kinds.replaced_values(_fresh("Use the staging cluster for tests."))
    assert plain == frozenset()
    assert plain is _kinds.replaced_values(_fresh("Keep answers short."))
    assert _kinds.replaced_values(_fresh("Use 3.13, not 3.12.")) == {"3.12"}
