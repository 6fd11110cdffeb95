"""Ways the Anthropic Messages API would reject a payload (invariant I1), from wire JSON.

Rules (every problem is reported, at its wire message index and field path):
1. Shape: a message list, or a body with a `messages` list (1 to 100,000 messages);
   `system` is a string or non-empty text blocks; tools are objects with unique names and
   custom tools have an `input_schema` object. Unknown fields are not checked.
2. Messages: role user or assistant (the Messages API takes no other role in `messages`:
   a system prompt goes in the body's `system`); content a string or a list of block
   objects, each passing the field and placement checks of `_anthropic_blocks`.
3. Turns: the first message is from the user; user and assistant alternate; only a final
   assistant message may be empty, and it may not end with whitespace.
4. Tools: every tool_use is answered by a tool_result with its id in the immediately
   following user message, where tool_results come before any other block; no tool_result
   lacks a tool_use in the immediately preceding assistant message; no tool_use id repeats.
5. Thinking: in an assistant message, thinking blocks precede its text and tool_use blocks
   (a server-tool result in between starts a new step, as with interleaved thinking); with
   `thinking` enabled, the assistant turn in progress (answered by the final tool_results)
   must start with a thinking block.
6. Caching: at most MAX_CACHE_BREAKPOINTS blocks carry a `cache_control` (tools, system
   blocks, message blocks and the content blocks of tool results all count).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from .._validation import Problem
from ._anthropic_blocks import THINKING, Block, block_issues, kind_of, server_result

MAX_MESSAGES: Final = 100_000
MAX_CACHE_BREAKPOINTS: Final = 4


@dataclass(frozen=True, slots=True)
class _Msg:
    index: int
    role: str | None
    blocks: list[tuple[str, Block]]
    """(field path, block) for every object block; string content is one text block."""


def validate(payload: object) -> list[Problem]:
    """Every problem the Messages API would reject `payload` for (empty when valid)."""
    problems: list[Problem] = []
    items, body = _unwrap(payload, problems)
    if body is not None:
        _check_system(body, problems)
        _check_tools(body, problems)
    if items is None:
        return problems
    last = len(items) - 1
    msgs = [_shape(item, i, i == last, problems) for i, item in enumerate(items)]
    _check_turns(msgs, problems)
    _check_pairing(msgs, problems)
    for msg in msgs:
        if msg.role == "assistant":
            _check_thinking_order(msg, problems)
    _check_active_turn(msgs, body, problems)
    _check_breakpoints(body, msgs, problems)
    return problems


def _unwrap(
    payload: object, problems: list[Problem]
) -> tuple[list[object] | None, Mapping[object, object] | None]:
    body = payload if isinstance(payload, dict) else None
    items = body.get("messages") if body is not None else payload
    if not isinstance(items, list):
        where = "messages" if body is not None else None
        kind = "a 'messages' list" if body is not None else "a message list or a request body"
        problems.append(Problem(None, where, f"expected {kind}, got {type(items).__name__}"))
        return None, body
    if not items:
        problems.append(Problem(None, "messages", "at least one message is required"))
    elif len(items) > MAX_MESSAGES:
        problems.append(Problem(None, "messages", f"at most {MAX_MESSAGES:,} messages allowed"))
    return items, body


def _check_system(body: Mapping[object, object], problems: list[Problem]) -> None:
    if "system" not in body:
        return
    system = body["system"]
    if isinstance(system, str):
        return
    if not isinstance(system, list):
        problems.append(Problem(None, "system", "must be a string or a list of text blocks"))
        return
    for k, block in enumerate(system):
        text = block.get("text") if isinstance(block, dict) else None
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(text, str):
            problems.append(Problem(None, f"system[{k}]", "system blocks must be text blocks"))
        elif not text:
            problems.append(Problem(None, f"system[{k}].text", "text must be non-empty"))


def _check_tools(body: Mapping[object, object], problems: list[Problem]) -> None:
    tools = body.get("tools")
    if "tools" not in body or (isinstance(tools, list) and not tools):
        return
    if not isinstance(tools, list):
        problems.append(Problem(None, "tools", "must be a list of tools"))
        return
    names: dict[str, int] = {}
    for k, tool in enumerate(tools):
        if not isinstance(tool, dict):
            problems.append(Problem(None, f"tools[{k}]", "a tool must be an object"))
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            problems.append(Problem(None, f"tools[{k}].name", "a tool needs a non-empty name"))
        elif name in names:
            reason = f"tool name {name!r} is already used by tools[{names[name]}]"
            problems.append(Problem(None, f"tools[{k}].name", reason))
        else:
            names[name] = k
        custom = tool.get("type") in (None, "custom")
        if custom and not isinstance(tool.get("input_schema"), dict):
            reason = "a custom tool needs an 'input_schema' object"
            problems.append(Problem(None, f"tools[{k}].input_schema", reason))


def _shape(item: object, index: int, final: bool, problems: list[Problem]) -> _Msg:
    """The message as blocks, reporting its own shape and block problems."""
    if not isinstance(item, dict):
        problems.append(Problem(index, None, "a message must be an object"))
        return _Msg(index, None, [])
    raw = item.get("role")
    role = raw if raw in ("user", "assistant", "system") else None
    if raw == "system":
        reason = "messages take only user and assistant; put system text in the body's 'system'"
        problems.append(Problem(index, "role", reason))
    elif role is None:
        problems.append(Problem(index, "role", f"unknown role {raw!r}; use user or assistant"))
    content = item.get("content")
    blocks = _blocks(content, index, problems)
    msg = _Msg(index, role, blocks)
    prefill = final and role == "assistant"
    if isinstance(content, str | list) and not content and not prefill:
        reason = "content must be non-empty (only a final assistant message may be empty)"
        problems.append(Problem(index, "content", reason))
    if isinstance(content, str) and not prefill and not content.strip():
        problems.append(Problem(index, "content", "text content must contain non-whitespace text"))
    for field, block in blocks if isinstance(content, list) else ():
        for suffix, reason in block_issues(block, role, prefill):
            problems.append(Problem(index, field + suffix, reason))
    if prefill:
        _check_trailing_space(msg, problems)
    return msg


def _blocks(content: object, index: int, problems: list[Problem]) -> list[tuple[str, Block]]:
    if isinstance(content, str):
        return [("content", {"type": "text", "text": content})]
    if not isinstance(content, list):
        problems.append(Problem(index, "content", "must be a string or a list of blocks"))
        return []
    blocks: list[tuple[str, Block]] = []
    for k, block in enumerate(content):
        if isinstance(block, dict):
            blocks.append((f"content[{k}]", block))
        else:
            problems.append(Problem(index, f"content[{k}]", "a block must be an object"))
    return blocks


def _check_trailing_space(msg: _Msg, problems: list[Problem]) -> None:
    if not msg.blocks:
        return
    field, block = msg.blocks[-1]
    text = block.get("text")
    if kind_of(block) == "text" and isinstance(text, str) and text != text.rstrip():
        reason = "final assistant content cannot end with trailing whitespace"
        problems.append(Problem(msg.index, field, reason))


def _check_turns(msgs: list[_Msg], problems: list[Problem]) -> None:
    previous: str | None = None
    for msg in msgs:
        if msg.role in (None, "system"):
            continue
        if previous is None and msg.role != "user":
            problems.append(Problem(msg.index, "role", "the first message must be from the user"))
        elif msg.role == previous:
            reason = f"two {previous} messages in a row; user and assistant must alternate"
            problems.append(Problem(msg.index, "role", reason))
        previous = msg.role


def _check_pairing(msgs: list[_Msg], problems: list[Problem]) -> None:
    first_use: dict[str, int] = {}
    for pos, msg in enumerate(msgs):
        before = msgs[pos - 1] if pos else None
        after = msgs[pos + 1] if pos + 1 < len(msgs) else None
        if msg.role == "assistant":
            _check_uses(msg, after, first_use, problems)
        elif msg.role == "user":
            _check_results(msg, before, problems)


def _check_uses(
    msg: _Msg, after: _Msg | None, first_use: dict[str, int], problems: list[Problem]
) -> None:
    answered = set(_ids(after, "tool_result", "tool_use_id")) if _is(after, "user") else set()
    for field, call_id in _ids_at(msg, "tool_use", "id"):
        if call_id in first_use:
            reason = f"tool_use id {call_id!r} was already used in message {first_use[call_id]}"
            problems.append(Problem(msg.index, f"{field}.id", reason))
        else:
            first_use[call_id] = msg.index
        if call_id not in answered:
            reason = f"tool_use {call_id!r} has no tool_result in the next message"
            problems.append(Problem(msg.index, field, reason))


def _check_results(msg: _Msg, before: _Msg | None, problems: list[Problem]) -> None:
    asked = set(_ids(before, "tool_use", "id")) if _is(before, "assistant") else set()
    answered: set[str] = set()
    other: str | None = None
    for field, block in msg.blocks:
        if kind_of(block) != "tool_result":
            other = other or field
            continue
        if other is not None:
            reason = f"tool_result blocks must come before other content (see {other})"
            problems.append(Problem(msg.index, field, reason))
        call_id = block.get("tool_use_id")
        if not isinstance(call_id, str):
            continue
        if call_id not in asked:
            reason = f"tool_result for {call_id!r} has no tool_use in the previous message"
            problems.append(Problem(msg.index, f"{field}.tool_use_id", reason))
        elif call_id in answered:
            reason = f"tool_use {call_id!r} is answered twice"
            problems.append(Problem(msg.index, f"{field}.tool_use_id", reason))
        answered.add(call_id)


def _check_thinking_order(msg: _Msg, problems: list[Problem]) -> None:
    output: str | None = None
    for field, block in msg.blocks:
        kind = kind_of(block)
        if kind in THINKING and output is not None:
            reason = f"{kind} must precede the text and tool_use blocks of its turn ({output})"
            problems.append(Problem(msg.index, field, reason))
        elif kind in ("text", "tool_use"):
            output = output or f"{kind} at {field}"
        elif server_result(kind):
            output = None


def _check_active_turn(
    msgs: list[_Msg], body: Mapping[object, object] | None, problems: list[Problem]
) -> None:
    config = body.get("thinking") if body is not None else None
    if not isinstance(config, dict) or config.get("type") != "enabled" or not msgs:
        return
    if not msgs[-1].blocks or any(kind_of(b) != "tool_result" for _, b in msgs[-1].blocks):
        return
    start: _Msg | None = None
    for msg in reversed(msgs):
        if msg.role == "user" and any(kind_of(b) != "tool_result" for _, b in msg.blocks):
            break
        if msg.role == "assistant":
            start = msg
    if start is not None and (not start.blocks or kind_of(start.blocks[0][1]) not in THINKING):
        reason = "with thinking enabled, the assistant turn in progress must start with thinking"
        problems.append(Problem(start.index, "content[0]", reason))


def _check_breakpoints(
    body: Mapping[object, object] | None, msgs: list[_Msg], problems: list[Problem]
) -> None:
    """Rule 6."""
    blocks: list[object] = [b for msg in msgs for _, b in msg.blocks]
    for key in ("tools", "system"):
        listed = body.get(key) if body is not None else None
        blocks += listed if isinstance(listed, list) else []
    found = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        found += _marked(block)
        inner = block.get("content")
        if kind_of(block) == "tool_result" and isinstance(inner, list):
            found += sum(map(_marked, inner))
    if found > MAX_CACHE_BREAKPOINTS:
        reason = (
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {found}."
        )
        problems.append(Problem(None, "cache_control", reason))


def _marked(block: object) -> bool:
    return isinstance(block, dict) and block.get("cache_control") is not None


def _is(msg: _Msg | None, role: str) -> bool:
    return msg is not None and msg.role == role


def _ids_at(msg: _Msg, kind: str, key: str) -> Iterator[tuple[str, str]]:
    for field, block in msg.blocks:
        value = block.get(key)
        if kind_of(block) == kind and isinstance(value, str):
            yield field, value


def _ids(msg: _Msg | None, kind: str, key: str) -> Iterator[str]:
    if msg is not None:
        for _, value in _ids_at(msg, kind, key):
            yield value
