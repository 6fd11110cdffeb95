"""Hypothesis strategies for Anthropic Messages payloads: valid, quirky and mutated ones.

`payloads()` draws payloads the Messages API accepts (validate() must find nothing);
`quirky_payloads()` adds wire shapes that are odd but must still round-trip exactly.
"""

from __future__ import annotations

import copy
import itertools
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

Json = Any
Block = dict[str, Json]
Draw = st.DrawFn

# --- wire builders for example tests -------------------------------------------------------


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, **extra}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def use(call_id: str, name: str = "f", **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": input}


def result(call_id: str, content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


# --- leaves --------------------------------------------------------------------------------

_visible = st.characters(codec="utf-8").filter(lambda c: not c.isspace())
prose = st.tuples(st.text(max_size=20), _visible).map(lambda t: t[0] + t[1])
"""Text the API accepts anywhere: never blank, never ending in whitespace."""
artifact_texts = st.sampled_from(
    [
        "[cf:summary] earlier: the user asked for a refund",
        "[cf:rules]\n- never book basic economy",
        "[cf:r0123456789 tool result masked, 812 tokens]",
    ]
)
texts = prose | artifact_texts
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=5,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=3)
cache_controls = st.sampled_from(
    [{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "5m"}, {"type": "ephemeral", "ttl": "1h"}]
)
unknown_fields = st.dictionaries(
    st.sampled_from(["x_note", "x_trace", "client_meta"]), json_values, max_size=2
)
names = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=10)
base64_data = st.text(alphabet=string.ascii_letters + string.digits + "+/", min_size=4, max_size=24)


@st.composite
def _decorated(draw: Draw, block: st.SearchStrategy[Block], cache: bool = True) -> Block:
    """`block` plus, sometimes, cache_control and unknown fields."""
    out = dict(draw(block))
    if cache and draw(st.booleans()):
        out["cache_control"] = draw(cache_controls)
    out.update(draw(unknown_fields) if draw(st.integers(0, 4)) == 0 else {})
    return out


citations = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("char_location"),
            "cited_text": prose,
            "document_index": st.integers(0, 3),
            "start_char_index": st.integers(0, 9),
            "end_char_index": st.integers(10, 99),
        }
    ),
    min_size=1,
    max_size=2,
)


@st.composite
def text_blocks(draw: Draw, with_citations: bool = False) -> Block:
    """A text block, sometimes with citations and cache_control."""
    block: Block = {"type": "text", "text": draw(texts)}
    if with_citations and draw(st.booleans()):
        block["citations"] = draw(citations)
    return draw(_decorated(st.just(block)))


image_sources = (
    st.fixed_dictionaries(
        {
            "type": st.just("base64"),
            "media_type": st.sampled_from(["image/jpeg", "image/png", "image/gif", "image/webp"]),
            "data": base64_data,
        }
    )
    | st.fixed_dictionaries(
        {
            "type": st.just("url"),
            "url": st.sampled_from(["https://example.com/a.png", "https://x.io/b.jpg"]),
        }
    )
    | st.fixed_dictionaries(
        {"type": st.just("file"), "file_id": st.just("file_011CNha8iCJcU1wXNR6q4V8w")}
    )
)
image_blocks = _decorated(
    st.fixed_dictionaries({"type": st.just("image"), "source": image_sources})
)
document_blocks = _decorated(
    st.fixed_dictionaries(
        {
            "type": st.just("document"),
            "source": st.fixed_dictionaries(
                {"type": st.just("text"), "media_type": st.just("text/plain"), "data": prose}
            ),
            "title": prose,
        }
    )
)
search_result_blocks = st.fixed_dictionaries(
    {
        "type": st.just("search_result"),
        "source": st.just("https://example.com/doc"),
        "title": prose,
        "content": st.lists(
            st.builds(lambda t: {"type": "text", "text": t}, prose), min_size=1, max_size=2
        ),
    }
)
thinking_blocks = st.fixed_dictionaries(
    {"type": st.just("thinking"), "thinking": st.text(max_size=40), "signature": base64_data}
)
redacted_blocks = st.fixed_dictionaries({"type": st.just("redacted_thinking"), "data": base64_data})
reasoning_blocks = thinking_blocks | redacted_blocks

# --- messages ------------------------------------------------------------------------------


@dataclass
class _Ids:
    """Unique ids across one conversation, as the API requires."""

    counter: Iterator[int]

    def next(self, prefix: str = "toolu_") -> str:
        return f"{prefix}{next(self.counter):04d}"


