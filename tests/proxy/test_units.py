"""Pure pieces of the proxy: budgets from the model table and overrides, SSE splitting
under any chunking (a Hypothesis property), stream assembly, the recall round's items."""

from __future__ import annotations

import asyncio
import gc
import gzip
import json
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import contextfold as cf
from contextfold._cli._serve import _window
from contextfold._proxy import GC_THRESHOLDS, Config, _recall, _sse, served_app
from contextfold._proxy._budgets import budget_for, window_for
from contextfold._proxy._marks import marks_of, remarked, unmarked
from contextfold._proxy._upstream import decoded

from . import replies


def test_window_precedence_header_override_table_default() -> None:
    overrides = {"my-model": 32_768, "qwen*": 65_536}
    assert window_for("gpt-4o-2024-08-06", {}, None) == 128_000  # table, by prefix
    assert window_for("my-model", overrides, None) == 32_768
    assert window_for("qwen3-32b", overrides, None) == 65_536  # override prefix beats table
    assert window_for("unknown", overrides, 9_000) == 9_000
    assert window_for("unknown", overrides, None) is None
    assert window_for("gpt-4o", overrides, None, header="4096") == 4_096
    assert window_for("gpt-4o", overrides, None, header="lots") == 128_000


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4-0613", 8_192),
        ("gpt-4-1106-preview", 128_000),  # GPT-4 Turbo previews, not the 8k GPT-4
        ("gpt-4-0125-preview", 128_000),
        ("gpt-4-vision-preview", 128_000),
        ("o1-preview-2024-09-12", 128_000),  # not o1's 200k: the provider refuses past 128k
        ("gpt-5-chat-latest", 128_000),  # not gpt-5's 400k
        ("chatgpt-4o-latest", 128_000),
        ("gpt-5-2025-08-07", 400_000),
    ],
)
def test_a_dated_or_suffixed_name_gets_its_models_window(model: str, window: int) -> None:
    assert window_for(model, {}, None) == window


def test_budget_is_the_window_minus_the_output_limit() -> None:
    assert budget_for({"max_tokens": 1_000}, "anthropic", 8_000) == 7_000
    assert budget_for({"max_completion_tokens": 500}, "openai-chat", 8_000) == 7_500
    assert budget_for({"max_output_tokens": 100}, "openai-responses", 8_000) == 7_900
    assert budget_for({}, "openai-chat", 8_000) == 7_000  # reserve: an eighth of the window
    assert budget_for({"max_tokens": 9_000}, "anthropic", 8_000) is None


def test_window_options_say_what_is_wrong() -> None:
    assert _window(" m = 10 ") == ("m", 10)
    for bad in ("m", "m=", "=5", "m=-1", "m=x"):
        with pytest.raises(ValueError, match="MODEL=TOKENS"):
            _window(bad)


def _stream(fmt: str, name: str) -> bytes:
    body = {"model": "m"}
    return b"".join(replies.answer(fmt, body, (name, {"ref": "r0123456789"}), 3, 10, stream=True))


