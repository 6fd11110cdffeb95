"""Recall calls answered inside the proxy, so the client never sees the recall tool.

Rules:
1. An answer whose tool calls are all recall calls (text beside them allowed) is a recall
   round: the proxy appends the assistant's turn and one tool result per call to the
   request, answered from the archive with `cf.answer_recall`, and asks again.
2. Each answer is cut to the room the window has left (a recalled page states where it
   stops, so the model can ask for the rest); with no room left the answer says so. Pages
   are sized at `_CHARS_PER_TOKEN`, then the round is measured with the model's counter
   and its pages cut again while it does not fit: dense text (CJK, numbers) runs under
   two characters a token.
3. Rounds are bounded: the last one cannot call the recall tool, and recall calls still
   in an answer beside other tool calls are removed before the client sees it. A client
   whose `tool_choice` lets the model answer in text (absent, auto, none) gets the last
   round with `tool_choice` none. One whose choice forces a call of its own tools (chat
   and Responses `required`, a named tool, `allowed_tools` in required mode, Anthropic's
   `any` or `tool`) must get one: text alone is an answer it did not allow. That round
   keeps the client's choice and offers the client's own tools only (every provider
   accepts earlier calls of a tool the request no longer offers).
4. A client that declares the recall tool itself (an agent compacting with contextfold on
   its side) answers it from its own archive: a recall call is the proxy's only when the
   proxy's archive answers it, an answer holding any other call goes to the client as it
   is, and nothing is removed from what the client sees.
5. A chat answer's assistant turn goes back with its other fields (an OpenAI-compatible
   thinking model's `reasoning_content`, which DeepSeek requires on every assistant tool
   call message), without the ones a request refuses (`annotations`; `audio` but its id).
6. A Responses request with `store` false keeps nothing server side: a round sends back
   the answer's reasoning items only when they carry their `encrypted_content` (the API
   refuses a reasoning item it cannot read: "Item with id 'rs_...' not found").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import contextfold as cf

_CHARS_PER_TOKEN: Final = 2
"""Conservative: recalled code and JSON run at 2.5-4 characters a token."""
_MIN_ROOM: Final = 64
_TRIES: Final = 4
"""Times a round's pages are measured and cut before it answers that there is no room."""
_RESERVE: Final = 128
"""Tokens kept back for the round's own assistant turn, result wrappers and page headers."""
_ANSWER_ONLY: Final = frozenset({"annotations", "audio"})
"""Fields of a chat answer's message that a request's assistant message does not take as
they are (an audio answer goes back by its id alone)."""
_NO_CHOICE: Final[Mapping[str, object]] = {
    "openai-chat": "none",
    "openai-responses": "none",
    "anthropic": {"type": "none"},
}


