"""Properties for the classes of issue 12's faults, in all three formats.

(a) repair is total: real corpus conversations and generated ones, with messages deleted,
    duplicated and reordered at random, compact to a payload `validate` accepts, or raise
    InvalidConversation; never an invalid payload.
(b) the "already fits" path too (a budget nothing needs to shrink for).
(d) report counts come from the plan: text that looks like markers changes no count.
(h) Anthropic takes no `{"role": "system"}` in `messages`: validate says so, compact raises
    rather than emit one, and convert never writes one.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import FORMATS
from contextfold.testing import FixedCounter

from ..adapters import anthropic_strategies, chat_strategies, responses_strategies
from ..corpus import records

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
GENERATED: dict[str, st.SearchStrategy[Any]] = {
    "openai-chat": chat_strategies.payloads,
    "anthropic": anthropic_strategies.payloads(),
    "openai-responses": responses_strategies.payloads,
}


def _corpus() -> list[list[dict[str, Any]]]:
    found = records()
    swe = [r for r in found if str(r["id"]).startswith("swe")][:5]
    tau = [r for r in found if not str(r["id"]).startswith("swe")][:15]
    return [list(r["messages"]) for r in (*swe, *tau)]  # type: ignore[call-overload]


CORPUS = _corpus()


def _items(payload: Any) -> list[Any]:
    if isinstance(payload, list):
        return payload
    key = "messages" if "messages" in payload else "input"
    items = payload[key]
    return items if isinstance(items, list) else []


def _with_items(payload: Any, items: list[Any]) -> Any:
    if isinstance(payload, list):
        return items
    key = "messages" if "messages" in payload else "input"
    return {**payload, key: items}


@st.composite
def corrupted(draw: st.DrawFn, payload: Any) -> Any:
    """`payload` with messages deleted, duplicated and moved (a few random edits)."""
    items = copy.deepcopy(_items(payload))
    for _ in range(draw(st.integers(1, 4))):
        if not items:
            break
        i = draw(st.integers(0, len(items) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "move", "swap"]))
        if action == "delete":
            del items[i]
        elif action == "duplicate":
            items.insert(draw(st.integers(0, len(items))), copy.deepcopy(items[i]))
        else:
            j = draw(st.integers(0, len(items) - 1))
            if action == "move":
                items.insert(j, items.pop(i))
            else:
                items[i], items[j] = items[j], items[i]
    return _with_items(payload, items)


def _corpus_payload(fmt: str, index: int) -> Any:
    if not CORPUS:
        pytest.skip("corpus not found")
    body = {"model": "gpt-4o", "max_tokens": 512, "messages": CORPUS[index % len(CORPUS)]}
    return body if fmt == "openai-chat" else cf.convert(body, fmt, format="openai-chat")


def assert_valid_or_refused(payload: Any, fmt: str, budget: int) -> None:
    try:
        result = cf.compact(payload, budget, format=fmt, counter=FixedCounter())
    except cf.InvalidConversation:
        return
    assert cf.validate(result.payload, fmt) == [], result.report.repaired


@pytest.mark.corpus
@pytest.mark.parametrize("fmt", FORMATS)
@PROPERTY
@given(data=st.data())
def test_a_repair_is_total_on_corrupted_corpus_conversations(fmt: str, data: st.DataObject) -> None:
    payload = data.draw(corrupted(_corpus_payload(fmt, data.draw(st.integers(0, 99)))))
    assert_valid_or_refused(payload, fmt, data.draw(st.sampled_from([400, 1500, 4000])))


@pytest.mark.parametrize("fmt", FORMATS)
@PROPERTY
@given(data=st.data())
def test_a_repair_is_total_on_corrupted_generated_payloads(fmt: str, data: st.DataObject) -> None:
    payload = data.draw(corrupted(data.draw(GENERATED[fmt])))
    assert_valid_or_refused(payload, fmt, data.draw(st.sampled_from([60, 300, 2000])))


@pytest.mark.corpus
@pytest.mark.parametrize("fmt", FORMATS)
@PROPERTY
@given(data=st.data())
def test_b_the_already_fits_path_validates_too(fmt: str, data: st.DataObject) -> None:
    source = _corpus_payload(fmt, data.draw(st.integers(0, 99)))
    payload = data.draw(corrupted(source) | st.just(source))
    assert_valid_or_refused(payload, fmt, 10_000_000)


@pytest.mark.parametrize("fmt", FORMATS)
@PROPERTY
@given(data=st.data())
def test_b_generated_payloads_that_fit(fmt: str, data: st.DataObject) -> None:
    payload = data.draw(corrupted(data.draw(GENERATED[fmt])) | GENERATED[fmt])
    assert_valid_or_refused(payload, fmt, 10_000_000)


def _marker_text(payload: Any, fake: str) -> Any:
    """Every tool result's text with `fake` (4 characters) spliced in, many times."""

    def edit(message: Any) -> Any:
        if isinstance(message, dict) and message.get("role") == "tool":
            content = message.get("content")
            if isinstance(content, str):
                return {**message, "content": (fake + content[4:]) * 3}
        return message

    return _with_items(payload, [edit(m) for m in _items(payload)])