async def _chunked(data: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    start = 0
    for cut in sorted(c % (len(data) + 1) for c in cuts):
        yield data[start:cut]
        start = max(start, cut)
    yield data[start:]


async def _events(data: bytes, cuts: list[int]) -> list[bytes]:
    return [event async for event in _sse.events(_chunked(data, cuts))]


@given(
    fmt=st.sampled_from(["openai-chat", "openai-responses", "anthropic"]),
    cuts=st.lists(st.integers(0, 5_000), max_size=12),
)
def test_events_are_the_same_under_any_chunking(fmt: str, cuts: list[int]) -> None:
    data = _stream(fmt, "read_file")
    events = asyncio.run(_events(data, cuts))
    assert b"".join(events) == data
    assert events == asyncio.run(_events(data, []))


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
def test_assembled_streams_read_like_the_bodies(fmt: str) -> None:
    for name, decision in (("read_file", "live"), (cf.RECALL_TOOL_NAME, "hold"), ("", "live")):
        assembler = _sse.assembler(fmt)  # type: ignore[arg-type]
        for event in asyncio.run(_events(_stream(fmt, name), [])):
            assembler.feed(_sse.data_of(event))
        assert assembler.decision == decision
        body = replies.answer(
            fmt, {"model": "m"}, (name, {"ref": "r0123456789"}), 3, 10, stream=False
        )
        assert _recall.is_round(fmt, assembler.response()) == (name == cf.RECALL_TOOL_NAME)  # type: ignore[arg-type]
        assert _recall.is_round(fmt, body) == (name == cf.RECALL_TOOL_NAME)  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
def test_a_recall_round_answers_every_call_validly(fmt: str) -> None:
    archive = cf.Archive()
    ref = archive.put("the original text")
    call = (cf.RECALL_TOOL_NAME, {"ref": ref, "offset": None, "limit": None})
    body = replies.answer(fmt, {"model": "m"}, call, 3, 10, stream=False)
    added = _recall.answer(fmt, body, archive, room=2_000)  # type: ignore[arg-type]
    request = [{"role": "user", "content": "go"}, *added]
    assert cf.validate(request, fmt) == []
    assert "the original text" in json.dumps(added)
    tight = _recall.answer(fmt, body, archive, room=10)  # type: ignore[arg-type]
    assert "no room left" in json.dumps(tight)
    stripped = _recall.strip(fmt, body)  # type: ignore[arg-type]
    assert not _recall.has_recall(fmt, stripped)  # type: ignore[arg-type]


def test_a_serving_process_freezes_its_start_and_collects_less_often(tmp_path: Path) -> None:
    before = gc.get_threshold()
    try:
        app = served_app(Config(store=f"sqlite:{tmp_path}/s.db"))
        assert app.routes  # the same app `create_app` makes
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0  # start-up objects left out of every collection
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


@given(body=st.binary(max_size=2_000), limit=st.integers(1, 3_000))
def test_a_compressed_body_is_read_inflated_within_the_limit(body: bytes, limit: int) -> None:
    fits = body if len(body) <= limit else None
    assert decoded(gzip.compress(body), "gzip", limit) == fits
    assert decoded(zlib.compress(body), "deflate", limit) == fits
    assert decoded(body, None, limit) == body  # no encoding: as it came, whatever its size
    assert decoded(gzip.compress(body)[:-4], "gzip", 10_000) is None  # cut short
    assert decoded(gzip.compress(body), "br", 10_000) is None  # not one we read


_MARK: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [{}, {"cache_control": {"type": "ephemeral"}}]
)
_TEXT = st.builds(lambda t, m: {"type": "text", "text": t, **m}, st.text(max_size=3), _MARK)
_PART = (
    _TEXT
    | st.builds(lambda c, m: {"type": "tool_result", "content": c, **m}, st.lists(_TEXT), _MARK)
    | st.builds(
        lambda m: {"type": "tool_use", "input": {"cache_control": "the model's data"}, **m}, _MARK
    )
)
_ITEM = st.builds(
    lambda c, m: {"role": "user", "content": c, **m}, st.text() | st.lists(_PART), _MARK
)


@given(items=st.lists(_ITEM, max_size=6))
def test_items_are_held_unmarked_and_sent_with_their_marks(items: list[Any]) -> None:
    plain = [unmarked(item) for item in items]
    text = json.dumps(plain)
    assert text.count('"cache_control"') == text.count('"cache_control": "the model')  # input kept
    assert [unmarked(item) for item in plain] == plain  # nothing left to take off
    assert remarked(plain, marks_of(items, plain)) == items


_DENSE = (
    "数据库连接在凌晨三点失败，重试三次后恢复。" * 200,  # CJK: about a token a character
    "".join(f"{n * 7919 % 100_003:05d}," for n in range(2_000)),  # numbers
    "f1:0000  value_f1_0 = compute(alpha=0, beta='f1')  # keep\n" * 120,
)


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
@given(text=st.sampled_from(_DENSE), room=st.integers(300, 4_000))
@example(text=_DENSE[0], room=3_532)  # the whole text is shorter than the first page
def test_a_recall_answer_fits_its_room_however_dense_the_text(
    fmt: cf.Format, text: str, room: int
) -> None:
    archive = cf.Archive()
    call = (cf.RECALL_TOOL_NAME, {"ref": archive.put(text), "offset": None, "limit": None})
    body = replies.answer(fmt, {"model": "m"}, call, 3, 10, stream=False)
    added = _recall.answer(fmt, body, archive, room, model="claude-sonnet-4-6")
    assert cf.count_tokens(added, "claude-sonnet-4-6", format=fmt) <= room
    assert "recalled, chars 0-" in json.dumps(added, ensure_ascii=False)  # a page, not nothing


def test_a_marked_item_gets_its_mark_wherever_the_compacted_view_holds_it() -> None:
    block = {"type": "text", "text": "the task"}
    task = {"role": "user", "content": [block]}
    marked = {"role": "user", "content": [{**block, "cache_control": {"type": "x"}}]}
    later = [{"role": "user", "content": f"turn {n}"} for n in range(5)]
    view = [{"role": "system", "content": "s"}, task, {"role": "user", "content": "[summary]"}]
    view += later[-2:]  # the view folded three of the items that came after the task
    assert remarked(view, ((6, marked),)) == [*view[:1], marked, *view[2:]]
    assert remarked(view, ((6, {**marked, "role": "other"}),)) == view  # not in the view
