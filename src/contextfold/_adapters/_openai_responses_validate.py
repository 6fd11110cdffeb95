"""Ways the Responses API would reject an `input` (invariant I1 for Responses).

Rules (every problem is reported, in item order):
1. Each item parses (known roles, string ids, names and arguments, well-formed content
   parts); an assistant message's content parts are output_text or refusal.
2. Each function_call has a function_call_output with the same call_id later in the input,
   matched per occurrence (first unanswered call first); likewise custom_tool_call and
   custom_tool_call_output. An output without an earlier unanswered call is an orphan,
   except when the body continues a stored response (`previous_response_id` or
   `conversation`), or an item_reference before it may be the call: the input cannot
   show those calls.
3. A reasoning item carries `id` and `summary` and is immediately followed by the item it
   belongs to: one the model produced ("assistant" role: a message, a tool call, another
   reasoning item ...), never a user message, a tool output or the end of the input
   (API error "Item ... of type 'reasoning' was provided without its required following
   item").
4. A body with `store` false keeps nothing server side and looks nothing up (unless it
   continues a stored response): a reasoning item is read from its `encrypted_content`,
   so one without it is refused ("Item with id 'rs_...' not found. Items are not
   persisted when `store` is set to false").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Final

from .._errors import InvalidConversation
from .._validation import Problem
from ._openai_responses_parse import parse_item, parse_tool, role_of_type

_ANSWERS: Final[Mapping[str, str]] = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
}
_ANSWERED: Final[Mapping[str, str]] = {output: call for call, output in _ANSWERS.items()}
_ASSISTANT_PARTS: Final[frozenset[str]] = frozenset({"output_text", "refusal"})
_REASONING_FOLLOWER: Final = (
    "Item {id} of type 'reasoning' was provided without its required following item: {why}; "
    "keep a reasoning item directly before the call or message it produced"
)


def validate(payload: object) -> list[Problem]:
    """Every problem the Responses API would reject `payload` for (empty when valid)."""
    problems: list[Problem] = []
    items, stateful = _items(payload, problems)
    for index, item in enumerate(items):
        problems.extend(_item_problems(item, index))
    problems.extend(_pairing(items, stateful))
    problems.extend(_reasoning_followers(items))
    if isinstance(payload, Mapping) and payload.get("store") is False and not stateful:
        problems.extend(_unreadable_reasoning(items))
    return sorted(problems, key=lambda p: -1 if p.index is None else p.index)


def _items(payload: object, problems: list[Problem]) -> tuple[list[object], bool]:
    """The input items, and whether the body continues a stored response."""
    if isinstance(payload, list):
        return payload, False
    if not isinstance(payload, Mapping):
        kind = type(payload).__name__
        problems.append(Problem(None, None, f"expected a list of items or a body, got {kind}"))
        return [], False
    problems.extend(_body_problems(payload))
    raw = payload.get("input")
    return (raw if isinstance(raw, list) else []), _stored(payload)


def hides_calls(payload: object) -> bool:
    """True when calls the input cannot show may be answered in it (rule 2): the body
    continues a stored response, or an item_reference may stand for a call."""
    if isinstance(payload, Mapping):
        if _stored(payload):
            return True
        payload = payload.get("input")
    return isinstance(payload, list) and any(map(is_reference, payload))


def _stored(body: Mapping[str, object]) -> bool:
    return stored_field(body) is not None


def stored_field(body: Mapping[str, object]) -> str | None:
    """The body field naming server-side state the provider puts before the input, if any."""
    return next(
        (k for k in ("previous_response_id", "conversation") if body.get(k) is not None), None
    )


def is_reference(item: object) -> bool:
    """True for an item_reference (whose `type` may be left out)."""
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type")
    return kind == "item_reference" or (kind is None and "role" not in item and "id" in item)


def _body_problems(body: Mapping[str, object]) -> list[Problem]:
    problems: list[Problem] = []
    raw = body.get("input")
    if not isinstance(raw, str | list):
        problems.append(Problem(None, "input", "'input' must be a string or a list of items"))
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        problems.append(Problem(None, "instructions", "'instructions' must be a string"))
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        problems.append(Problem(None, "tools", "'tools' must be a list"))
    for position, tool in enumerate(tools if isinstance(tools, list) else []):
        try:
            parse_tool(tool, position)
        except InvalidConversation as error:
            problems.append(Problem(None, error.field, error.reason))
    return problems


def _item_problems(item: object, index: int) -> list[Problem]:
    try:
        parse_item(item, index)
    except InvalidConversation as error:
        return [Problem(index, error.field, error.reason)]
    assert isinstance(item, Mapping)
    kind = item.get("type")
    if kind == "reasoning":
        if isinstance(item.get("id"), str):
            return []
        return [
            Problem(index, "id", "Missing required parameter: 'id' (a reasoning item needs it)")
        ]
    content = item.get("content")
    if kind not in (None, "message") or item.get("role") != "assistant":
        return []
    return [
        Problem(
            index,
            f"content[{i}].type",
            f"Invalid value: {part.get('type')!r}. Supported values are: 'output_text' and "
            "'refusal' (assistant content)",
        )
        for i, part in enumerate(content if isinstance(content, list) else [])
        if isinstance(part, Mapping) and part.get("type") not in _ASSISTANT_PARTS
    ]


def _pairing(items: list[object], stateful: bool) -> list[Problem]:
    """Rule 2: calls and outputs matched per occurrence."""
    problems: list[Problem] = []
    waiting: dict[tuple[str, str], deque[int]] = {}
    for index, item in enumerate(items):
        stateful = stateful or is_reference(item)
        kind = item.get("type") if isinstance(item, Mapping) else None
        call_id = item.get("call_id") if isinstance(item, Mapping) else None
        if not isinstance(kind, str) or not isinstance(call_id, str):
            continue
        if kind in _ANSWERS:
            waiting.setdefault((kind, call_id), deque()).append(index)
        elif kind in _ANSWERED:
            calls = waiting.get((_ANSWERED[kind], call_id))
            if calls:
                calls.popleft()
            elif not stateful:
                reason = (
                    f"{kind} for call_id {call_id!r} has no earlier unanswered "
                    f"{_ANSWERED[kind]} with that call_id"
                )
                problems.append(Problem(index, "call_id", reason))
    for (kind, call_id), calls in waiting.items():
        for index in calls:
            reason = (
                f"No tool output found for {kind} {call_id!r}: add a {_ANSWERS[kind]} "
                "item with that call_id after it"
            )
            problems.append(Problem(index, "call_id", reason))
    return problems


def _reasoning_followers(items: list[object]) -> list[Problem]:
    """Rule 3: each reasoning item is directly followed by a model-produced item."""
    problems: list[Problem] = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or item.get("type") != "reasoning":
            continue
        item_id = item.get("id")
        if index + 1 == len(items):
            why = "it is the last input item"
        elif not _produced_by_model(items[index + 1]):
            why = f"item {index + 1} after it is not an output of the model"
        else:
            continue
        problems.append(Problem(index, None, _REASONING_FOLLOWER.format(id=repr(item_id), why=why)))
    return problems


def _unreadable_reasoning(items: list[object]) -> list[Problem]:
    """Rule 4: with `store` false, each reasoning item carries its encrypted_content."""
    return [
        Problem(
            index,
            "encrypted_content",
            f"Item with id {item.get('id')!r} not found. Items are not persisted when `store` "
            "is set to false: send the reasoning item with its encrypted_content (request it "
            "with include=['reasoning.encrypted_content']) or remove it",
        )
        for index, item in enumerate(items)
        if isinstance(item, Mapping)
        and item.get("type") == "reasoning"
        and not (isinstance(item.get("encrypted_content"), str) and item["encrypted_content"])
    ]


def _produced_by_model(item: object) -> bool:
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type")
    if kind is None or kind == "message":
        return item.get("role") == "assistant" or ("role" not in item and "id" in item)
    return isinstance(kind, str) and role_of_type(kind) == "assistant"
