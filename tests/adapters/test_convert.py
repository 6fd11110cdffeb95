"""contextfold.convert: valid output in every direction, and A -> B -> A keeps the content.

Properties over generated payloads of each format and checks over the real corpus (OpenAI
chat, converted to the two other formats and back). Example tests of the single rules live
in test_convert_turns.py.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold
from contextfold import FORMATS, Format, Image, Opaque, Reasoning
from contextfold._adapters import item_count
from contextfold._adapters._convert import normalize
from contextfold._errors import with_article

from ..corpus import conversations
from . import anthropic_strategies, chat_strategies, responses_strategies
from .convert_view import anthropic_ids, call_ids, view

SOURCES: dict[Format, st.SearchStrategy[Any]] = {
    "openai-chat": chat_strategies.payloads,
    "anthropic": anthropic_strategies.payloads(),
    "openai-responses": responses_strategies.payloads,
}
PAIRS = [(a, b) for a in FORMATS for b in FORMATS if a != b]
PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIGHT = settings(PROPERTY, max_examples=25)


def empty(payload: Any) -> bool:
    """Nothing to convert: no input items at all (chat and Anthropic reject an empty list)."""
    instructions = isinstance(payload, dict) and isinstance(payload.get("instructions"), str)
    return item_count(payload) == 0 and not instructions


def refused(payload: Any, source: Format, target: Format) -> bool:
    """Whether `convert` refuses the pair (`_convert` rule 6): a bare list that opens with
    a system or developer prompt has no place for it in Anthropic; then it says where."""
    conversation = contextfold.parse(payload, format=source)[1]
    first = conversation.messages[0] if conversation.messages else None
    if target == source or not isinstance(payload, list) or target != "anthropic":
        return False
    if first is None or first.role not in ("system", "developer"):
        return False
    with pytest.raises(contextfold.InvalidConversation) as raised:
        contextfold.convert(payload, target, format=source)
    assert (raised.value.index, raised.value.field) == (0, "role")
    assert "request body" in str(raised.value)
    return True


def assert_round_trip(payload: Any, source: Format, via: Format) -> None:
    """`payload` (in `source`) converted to `via` and back keeps what both express."""
    if refused(payload, source, via):
        return
    there = contextfold.convert(payload, via, format=source)
    back = contextfold.convert(there, source, format=via)
    original = contextfold.parse(payload, format=source)[1]
    returned = contextfold.parse(back, format=source)[1]
    assert view(returned, via) == view(original, via)
    ids = call_ids(original)
    if via != "anthropic" or anthropic_ids(ids):
        assert call_ids(returned) == ids


# --- properties ----------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "target"), PAIRS)
@PROPERTY
@given(data=st.data())
def test_converted_payloads_validate(source: Format, target: Format, data: st.DataObject) -> None:
    payload = data.draw(SOURCES[source])
    assert contextfold.validate(payload, format=source) == []
    before = copy.deepcopy(payload)
    if refused(payload, source, target):
        assert payload == before, "convert must not mutate its input"
        return
    converted = contextfold.convert(payload, target, format=source)
    assert payload == before, "convert must not mutate its input"
    assert isinstance(converted, list) == isinstance(payload, list)
    if not empty(payload):
        assert contextfold.validate(converted, format=target) == []
    assert json.loads(json.dumps(converted)) == converted


@pytest.mark.parametrize(("source", "via"), PAIRS)
@PROPERTY
@given(data=st.data())
def test_round_trip_keeps_text_calls_results_images_and_order(
    source: Format, via: Format, data: st.DataObject
) -> None:
    assert_round_trip(data.draw(SOURCES[source]), source, via)


@pytest.mark.parametrize("fmt", FORMATS)
@LIGHT
@given(data=st.data())
def test_converting_to_the_same_format_changes_nothing(fmt: Format, data: st.DataObject) -> None:
    payload = data.draw(SOURCES[fmt])
    assert contextfold.convert(payload, fmt, format=fmt) == payload


@pytest.mark.parametrize(("source", "target"), PAIRS)
@LIGHT
@given(data=st.data())
def test_conversion_is_deterministic_and_reports_each_dropped_part(
    source: Format, target: Format, data: st.DataObject
) -> None:
    conversation = contextfold.parse(data.draw(SOURCES[source]), format=source)[1]
    converted, changes = normalize(conversation, source, target)
    assert normalize(conversation, source, target) == (converted, changes)
    assert all(c.index is None or 0 <= c.index < len(conversation.messages) for c in changes)
    unsendable = [
        (i, f"{p.kind} part in {with_article(m.role)} message")
        for i, m in enumerate(conversation.messages)
        for p in m.parts
        if isinstance(p, Opaque | Reasoning) or (isinstance(p, Image) and m.role != "user")
    ]
    reported = [(c.index, c.what) for c in changes if c.what.endswith(" message")]
    assert reported == unsendable


# --- the real corpus -----------------------------------------------------------------------


def corpus_payloads() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for record_id, messages in conversations():
        out.append((record_id, messages))
        out.append((record_id, {"model": "gpt-4o", "max_tokens": 512, "messages": messages}))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("target", ["anthropic", "openai-responses"])
def test_corpus_converts_to_valid_payloads_and_back(target: Format) -> None:
    for record_id, payload in corpus_payloads():
        if refused(payload, "openai-chat", target):
            continue  # the body form of the same record is converted
        converted = contextfold.convert(payload, target)
        assert contextfold.validate(converted, format=target) == [], record_id
        back = contextfold.convert(converted, "openai-chat", format=target)
        assert contextfold.validate(back, format="openai-chat") == [], record_id
        assert_round_trip(payload, "openai-chat", target)


@pytest.mark.corpus
def test_corpus_repeated_call_ids_are_renamed_consistently_for_anthropic() -> None:
    renamed = 0
    for record_id, messages in conversations():
        body = contextfold.convert({"model": "m", "messages": messages}, "anthropic")
        assert isinstance(body, dict)
        uses = [b for m in body["messages"] for b in _blocks(m) if b["type"] == "tool_use"]
        ids = Counter(b["id"] for b in uses)
        assert max(ids.values(), default=1) == 1, record_id
        original = Counter(call_ids(contextfold.parse(messages, format="openai-chat")[1]))
        renamed += sum(n - 1 for n in original.values())
        assert sum(ids.values()) == sum(original.values())
    assert renamed == 73  # the corpus README counts 73 re-used ids in 49 tau-bench conversations


@pytest.mark.corpus
def test_corpus_body_fields_move_to_the_targets_names() -> None:
    _, messages = next(iter(conversations()))
    body = {"model": "gpt-4o", "max_tokens": 512, "temperature": 0.2, "messages": messages}
    anthropic = contextfold.convert(body, "anthropic")
    responses = contextfold.convert(body, "openai-responses")
    assert isinstance(anthropic, dict)
    assert isinstance(responses, dict)
    assert (anthropic["model"], anthropic["max_tokens"], anthropic["temperature"]) == (
        "gpt-4o",
        512,
        0.2,
    )
    assert isinstance(anthropic["system"], str)
    assert (responses["max_output_tokens"], responses["instructions"]) == (512, anthropic["system"])


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return content if isinstance(content, list) else []
