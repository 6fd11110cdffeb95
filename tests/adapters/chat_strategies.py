"""Hypothesis strategies for OpenAI Chat Completions payloads.

`payloads` draws valid conversations (validate() finds nothing) the way real agents
write them: parallel tool calls answered in any order, call ids re-used across turns (as
in tau-bench), images, names, null and absent content, legacy function_call, litellm's
`index`, cache_control, unknown fields, shuffled key order, bare-list and body shapes.
`near_chat` draws chat-flavoured JSON that is often malformed, for totality checks.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

JSON = Any
Draw = st.DrawFn

texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            "OBSERVATION:\r\nok",
            "[cf:r0123456789 tool result masked, 812 tokens]",
            "[cf:summary] earlier the user asked for a refund",
            "[cf:rules]\n- never book basic economy",
            "日本語のテキスト",
        ]
    ),
)
call_ids = st.sampled_from(["call_a", "call_b", "call_c", "toolu_01", "call_d", "call_e"])
names = st.sampled_from(["bash", "str_replace_editor", "get_user_details", "calculate"])
scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=8)
unknown_keys = st.sampled_from(["x_trace", "metadata", "annotations", "reasoning_content"])
cache_control = st.just({"type": "ephemeral"})


@st.composite
def shuffled(draw: Draw, obj: dict[str, JSON]) -> dict[str, JSON]:
    """`obj` with its keys in a drawn order (rendering must keep any order)."""
    if len(obj) < 2 or not draw(st.booleans()):
        return obj
    order = draw(st.permutations(list(obj)))
    return {key: obj[key] for key in order}


@st.composite
def extra_fields(draw: Draw) -> dict[str, JSON]:
    """Message-level fields the adapter does not map."""
    out: dict[str, JSON] = {}
    if draw(st.booleans()):
        out["cache_control"] = draw(cache_control)
    for key in draw(st.lists(unknown_keys, max_size=2, unique=True)):
        out[key] = draw(scalars)
    return out


@st.composite
def text_part(draw: Draw) -> dict[str, JSON]:
    part: dict[str, JSON] = {"type": "text", "text": draw(texts)}
    if draw(st.integers(0, 3)) == 0:
        part["cache_control"] = draw(cache_control)
    return draw(shuffled(part))


@st.composite
def user_part(draw: Draw) -> dict[str, JSON]:
    kind = draw(st.sampled_from(["text", "text", "image", "audio", "file"]))
    if kind == "text":
        return draw(text_part())
    if kind == "audio":
        return {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    if kind == "file":
        return {"type": "file", "file": {"file_id": "file-abc123"}}
    image: dict[str, JSON] = {"url": draw(st.sampled_from(["https://x.test/a.png", "data:,"]))}
    detail = draw(st.sampled_from([None, "auto", "low", "high", "original"]))
    if detail is not None:
        image["detail"] = detail
    return {"type": "image_url", "image_url": image}


@st.composite
def content(draw: Draw, part: st.SearchStrategy[dict[str, JSON]]) -> JSON:
    """A string, or a non-empty list of parts."""
    if draw(st.booleans()):
        return draw(texts)
    return draw(st.lists(part, min_size=1, max_size=3))


@st.composite
def message(draw: Draw, role: str, body: dict[str, JSON]) -> dict[str, JSON]:
    """A message with optional name and unknown fields, keys possibly shuffled."""
    out: dict[str, JSON] = {"role": role, **body}
    if role != "tool" and draw(st.integers(0, 4)) == 0:
        out["name"] = draw(st.sampled_from(["alice", "agent_1"]))
    out.update(draw(extra_fields()))
    return draw(shuffled(out))


@st.composite
def tool_call(draw: Draw, call_id: str) -> dict[str, JSON]:
    if draw(st.integers(0, 5)) == 0:
        inner = {"name": draw(names), "input": draw(texts)}
        return draw(shuffled({"id": call_id, "type": "custom", "custom": inner}))
    function = draw(shuffled({"name": draw(names), "arguments": draw(st.just("{}") | texts)}))
    call: dict[str, JSON] = {"id": call_id, "type": "function", "function": function}
    if draw(st.booleans()):
        call["index"] = draw(st.integers(0, 3))
    return draw(shuffled(call))


@st.composite
def tool_turn(draw: Draw) -> list[dict[str, JSON]]:
    """An assistant message with parallel calls, then one tool message per call."""
    ids = draw(st.lists(call_ids, min_size=1, max_size=3, unique=True))
    body: dict[str, JSON] = {"tool_calls": [draw(tool_call(i)) for i in ids]}
    shape = draw(st.sampled_from(["null", "absent", "text", "parts"]))
    if shape == "null":
        body["content"] = None
    elif shape != "absent":
        body["content"] = draw(texts) if shape == "text" else draw(content(text_part()))
    results = []
    for call_id in draw(st.permutations(ids)):
        result: dict[str, JSON] = {"tool_call_id": call_id, "content": draw(content(text_part()))}
        if draw(st.booleans()):
            result["name"] = draw(names)
        results.append(draw(message("tool", result)))
    return [draw(message("assistant", body)), *results]


@st.composite
def legacy_turn(draw: Draw) -> list[dict[str, JSON]]:
    """A deprecated function_call and the function message answering it."""
    name = draw(names)
    call = draw(shuffled({"name": name, "arguments": draw(st.just("{}") | texts)}))
    answer = {"role": "function", "name": name, "content": draw(st.none() | texts)}
    return [{"role": "assistant", "content": None, "function_call": call}, answer]


@st.composite
def turn(draw: Draw) -> list[dict[str, JSON]]:
    kind = draw(st.sampled_from(["user", "assistant", "tools", "tools", "legacy"]))
    if kind == "user":
        return [draw(message("user", {"content": draw(content(user_part()))}))]
    if kind == "assistant":
        return [draw(message("assistant", {"content": draw(content(text_part()))}))]
    return draw(tool_turn() if kind == "tools" else legacy_turn())


@st.composite
def message_lists(draw: Draw) -> list[dict[str, JSON]]:
    """A valid chat message list: an optional system prompt, then turns."""
    out: list[dict[str, JSON]] = []
    if draw(st.booleans()):
        role = draw(st.sampled_from(["system", "developer"]))
        out.append(draw(message(role, {"content": draw(content(text_part()))})))
    for chunk in draw(st.lists(turn(), min_size=1, max_size=6)):
        out.extend(chunk)
    return out


@st.composite
def tool_definition(draw: Draw) -> dict[str, JSON]:
    name = draw(names)
    if draw(st.integers(0, 4)) == 0:
        return {"type": "custom", "custom": {"name": name, "description": "free text"}}
    function: dict[str, JSON] = {"name": name}
    if draw(st.booleans()):
        function["description"] = draw(texts)
    if draw(st.booleans()):
        function["parameters"] = {"type": "object", "properties": {}}
    if draw(st.booleans()):
        function["strict"] = draw(st.booleans())
    return {"type": "function", "function": draw(shuffled(function))}


@st.composite
def bodies(draw: Draw) -> dict[str, JSON]:
    """A request body: messages plus the usual fields, in a drawn order."""
    out: dict[str, JSON] = {"model": "gpt-4o", "messages": draw(message_lists())}
    if draw(st.booleans()):
        out["tools"] = draw(st.lists(tool_definition(), min_size=1, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        out["functions"] = [{"name": draw(names), "parameters": {"type": "object"}}]
    for key, value in (("temperature", 0.2), ("tool_choice", "auto"), ("stream", False)):
        if draw(st.booleans()):
            out[key] = value
    return draw(shuffled(out))


payloads: st.SearchStrategy[JSON] = message_lists() | bodies()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=20,
)
chat_keys = st.sampled_from(
    [
        "role",
        "content",
        "name",
        "tool_calls",
        "tool_call_id",
        "function_call",
        "type",
        "text",
        "image_url",
        "url",
        "detail",
        "id",
        "function",
        "custom",
        "arguments",
        "input",
        "messages",
        "tools",
        "functions",
        "description",
        "parameters",
    ]
)
chat_values = st.sampled_from(
    ["user", "assistant", "tool", "function", "system", "text", "image_url", "custom", "auto"]
)
near_chat = st.recursive(
    json_values | chat_values,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(chat_keys, inner, max_size=5),
    max_leaves=30,
)
"""Chat-flavoured JSON, mostly malformed: parse must raise InvalidConversation or round-trip."""
near_messages = st.lists(
    st.builds(
        lambda role, rest: {"role": role, **rest},
        st.sampled_from(["system", "user", "assistant", "tool", "function", "robot"]),
        st.dictionaries(chat_keys.filter(lambda key: key != "role"), near_chat, max_size=4),
    ),
    max_size=4,
)
"""Message lists with plausible roles and chat-flavoured fields."""
near_tools = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["function", "custom"])},
        optional={"function": st.dictionaries(chat_keys, near_chat, max_size=4)},
    )
    | near_chat,
    max_size=3,
)
near_bodies = st.fixed_dictionaries(
    {"messages": near_messages},
    optional={"tools": near_tools, "functions": near_tools, "model": near_chat},
)
"""Request bodies with chat-flavoured, often malformed, tool definitions."""
