"""Content-addressed caches: same content, same value; bounded; keys never hold large texts."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from contextfold._content_cache import SHORT, ContentCache, TextMemo, clear_caches, content_key


def test_same_content_computed_once() -> None:
    calls: list[str] = []

    def make(text: str) -> int:
        calls.append(text)
        return len(text)

    cache = ContentCache(make, size=4)
    long_text = "x" * (SHORT + 10)
    assert cache(long_text) == SHORT + 10
    assert cache("".join(["x"] * (SHORT + 10))) == SHORT + 10  # equal content, other object
    assert cache("ab") == 2
    assert calls == [long_text, "ab"]


def test_bounded_least_recently_used_first() -> None:
    cache = ContentCache(len, size=2)
    cache("a"), cache("bb"), cache("a"), cache("ccc")
    assert len(cache) == 2
    calls: list[str] = []

    def make(text: str) -> int:
        calls.append(text)
        return 0

    probe = ContentCache(make, size=2)
    probe("a"), probe("b"), probe("a"), probe("c"), probe("a"), probe("b")
    assert calls == ["a", "b", "c", "b"]


def test_long_texts_are_keyed_by_digest() -> None:
    text = "y" * 10_000
    key = content_key(text)
    assert key != text
    assert key == content_key("y" * 10_000)
    assert content_key("y" * 9_999 + "z") != key
    assert content_key("short") == "short"


def test_clear_caches_empties_every_cache() -> None:
    cache = ContentCache(len, size=8)
    cache("abc")
    clear_caches()
    assert len(cache) == 0


def test_clear_caches_forgets_counters_kept_per_model() -> None:
    import contextfold as cf

    first = cf.counter_for("gpt-4o")
    assert cf.counter_for("gpt-4o") is first
    cf.clear_caches()
    assert cf.counter_for("gpt-4o") is not first


def test_clear_caches_forgets_what_was_read_from_texts() -> None:
    import contextfold as cf
    from contextfold._statements._facts import NORMALIZED
    from contextfold._statements._kinds import KINDS

    def remembered() -> int:  # normalized texts and statement kinds
        return len(NORMALIZED) + len(KINDS)

    chat: list[dict[str, str]] = []
    for i in range(30):
        chat.append({"role": "user", "content": f"Never deploy service-{i} on Fridays. " * 5})
        chat.append({"role": "assistant", "content": f"Noted for service-{i}. " * 20})
    assert cf.compact(chat, 400).report.compacted
    assert remembered() > 0
    cf.clear_caches()
    assert remembered() == 0


def test_caches_do_not_keep_a_callers_counter_alive() -> None:
    """A counter (and its count cache) goes when the caller drops it and the result: the
    caches that outlive a call hold no reference to it (the ledger's keys hold it weakly)."""
    import gc
    import weakref

    import contextfold as cf

    history = [{"role": "system", "content": "Be brief."}]
    for i in range(30):
        history += [
            {"role": "user", "content": f"Step {i}: read the file notes_{i}.txt please."},
            {"role": "assistant", "content": f"Done with step {i}. " + "detail " * 60},
        ]
    counter = cf.TiktokenCounter()
    alive = weakref.ref(counter)
    result = cf.compact(history, 400, counter=counter)
    assert result.report.summarized > 0  # the ledger ran, so it cached what it wrote
    del counter, result
    gc.collect()
    assert alive() is None


def test_a_full_cache_keeps_the_most_recently_used() -> None:
    """Forgetting an eighth at once keeps the bound and the newest values (rule 2)."""
    for size in (8, 100):
        calls: list[str] = []
        cache = ContentCache(_recorder(calls), size)
        used: list[str] = []
        for i in range(1_000):
            used.append(f"t{i}")
            cache(used[-1])
            if i % 3 == 2:  # a hit on an older text moves it to the newest end
                used.append(used[-2])
                cache(used[-1])
            assert len(cache) <= size
        newest = list(dict.fromkeys(reversed(used)))[: size - size // 8]
        before = len(calls)
        for text in newest:
            cache(text)
        assert len(calls) == before  # every one of them was still there


def _recorder(calls: list[str]) -> Callable[[str], int]:
    def make(text: str) -> int:
        calls.append(text)
        return len(text)

    return make


@given(st.lists(st.text(alphabet="abc", max_size=40), max_size=300))
def test_a_text_memo_holds_both_bounds_and_answers_right(texts: list[str]) -> None:
    memo = TextMemo(len, size=16, chars=100)
    for text in texts:
        assert memo[text] == len(text)
        assert len(memo) <= 16
        assert sum(map(len, memo)) <= 100
        assert text in memo  # the text just counted stays (one text is at most 40 chars)


def test_a_text_memo_forgets_the_oldest_counted_first() -> None:
    calls: list[str] = []

    def make(text: str) -> int:
        calls.append(text)
        return len(text)

    memo = TextMemo(make, size=100, chars=80)
    for text in ("a" * 30, "b" * 30, "c" * 10):
        memo[text]
    memo["a" * 30]  # a hit: no call, and (first counted) still the oldest
    memo["d" * 30]  # 100 > 80: the oldest go until an eighth of the 80 is free (70 held)
    assert list(memo) == ["b" * 30, "c" * 10, "d" * 30]
    assert calls == ["a" * 30, "b" * 30, "c" * 10, "d" * 30]


def test_a_cleared_text_memo_holds_nothing() -> None:
    memo = TextMemo(len, size=100, chars=80)
    memo["a" * 70]
    memo.clear()
    memo["b" * 70]  # 70 held, not 140: nothing of the cleared texts is forgotten again
    assert list(memo) == ["b" * 70]


def test_a_counters_count_cache_is_bounded_in_characters() -> None:
    import contextfold as cf
    from contextfold._tokens import _accounting

    counter = cf.HeuristicCounter()
    memo = counter._acct.count_text.__self__  # type: ignore[attr-defined]
    assert isinstance(memo, TextMemo)
    assert memo.chars == _accounting.CACHE_CHARS
    memo.chars = 1_000  # the same bound, small enough to reach here
    for n in range(100):
        counter.count_text(f"text number {n} " * 5)
    assert sum(map(len, memo)) <= 1_000
    assert counter.count_text("text number 3 " * 5) == cf.HeuristicCounter().count_text(
        "text number 3 " * 5
    )