def _calls(format: cf.Format, response: Mapping[str, Any]) -> list[tuple[str, str, object]]:
    """Every tool call in `response` as (id, name, arguments)."""
    if format == "openai-chat":
        choices = response.get("choices") or [{}]
        message = choices[0].get("message") or {}
        return [
            (c.get("id", ""), c["function"].get("name", ""), c["function"].get("arguments"))
            for c in message.get("tool_calls") or []
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        ]
    if format == "anthropic":
        blocks = response.get("content") or []
        return [
            (b.get("id", ""), b.get("name", ""), b.get("input"))
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
    return [
        (i.get("call_id", ""), i.get("name", ""), i.get("arguments"))
        for i in response.get("output") or []
        if isinstance(i, dict) and i.get("type") == "function_call"
    ]


def is_round(
    format: cf.Format, response: Mapping[str, Any], archive: cf.Archive | None = None
) -> bool:
    """Rule 1: at least one call and all of them recall calls; with `archive` (the client
    declared the recall tool, rule 4), only calls that archive answers."""
    calls = _calls(format, response)
    return bool(calls) and all(
        name == cf.RECALL_TOOL_NAME and (archive is None or _answers(archive, args))
        for _, name, args in calls
    )


def _answers(archive: cf.Archive, args: object) -> bool:
    """Whether `archive` holds what a recall call with `args` asks for (rule 4)."""
    given = _arguments(args)
    _, error = cf.answer_recall(archive, {**given, "offset": None, "limit": 1})
    return not error


def _arguments(args: object) -> dict[str, Any]:
    """A call's arguments as an object (a JSON string is read; anything else is none)."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {}
    return args if isinstance(args, dict) else {}


def has_recall(format: cf.Format, response: Mapping[str, Any]) -> bool:
    """Whether any tool call in `response` is a recall call."""
    return any(name == cf.RECALL_TOOL_NAME for _, name, _ in _calls(format, response))


def _assistant(
    format: cf.Format, response: Mapping[str, Any], stateless: bool = False
) -> list[object]:
    """The answer as items the next request carries (rule 5 for chat, 6 for Responses)."""
    if format == "openai-chat":
        message = (response.get("choices") or [{}])[0].get("message") or {}
        turn = {"role": "assistant", "content": message.get("content")}
        kept = {k: v for k, v in message.items() if v is not None and k not in _ANSWER_ONLY}
        audio = message.get("audio")
        if isinstance(audio, dict) and "id" in audio:
            kept["audio"] = {"id": audio["id"]}
        return [{**kept, **turn, "tool_calls": message.get("tool_calls")}]
    if format == "anthropic":
        return [{"role": "assistant", "content": response.get("content") or []}]
    output = response.get("output") or []
    return [i for i in output if not (stateless and _unreadable(i))]


def _unreadable(item: object) -> bool:
    """A reasoning item the API cannot read back without its stored response (rule 6)."""
    return (
        isinstance(item, dict)
        and item.get("type") == "reasoning"
        and not item.get("encrypted_content")
    )


def _result(format: cf.Format, call_id: str, text: str, error: bool) -> object:
    if format == "openai-chat":
        return {"role": "tool", "tool_call_id": call_id, "content": text}
    if format == "anthropic":
        return {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": error}
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def answer(
    format: cf.Format,
    response: Mapping[str, Any],
    archive: cf.Archive,
    room: int,
    *,
    model: str | None = None,
    stateless: bool = False,
) -> list[object]:
    """The items a recall round appends (rules 1 and 2), answers sharing `room` tokens
    as `model` counts them; `stateless`: the request has `store` false (rule 6)."""
    calls = _calls(format, response)
    share = (room - _RESERVE) // max(1, len(calls))
    limit = share * _CHARS_PER_TOKEN
    for _ in range(_TRIES):
        pages = [
            _answer(format, call_id, args, archive, room=share, limit=limit)
            for call_id, _, args in calls
        ]
        results = [result for result, _ in pages]
        if format == "anthropic":
            results = [{"role": "user", "content": results}]
        added = [*_assistant(format, response, stateless), *results]
        used = cf.count_tokens(added, model, format=format)
        if used <= room or share < _MIN_ROOM:
            return added
        longest = max(size for _, size in pages)
        limit = min(limit, longest) * room // used * 9 // 10
    return answer(format, response, archive, 0, model=model, stateless=stateless)


def _answer(
    format: cf.Format, call_id: str, args: object, archive: cf.Archive, *, room: int, limit: int
) -> tuple[object, int]:
    """One call's tool result, a page of at most `limit` characters, and its length."""
    if room < _MIN_ROOM:
        text = (
            f"{cf.RECALL_TOOL_NAME}: the context window has no room left for recalled text; "
            "answer with what the conversation already holds."
        )
        return _result(format, call_id, text, True), 0
    if isinstance(args, str):
        args = _arguments(args)
    if isinstance(args, dict):
        given = args.get("limit")
        fits = isinstance(given, int) and not isinstance(given, bool) and 0 < given < limit
        args = {**args, "limit": given if fits else max(1, limit)}
    text, error = cf.answer_recall(archive, args if isinstance(args, dict) else {})
    return _result(format, call_id, text, error), len(text)


def last_round(format: cf.Format, body: dict[str, Any], shared: bool) -> dict[str, Any]:
    """The request of the last round: no more recall calls (rule 3); `shared`: the client
    declared the recall tool itself (rule 4), so the tools it sent stay as they are."""
    tools = body.get("tools")
    own = [t for t in tools if shared or not _is_recall_tool(t)] if isinstance(tools, list) else []
    if own and forces_call(format, body.get("tool_choice")):
        return {**body, "tools": own}
    return {**body, "tool_choice": _NO_CHOICE[format]}


_FREE: Final = frozenset({"auto", "none"})
"""Choices that let the model answer in text: `auto` and `none`, as a string (OpenAI) or as
the type of an object (Anthropic)."""


def forces_call(format: cf.Format, choice: object) -> bool:
    """Whether `tool_choice` makes the model call a tool (rule 3)."""
    if isinstance(choice, str):
        return choice not in _FREE
    if not isinstance(choice, dict) or choice.get("type") in _FREE:
        return False
    if choice.get("type") == "allowed_tools":  # OpenAI: the mode says whether it must call
        inner = choice.get("allowed_tools") if format == "openai-chat" else choice
        return not isinstance(inner, dict) or inner.get("mode") != "auto"
    return True


def _is_recall_tool(tool: object) -> bool:
    if not isinstance(tool, dict):
        return False
    function = tool.get("function")
    name = function.get("name") if isinstance(function, dict) else tool.get("name")
    return name == cf.RECALL_TOOL_NAME


def strip(format: cf.Format, response: dict[str, Any]) -> dict[str, Any]:
    """`response` without its recall calls (rule 3); a finish that named tool use names a
    plain stop when no other call is left (as `_hide` rule 2 does for a stream)."""
    if format == "openai-chat":
        choices = [dict(c) for c in response.get("choices") or []]
        for choice in choices:
            message = dict(choice.get("message") or {})
            calls = [c for c in message.get("tool_calls") or [] if not _is_recall_call(c)]
            message["tool_calls"] = calls or None
            choice["message"] = message
            if not calls and choice.get("finish_reason") == "tool_calls":
                choice["finish_reason"] = "stop"
        return {**response, "choices": choices}
    key = "content" if format == "anthropic" else "output"
    kept = [b for b in response.get(key) or [] if not _is_recall_block(b)]
    stripped = {**response, key: kept}
    tools = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in kept)
    if format == "anthropic" and not tools and response.get("stop_reason") == "tool_use":
        stripped["stop_reason"] = "end_turn"
    return stripped


def _is_recall_call(call: object) -> bool:
    function = call.get("function") if isinstance(call, dict) else None
    return isinstance(function, dict) and function.get("name") == cf.RECALL_TOOL_NAME


def _is_recall_block(block: object) -> bool:
    return isinstance(block, dict) and block.get("name") == cf.RECALL_TOOL_NAME