@st.composite
def _prompt(draw: Draw) -> Json:
    """A user prompt: a string or blocks of text, images, documents and search results."""
    if draw(st.booleans()):
        return draw(texts)
    blocks = text_blocks() | image_blocks | document_blocks | search_result_blocks
    return draw(st.lists(blocks, min_size=1, max_size=3))


@st.composite
def _server_step(draw: Draw, ids: _Ids) -> list[Block]:
    """A server tool call and its result, as one assistant message carries them."""
    if draw(st.booleans()):
        call_id = ids.next("srvtoolu_")
        result: Block = {
            "type": "web_search_tool_result",
            "tool_use_id": call_id,
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://e.com",
                    "title": "E",
                    "encrypted_content": "x",
                }
            ],
        }
        call: Block = {
            "type": "server_tool_use",
            "id": call_id,
            "name": "web_search",
            "input": {"query": "q"},
        }
        return [call, result]
    call_id = ids.next("mcptoolu_")
    call = {"type": "mcp_tool_use", "id": call_id, "name": "echo", "server_name": "s", "input": {}}
    result = {
        "type": "mcp_tool_result",
        "tool_use_id": call_id,
        "is_error": False,
        "content": [{"type": "text", "text": "ok"}],
    }
    return [call, result]


@st.composite
def _assistant(draw: Draw, ids: _Ids, think: bool, min_calls: int) -> tuple[Json, list[str]]:
    """Assistant content (thinking first) and the ids of its client tool calls."""
    blocks: list[Block] = draw(st.lists(reasoning_blocks, min_size=int(think), max_size=2))
    if draw(st.integers(0, 5)) == 0:
        blocks += draw(_server_step(ids)) + draw(st.lists(reasoning_blocks, max_size=1))
    calls = draw(st.integers(min_calls, 3))
    if draw(st.booleans()) or not calls:
        blocks.append(draw(text_blocks(with_citations=True)))
    call_ids = [ids.next() for _ in range(calls)]
    for call_id in call_ids:
        use = {"type": "tool_use", "id": call_id, "name": draw(names), "input": draw(json_objects)}
        blocks.append(draw(_decorated(st.just(use))))
    if len(blocks) == 1 and blocks[0]["type"] == "text" and set(blocks[0]) == {"type", "text"}:
        return (blocks[0]["text"] if draw(st.booleans()) else blocks), call_ids
    return blocks, call_ids


@st.composite
def _tool_result(draw: Draw, call_id: str) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": call_id}
    form = draw(st.sampled_from(["absent", "string", "list"]))
    if form == "string":
        block["content"] = draw(st.text(max_size=60))
    elif form == "list":
        block["content"] = draw(st.lists(text_blocks() | image_blocks, max_size=3))
    if draw(st.booleans()):
        block["is_error"] = draw(st.booleans())
    return draw(_decorated(st.just(block)))


@st.composite
def _answers(draw: Draw, call_ids: list[str]) -> list[Block]:
    """The user message answering `call_ids`: tool_results first, then maybe more."""
    order = draw(st.permutations(call_ids))
    blocks = [draw(_tool_result(call_id)) for call_id in order]
    return blocks + draw(st.lists(text_blocks() | image_blocks, max_size=1))


@st.composite
def message_lists(draw: Draw, think: bool = False, min_calls: int = 0) -> list[Block]:
    """Valid alternating messages; at least `min_calls` tool calls in the first turn."""
    ids = _Ids(itertools.count())
    messages: list[Block] = [
        draw(
            _decorated(
                st.fixed_dictionaries({"role": st.just("user"), "content": _prompt()}), cache=False
            )
        )
    ]
    for turn in range(draw(st.integers(1, 3))):
        content, call_ids = draw(_assistant(ids, think, min_calls if turn == 0 else 0))
        messages.append({"role": "assistant", "content": content})
        answer = draw(_answers(call_ids)) if call_ids else draw(_prompt())
        messages.append({"role": "user", "content": answer})
    if draw(st.integers(0, 4)) == 0:
        messages.append({"role": "assistant", "content": draw(prose)})
    within_breakpoints(messages)
    return messages


custom_tools = st.builds(
    lambda name, desc, cache: {
        "name": name,
        **({"description": desc} if desc else {}),
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
        **({"cache_control": cache} if cache else {}),
    },
    names,
    st.none() | prose,
    st.none() | cache_controls,
)
server_tools = st.just({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})


