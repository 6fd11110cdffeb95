"""Anthropic validation (invariant I1): rule examples, targeted mutations, the real corpus."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._adapters._anthropic import from_conversation, to_conversation, validate
from contextfold._validation import Problem
from tests import corpus
from tests.adapters.anthropic_strategies import (
    Block,
    Draw,
    Json,
    assistant,
    message_lists,
    prose,
    reasoning_blocks,
    result,
    text,
    use,
    user,
)


def where(problems: list[Problem]) -> set[tuple[int | None, str | None]]:
    return {(p.index, p.field) for p in problems}


# --- one-rule mutations --------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """A payload that breaks one rule, the wire indices that must be flagged, and a hint."""

    payload: Json
    indices: frozenset[int]
    reason: str
    name: str


def _tool_turns(messages: list[Block]) -> list[int]:
    """Indices of user messages that carry tool_result blocks."""
    return [
        i
        for i, m in enumerate(messages)
        if m["role"] == "user"
        and isinstance(m["content"], list)
        and any(b["type"] == "tool_result" for b in m["content"])
    ]


def _drop_result(draw: Draw, messages: list[Block]) -> Mutation:
    j = draw(st.sampled_from(_tool_turns(messages)))
    results = [k for k, b in enumerate(messages[j]["content"]) if b["type"] == "tool_result"]
    del messages[j]["content"][draw(st.sampled_from(results))]
    return Mutation(messages, frozenset({j - 1}), "no tool_result", "drop")


def _move_result(draw: Draw, messages: list[Block]) -> Mutation:
    j = draw(st.sampled_from(_tool_turns(messages)))
    results = [k for k, b in enumerate(messages[j]["content"]) if b["type"] == "tool_result"]
    moved = messages[j]["content"].pop(draw(st.sampled_from(results)))
    later = [i for i in range(j + 2, len(messages)) if messages[i]["role"] == "user"]
    if later:
        target = draw(st.sampled_from(later))
        content = messages[target]["content"]
        messages[target]["content"] = [moved] + (
            content if isinstance(content, list) else [{"type": "text", "text": content}]
        )
    else:
        messages += (
            [{"role": "assistant", "content": "ok"}] if messages[-1]["role"] == "user" else []
        )
        messages.append({"role": "user", "content": [moved]})
        target = len(messages) - 1
    return Mutation(messages, frozenset({j - 1, target}), "tool_result", "move")


def _duplicate_id(draw: Draw, messages: list[Block]) -> Mutation:
    uses = [
        (i, b)
        for i, m in enumerate(messages)
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    first, second = sorted(
        draw(st.lists(st.sampled_from(range(len(uses))), min_size=2, max_size=2, unique=True))
    )
    old, new = uses[second][1]["id"], uses[first][1]["id"]
    uses[second][1]["id"] = new
    for block in messages[uses[second][0] + 1]["content"]:
        if block.get("tool_use_id") == old:
            block["tool_use_id"] = new
    return Mutation(messages, frozenset({uses[second][0]}), "already used", "duplicate")


def _two_users(draw: Draw, messages: list[Block]) -> Mutation:
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    j = draw(st.sampled_from(users))
    messages.insert(j + 1, {"role": "user", "content": draw(prose)})
    return Mutation(messages, frozenset({j + 1}), "in a row", "two-users")


def _thinking_after_use(draw: Draw, messages: list[Block]) -> Mutation:
    assistants = [j - 1 for j in _tool_turns(messages)]
    i = draw(st.sampled_from(assistants))
    messages[i]["content"].append(draw(reasoning_blocks))
    return Mutation(messages, frozenset({i}), "must precede", "thinking-after-tool-use")


_MUTATORS = {
    "drop": _drop_result,
    "move": _move_result,
    "duplicate": _duplicate_id,
    "two-users": _two_users,
    "thinking-after-tool-use": _thinking_after_use,
}


@st.composite
def mutations(draw: Draw) -> Mutation:
    """A valid payload with exactly one rule broken on purpose."""
    name = draw(st.sampled_from(sorted(_MUTATORS)))
    messages = copy.deepcopy(draw(message_lists(min_calls=2)))
    payload = (
        {"model": "m", "max_tokens": 9, "messages": messages} if draw(st.booleans()) else messages
    )
    mutation = _MUTATORS[name](draw, messages)
    return Mutation(payload, mutation.indices, mutation.reason, name)


@given(mutations())
def test_each_mutation_is_caught_at_the_right_index(mutation: Mutation) -> None:
    problems = validate(mutation.payload)
    flagged = {p.index for p in problems}
    assert mutation.indices <= flagged, (mutation.name, problems)
    hinted = [p for p in problems if p.index in mutation.indices and mutation.reason in p.reason]
    assert hinted, (mutation.name, problems)


# --- validation rules (examples) -------------------------------------------------------------


def test_validate_accepts_a_typical_tool_loop() -> None:
    messages = [
        user("weather in Paris?"),
        assistant(
            [
                {"type": "thinking", "thinking": "use the tool", "signature": "s"},
                text("checking"),
                use("t1", city="Paris"),
            ]
        ),
        user([result("t1", "rainy"), text("thanks")]),
        assistant("It is rainy."),
    ]
    assert validate(messages) == []
    assert (
        validate(
            {"model": "m", "max_tokens": 9, "messages": messages, "thinking": {"type": "enabled"}}
        )
        == []
    )


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ([assistant("hi")], {(0, "role")}),
        ([user("a"), user("b")], {(1, "role")}),
        ([user("a"), assistant([use("t1")])], {(1, "content[0]")}),
        ([user("a"), assistant([use("t1")]), user([text("x"), result("t1")])], {(2, "content[1]")}),
        ([user([result("t1")])], {(0, "content[0].tool_use_id")}),
        (
            [user("a"), assistant([use("t1")]), user([result("t1"), result("t1")])],
            {(2, "content[1].tool_use_id")},
        ),
        (
            [
                user("a"),
                assistant([use("t1")]),
                user([result("t1")]),
                assistant([use("t1")]),
                user([result("t1")]),
            ],
            {(3, "content[0].id")},
        ),
        (
            [
                user("a"),
                assistant([use("t1"), {"type": "thinking", "thinking": "x", "signature": "s"}]),
                user([result("t1")]),
            ],
            {(1, "content[1]")},
        ),
        (
            [user("a"), assistant([text("x"), {"type": "redacted_thinking", "data": "d"}])],
            {(1, "content[1]")},
        ),
        ([user("  ")], {(0, "content")}),
        ([user([]), assistant("x")], {(0, "content")}),
        ([user("a"), assistant("trailing ")], {(1, "content")}),
        ([user("a"), {"role": "robot", "content": "x"}], {(1, "role")}),
        (
            [
                user(
                    [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/bmp", "data": "x"},
                        }
                    ]
                )
            ],
            {(0, "content[0].source.media_type")},
        ),
        ([user([{"type": "image", "source": {"type": "ftp"}}])], {(0, "content[0].source.type")}),
        (
            [user("a"), assistant([use("bad id!")]), user([result("bad id!")])],
            {(1, "content[0].id")},
        ),
        (
            [user("a"), assistant([{"type": "thinking", "thinking": "x"}])],
            {(1, "content[0].signature")},
        ),
        ([user([use("t1")])], {(0, "content[0]")}),
        ([user("a"), assistant([result("t1")])], {(1, "content[0]")}),
        ({"messages": []}, {(None, "messages")}),
        ({"messages": [user("a")], "system": [{"type": "image"}]}, {(None, "system[0]")}),
        (
            {"messages": [user("a")], "tools": [{"name": "f"}, {"name": "f", "input_schema": {}}]},
            {(None, "tools[0].input_schema"), (None, "tools[1].name")},
        ),
        (42, {(None, None)}),
    ],
)
def test_validate_reports_each_rule_at_its_place(
    payload: Any, expected: set[tuple[int | None, str | None]]
) -> None:
    assert where(validate(payload)) == expected


def test_at_most_four_cache_breakpoints_in_a_request() -> None:
    # API: "A maximum of 4 blocks with cache_control may be provided. Found 5." Breakpoints
    # count wherever they sit: tools, system blocks, message blocks, tool_result content.
    mark = {"cache_control": {"type": "ephemeral"}}
    body: dict[str, Any] = {
        "model": "m",
        "max_tokens": 9,
        "tools": [{"name": "f", "input_schema": {"type": "object"}, **mark}],
        "system": [{"type": "text", "text": "be brief", **mark}],
        "messages": [
            user([text("read it"), {**text("the file"), **mark}]),
            assistant([use("t1")]),
            user([{**result("t1", "x"), "content": [{**text("file body"), **mark}]}]),
        ],
    }
    assert validate(body) == []  # four
    body["messages"][2]["content"][0].update(mark)
    assert where(validate(body)) == {(None, "cache_control")}
    body["messages"][2]["content"][0]["cache_control"] = None  # null is no breakpoint
    assert validate(body) == []


def test_validate_with_thinking_enabled_needs_thinking_on_the_turn_in_progress() -> None:
    messages = [
        user("go"),
        assistant([use("t1")]),
        user([result("t1")]),
        assistant([use("t2")]),
        user([result("t2")]),
    ]
    body = {"messages": messages, "thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert where(validate(body)) == {(1, "content[0]")}
    messages[1]["content"].insert(0, {"type": "redacted_thinking", "data": "d"})
    assert validate(body) == []
    assert validate(messages) == []


def test_thinking_after_a_server_tool_result_is_interleaved_not_misplaced() -> None:
    server = [
        {"type": "thinking", "thinking": "a", "signature": "s"},
        text("let me search"),
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "q"},
        },
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "thinking", "thinking": "b", "signature": "s"},
        text("found it"),
    ]
    assert validate([user("q"), assistant(server)]) == []


# --- the real corpus, converted to Anthropic -------------------------------------------------


def _openai_to_anthropic(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A plain OpenAI chat -> Anthropic conversion, as an agent would do it by hand."""
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": []}
    out: list[dict[str, Any]] = body["messages"]
    for message in messages:
        role, content = message["role"], message.get("content")
        texts = (
            [text(p["text"]) for p in content]
            if isinstance(content, list)
            else [text(content)]
            if content
            else []
        )
        texts = [t for t in texts if t["text"].strip()]
        if role == "system":
            body["system"] = content
        elif role == "assistant":
            calls = [
                use(c["id"], c["function"]["name"], **json.loads(c["function"]["arguments"]))
                for c in message.get("tool_calls", [])
            ]
            out.append(assistant(texts + calls))
        else:
            block = result(message["tool_call_id"], content) if role == "tool" else None
            if block is not None and "cache_control" in message:
                block["cache_control"] = message["cache_control"]
            blocks = [block] if block else texts
            if out and out[-1]["role"] == "user":
                out[-1]["content"] += blocks
            else:
                out.append(user(blocks))
    return body


@pytest.mark.corpus
def test_corpus_conversations_round_trip_and_only_duplicate_ids_are_flagged() -> None:
    flagged: set[str] = set()
    expected: set[str] = set()
    for record in corpus.require():
        body = _openai_to_anthropic(record["messages"])  # type: ignore[arg-type]
        assert from_conversation(to_conversation(body)) == body, record["id"]
        problems = validate(body)
        assert all("already used" in p.reason for p in problems), (record["id"], problems[:3])
        if problems:
            flagged.add(str(record["id"]))
        meta = record["meta"]
        if isinstance(meta, dict) and meta.get("duplicate_tool_call_ids"):
            expected.add(str(record["id"]))
    assert flagged == expected
    assert len(flagged) == 49
