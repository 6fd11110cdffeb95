"""Content keys and the archive's reference cache: equal keys, equal canonical text; a
cached reference is the reference; the cache is bounded and cleared with the others."""

from __future__ import annotations

from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._archive import Archivable, Archive, ref_of
from contextfold._archive_keys import KeyedCache, Seen, key_of
from contextfold._content_cache import clear_caches
from contextfold._messages import EMPTY, Message, Opaque, Text, ToolCall, ToolResult
from contextfold._serialize_json import dump_json


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def _text(extras: object) -> Text:
    return Text("same", extras=extras)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"x": True}, {"x": 1}),
        ({"x": 1}, {"x": 1.0}),
        ({"x": 0.0}, {"x": -0.0}),
        ({"x": False}, {"x": 0}),
        ({"x": [1]}, {"x": {"1": 1}}),
        ({"x": ["a", "b"]}, {"x": ["a", ["b"]]}),
        ({"x": None}, {"x": "None"}),
    ],
)
def test_values_python_calls_equal_get_other_keys(a: object, b: object) -> None:
    assert dump_json(_text(a)) != dump_json(_text(b))
    assert key_of(_text(a)) != key_of(_text(b))


def test_booleans_of_a_result_are_not_ints() -> None:
    one = ToolResult("c", (Text("t"),), is_error=1)  # type: ignore[arg-type]
    true = ToolResult("c", (Text("t"),), is_error=True)
    assert key_of(one) != key_of(true)


def test_equal_content_equal_key_whatever_the_objects() -> None:
    def make() -> Message:
        extras = {"keys": ["role", "content"], "inner": {"n": 2, "f": 1.5}}
        return Message("user", (Text("".join(["hel", "lo"]), extras=dict(extras)),))

    assert key_of(make()) == key_of(make())
    assert hash(key_of(make())) == hash(key_of(make()))
    assert key_of("text") == "text"
    assert key_of(Text("text")) != key_of("text")


@pytest.mark.parametrize(
    "item",
    [
        Text("x", extras={"when": object()}),
        Text("x", extras={1: "int key"}),  # type: ignore[dict-item]
        Message("user", [Text("x")]),  # type: ignore[arg-type]
        Message("user", (Text("x"),), extras={"part": Text("y")}),
        Opaque({"deep": _nested(40)}),
    ],
)
def test_what_cannot_be_keyed_has_no_key(item: object) -> None:
    assert key_of(item) is None


def test_read_only_mappings_are_keyed() -> None:
    proxy = Opaque(MappingProxyType({"type": "document", "n": [1, 2]}))
    assert key_of(proxy) == key_of(Opaque(MappingProxyType({"type": "document", "n": [1, 2]})))
    assert key_of(Text("x", extras=EMPTY)) is not None


def _call(args: list[object]) -> Message:
    extras = {"args": args}
    return Message("assistant", (ToolCall("c1", "f", "{}", extras=extras),))


def test_cached_references_are_the_references() -> None:
    clear_caches()
    items: list[Archivable] = [_call([1, "x"]), Message("user", (Text("hi " * 300),)), "text"]
    first = [Archive().put(item) for item in items]
    for _ in range(3):  # seen, keyed, hit
        archive = Archive()
        assert [archive.put(item) for item in items] == first == [ref_of(i) for i in items]
        assert [archive.get(ref) for ref in first] == items


def test_a_caller_mutating_its_data_gets_the_new_content_archived() -> None:
    clear_caches()
    args: list[object] = [1, "x" * 600]
    for _ in range(3):
        Archive().put(_call(args))
    args.append(True)
    archive = Archive()
    ref = archive.put(_call(args))
    assert ref == ref_of(_call([1, "x" * 600, True]))
    assert archive.get(ref) == _call([1, "x" * 600, True])


def test_a_cached_item_keeps_its_first_label() -> None:
    clear_caches()
    for _ in range(3):
        archive = Archive()
        ref = archive.put("note", label="first")
        assert archive.put("note", label="second") == ref
        assert archive.entry(ref).label == "first"