@st.composite
def tool_lists(draw: Draw) -> list[Block]:
    """Tools with unique names: custom tools and, sometimes, a server tool."""
    tools = draw(st.lists(custom_tools, max_size=3, unique_by=lambda t: t["name"]))
    if draw(st.booleans()):
        tools = [t for t in tools if t["name"] != "web_search"] + [draw(server_tools)]
    return tools


system_prompts = texts | st.lists(text_blocks(), min_size=1, max_size=3)


@st.composite
def bodies(draw: Draw, min_calls: int = 0) -> Block:
    """A whole request body around valid messages."""
    think = draw(st.booleans())
    body: Block = {"model": "claude-sonnet-4-5", "max_tokens": draw(st.integers(1, 64_000))}
    if draw(st.booleans()):
        body["system"] = draw(system_prompts)
    body["messages"] = draw(message_lists(think=think, min_calls=min_calls))
    tools = draw(tool_lists())
    if tools:
        body["tools"] = tools
    if think:
        body["thinking"] = {"type": "enabled", "budget_tokens": 2048}
    within_breakpoints(body)
    body.update(
        draw(
            st.dictionaries(
                st.sampled_from(["temperature", "metadata", "x_extra"]), json_values, max_size=2
            )
        )
    )
    return body


def within_breakpoints(payload: Any, seen: list[int] | None = None) -> Any:
    """`payload` with `cache_control` removed past the API's 4th breakpoint (in place)."""
    seen = [0] if seen is None else seen
    if isinstance(payload, list):
        for item in payload:
            within_breakpoints(item, seen)
    elif isinstance(payload, dict):
        if payload.get("cache_control") is not None:
            seen[0] += 1
            if seen[0] > 4:
                del payload["cache_control"]
        for value in payload.values():
            within_breakpoints(value, seen)
    return payload


def payloads(min_calls: int = 0) -> st.SearchStrategy[Json]:
    """Valid Anthropic payloads: bare message lists and request bodies."""
    return message_lists(min_calls=min_calls) | bodies(min_calls=min_calls)


# --- quirky but parseable shapes -------------------------------------------------------------

quirky_blocks = st.sampled_from(
    [
        {"type": "thinking", "thinking": "no signature"},
        {"type": "thinking", "thinking": "null signature", "signature": None},
        {"type": "tool_result", "tool_use_id": "t", "is_error": "yes"},
        {"type": "tool_result", "tool_use_id": "t", "content": ""},
        {"type": "tool_result", "tool_use_id": "t", "content": []},
        {"type": "image", "source": {"type": "base64", "data": "abc"}},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "a", "x": 1},
        },
        {"type": "image", "source": {"type": "url", "url": "data:image/png;base64,abc"}},
        {"type": "image", "source": {"type": "base64", "media_type": "a;base64,b", "data": "c"}},
        {"type": "image", "source": "https://example.com/a.png"},
        {"type": "tool_use", "id": "t", "name": "f", "input": [1, "two", None]},
        {"type": "tool_use", "id": "t", "name": "f", "input": "text"},
        {"type": "text", "text": "", "x_unknown": {"nested": [1]}},
        {"type": "x_future_block", "payload": {"a": 1}},
        {"type": "container_upload", "file_id": "file_1"},
        {"type": "redacted_thinking", "data": "abc", "cache_control": {"type": "ephemeral"}},
    ]
)
quirky_messages = st.one_of(
    st.builds(
        lambda c: {"role": "system", "content": c}, texts | st.lists(text_blocks(), max_size=2)
    ),
    st.builds(lambda c: {"role": "user", "content": c}, st.just("") | st.just([])),
    st.builds(
        lambda bs: {"role": "assistant", "content": bs, "id": "msg_1", "type": "message"},
        st.lists(quirky_blocks, max_size=3),
    ),
)


@st.composite
def quirky_payloads(draw: Draw) -> Json:
    """Valid payloads with odd wire shapes spliced in; they must round-trip all the same."""
    payload = copy.deepcopy(draw(payloads()))
    messages = payload["messages"] if isinstance(payload, dict) else payload
    for _ in range(draw(st.integers(1, 3))):
        messages.insert(draw(st.integers(0, len(messages))), draw(quirky_messages))
    if isinstance(payload, dict):
        extra: Block = draw(
            st.sampled_from(
                [
                    {"tools": []},
                    {"tools": None},
                    {"system": ""},
                    {"system": []},
                    {"tools": [{"name": "f", "description": None, "input_schema": "not a schema"}]},
                    {"stream": False},
                ]
            )
        )
        payload.update(extra)
    return payload