@pytest.mark.corpus
@PROPERTY
@given(index=st.integers(0, 99), budget=st.sampled_from([300, 1000, 3000, 8000]))
def test_d_counts_do_not_depend_on_marker_shaped_text(index: int, budget: int) -> None:
    """With a counter that only sees lengths, `[cf:` or `(cf:` in the text changes nothing
    else, so the plan, and every count the report gives, must be the same."""
    source = _corpus_payload("openai-chat", index)
    counts = []
    for fake in ("[cf:", "(cf:"):
        report = cf.compact(_marker_text(source, fake), budget, counter=FixedCounter()).report
        assert all(n >= 0 for n in report.actions.values())
        counts.append(dict(report.actions))
    assert counts[0] == counts[1]


def test_d_the_issue_reproduction_counts_one_prune() -> None:
    """Fault 4: 350,000 characters with '[cf:' 4,000 times, compacted to 20,000."""
    text = ("[cf: a marker-shaped line of tool output\n" * 4000).ljust(350_000, "x")
    call = {"id": "c1", "type": "function", "function": {"name": "cat", "arguments": "{}"}}
    payload = [
        {"role": "user", "content": "read the log"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": text},
        {"role": "assistant", "content": "read"},
        {"role": "user", "content": "next"},
    ]
    report = cf.compact(payload, 20_000).report
    assert report.pruned + report.masked == 1
    assert "-" not in report.describe().split(";")[1]


@PROPERTY
@given(data=st.data())
def test_h_anthropic_system_role_in_messages_is_refused(data: st.DataObject) -> None:
    payload = data.draw(anthropic_strategies.payloads())
    items = copy.deepcopy(_items(payload))
    at = data.draw(st.integers(0, len(items)))
    items.insert(at, {"role": "system", "content": "You are terse."})
    broken = _with_items(payload, items)
    problems = cf.validate(broken, "anthropic")
    assert any(p.index == at and p.field == "role" for p in problems)
    with pytest.raises(cf.InvalidConversation):
        cf.compact(broken, 10_000_000, format="anthropic")


@PROPERTY
@given(payload=chat_strategies.payloads, at=st.integers(0, 5))
def test_h_convert_never_writes_a_system_message_into_anthropic_messages(
    payload: Any, at: int
) -> None:
    items = list(_items(payload))
    items.insert(min(at, len(items)), {"role": "system", "content": "Be brief."})
    source = _with_items(payload, items)
    if isinstance(source, list) and items[0].get("role") in ("system", "developer"):
        with pytest.raises(cf.InvalidConversation, match="request body"):
            cf.convert(source, "anthropic", format="openai-chat")  # no place in a bare list
        return
    converted = cf.convert(source, "anthropic", format="openai-chat")
    assert all(m.get("role") in ("user", "assistant") for m in _items(converted))