def test_keyed_cache_is_bounded_and_cleared() -> None:
    cache: KeyedCache[int] = KeyedCache(8)
    for n in range(20):
        cache.add(("k", n), n)
    assert len(cache) <= 8
    assert cache.get(("k", 19)) == 19
    assert cache.get(("k", 0)) is None
    clear_caches()
    assert len(cache) == 0


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 400)), max_size=200))
def test_keyed_cache_holds_its_bounds_and_the_newest_value(adds: list[tuple[int, int]]) -> None:
    cache: KeyedCache[int] = KeyedCache(16, limit=1_000)
    for key, weight in adds:
        cache.add(key, weight, weight)
        assert len(cache) <= 16
        assert cache.weight() <= 1_000
        assert cache.weight() == sum(cache.get(k) or 0 for k in range(31))
        assert cache.get(key) == weight  # the newest value always stays (it weighs <= limit)


def test_keyed_cache_forgets_the_least_recently_used_weight_first() -> None:
    cache: KeyedCache[str] = KeyedCache(100, limit=100)
    for n in range(3):
        cache.add(n, f"v{n}", 30)
    assert cache.get(0) == "v0"  # 0 is now the most recently used
    cache.add(3, "v3", 30)  # 120 > 100: the oldest go until at most 87
    assert cache.weight() == 60
    assert cache.get(1) is None
    assert cache.get(2) is None
    assert cache.get(0) == "v0"
    assert cache.get(3) == "v3"


def test_the_archive_cache_is_bounded_in_characters() -> None:
    from contextfold import _archive

    clear_caches()
    big = "x" * (_archive.KNOWN_CHARS // 4)
    for n in range(12):  # each seen, then keyed: the cache may hold only four of these
        item = Text(big + str(n))
        for _ in range(2):
            Archive().put(item)
        assert _archive._KNOWN.weight() <= _archive.KNOWN_CHARS
    assert len(_archive._KNOWN) <= 4
    clear_caches()


def test_seen_counts_second_sightings() -> None:
    seen = Seen(4)
    assert not seen.again(Text("a"))
    assert seen.again(Text("a"))
    assert not seen.again(Message("user", (Text("a"),)))
    for n in range(8):
        seen.again(str(n))
    assert not seen.again(Text("a"))  # forgotten when full


def test_seen_tells_turns_apart_by_their_last_part_too() -> None:
    seen = Seen(8)
    for n in range(4):  # empty text, then a distinct call: each turn met for the first time
        call = ToolCall(f"c{n}", "f", "{}")
        assert not seen.again(Message("assistant", (Text(""), call)))
    assert seen.again(Message("assistant", (Text(""), ToolCall("c0", "f", "{}"))))


def test_seen_forgets_in_place() -> None:
    seen = Seen(4)
    seen.again(Text("a"))
    bits = seen._bits
    clear_caches()  # the one fixed block is zeroed, not replaced: clearing allocates nothing
    assert seen._bits is bits
    assert not any(bits)
    assert not seen.again(Text("a"))


def _records(result: object) -> dict[str, str | None]:
    archive = result.archive  # type: ignore[attr-defined]
    return {ref: archive.store.get(ref) for ref in archive.refs()}


def test_compact_warm_equals_compact_cold_even_when_the_caller_mutates() -> None:
    import contextfold as cf

    def history() -> list[dict[str, object]]:
        out: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
        for n in range(30):
            call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            out += [
                {"role": "user", "content": f"question {n} " + "words " * 40},
                {"role": "assistant", "content": None, "tool_calls": [call], "meta": [n]},
                {"role": "tool", "tool_call_id": f"c{n}", "content": "result " * 200},
            ]
        return out

    wire = history()
    for _ in range(3):  # seen, keyed, hit
        cf.compact(wire, 2_000, model="gpt-4o")
    wire[2]["meta"].append("changed")  # type: ignore[attr-defined]
    wire[3]["content"] = "other " * 200
    warm = cf.compact(wire, 2_000, model="gpt-4o")
    cf.clear_caches()
    cold = cf.compact(wire, 2_000, model="gpt-4o")
    assert warm.payload == cold.payload
    assert _records(warm) == _records(cold)
    assert warm.report.to_dict() == cold.report.to_dict()
