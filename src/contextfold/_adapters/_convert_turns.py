"""Restructure cleaned messages so the target's renderer accepts them and the payload validates.

Messages arrive cleaned (no extras, names, Opaque parts or foreign reasoning; images only in
user messages and tool results). Each list item keeps the index of the source message it
came from, so every change can be reported against the input.

Rules, OpenAI chat:
1. A message carrying ToolResults (an Anthropic user turn, a tool message) becomes one `tool`
   message per result, then a user message with the rest of its parts. Chat tool messages
   hold text only: images inside results move to that user message, which follows the
   whole run of tool messages. A result without text answers "".
2. An assistant message joins the assistant message before it when either makes tool
   calls, so every call is directly followed by its tool messages.
Rules, Anthropic:
3. Leading system/developer messages are the system prompt: the body's `system`. A bare
   list has no place for one (the Messages API takes only user and assistant messages):
   `convert` refuses a list that opens with one (`_convert` rule 6); a later one, in a
   list or a body, becomes user text in place, each text wrapped in `<system-reminder>`
   tags (REMINDER_OPEN) so it reads as no statement of the user's; tool messages become
   user messages.
4. Whitespace-only texts (outside tool results) and images Anthropic cannot take (data URLs
   that are not base64 jpeg/png/gif/webp) are dropped, then empty messages. Consecutive
   turns of one role are joined, tool results first. A conversation that does not start
   with a user turn (or has none left) gets the PLACEHOLDER user turn first. The final
   assistant text loses its trailing whitespace (the API rejects it).
5. Tool call ids become valid ([A-Za-z0-9_-]+, else `_`) and unique: a repeated id gets
   `_2`, `_3` ..., and the results in the next user turn follow the rename. Arguments that
   are not a JSON object are sent as `{"input": <the text>}`.
Rules, OpenAI Responses:
6. A message mixing parts becomes several items, in order: one message per run of content
   parts, a function_call per ToolCall, a function_call_output per ToolResult. In a body, a
   leading system message of one text part becomes `instructions`.
Every target: text part boundaries survive, through the target adapter's own layout keys.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal, NamedTuple, TypeAlias

from .._messages import (
    EMPTY,
    Card,
    Extras,
    Image,
    Marker,
    Message,
    Part,
    Role,
    Shape,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    tool_calls,
    tool_results,
)
from ._anthropic_parse import BASE64, CONTENT, SYSTEM
from ._openai_chat_layout import FORM
from ._openai_responses_parse import INSTRUCTIONS

PLACEHOLDER: Final = "(continued)"
"""Text of the user turn put before a conversation that starts without one (Anthropic)."""
WRAP_KEY: Final = "input"
"""Key under which Anthropic receives tool arguments that are not a JSON object."""
_ANTHROPIC_MEDIA: Final = ("image/jpeg", "image/png", "image/gif", "image/webp")
_INVALID_ID: Final = re.compile(r"[^A-Za-z0-9_-]")
_TEXTS: Final = (Text, Marker, Summary, Card)
REMINDER_OPEN: Final = "<system-reminder>"
REMINDER_CLOSE: Final = "</system-reminder>"
"""What a later system message's text is wrapped in as user text (rule 3): the tags Claude
Code uses for the same, which keep it apart from what the user said (the card reads tagged
blocks as pasted material, the ledger as no goal of theirs)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One thing conversion dropped, changed or added, at a source message index."""

    index: int | None
    """Index of the source message (None for body fields and tools)."""
    action: Literal["dropped", "changed", "added"]
    what: str


class Item(NamedTuple):
    """A message on its way to the target, with the index of the source message."""

    origin: int
    """Index of the source message."""
    message: Message


Restructure: TypeAlias = Callable[[list[Item], list[Change], Shape], list[Message]]


# --- OpenAI chat ---------------------------------------------------------------------------


def for_chat(items: list[Item], changes: list[Change], shape: Shape) -> list[Message]:
    """Rules 1 and 2."""
    out: list[Item] = []
    pending: list[Part] = []
    joins: dict[int, list[Message]] = {}
    """Messages joined into out[k], gathered so each join happens once (linear)."""
    for item in items:
        results = tool_results(item.message)
        if results:
            for result in results:
                text = tuple(p for p in result.parts if not isinstance(p, Image))
                if len(text) < len(result.parts):
                    changes.append(Change(item.origin, "changed", "tool result image sent as user"))
                    pending.extend(p for p in result.parts if isinstance(p, Image))
                tool = Message("tool", (replace(result, parts=text or (Text(""),)),))
                out.append(Item(item.origin, tool))
            pending.extend(p for p in item.message.parts if not isinstance(p, ToolResult))
            continue
        _flush(out, pending, item.origin)
        k = len(out) - 1
        if out and _calls_join([out[k].message, *joins.get(k, ())], item.message):
            joins.setdefault(k, []).append(item.message)
        else:
            out.append(item)
    _flush(out, pending, out[-1].origin if out else 0)
    for k, more in joins.items():
        out[k] = Item(out[k].origin, _joined([out[k].message, *more]))
    return [_chat_layout(item.message) for item in out]


def _flush(out: list[Item], pending: list[Part], index: int) -> None:
    if pending:
        out.append(Item(index, Message("user", tuple(pending))))
        pending.clear()


def _calls_join(previous: list[Message], message: Message) -> bool:
    """Whether `message` joins the assistant message made of `previous` (rule 2)."""
    both = previous[0].role == message.role == "assistant"
    return both and (bool(tool_calls(message)) or any(tool_calls(m) for m in previous))


def _chat_layout(message: Message) -> Message:
    parts = message.parts
    if message.role == "tool":
        parts = tool_results(message)[0].parts
    content = [p for p in parts if not isinstance(p, ToolCall)]
    return replace(message, extras={FORM: "list"}) if len(content) > 1 else message


# --- Anthropic -----------------------------------------------------------------------------


def for_anthropic(items: list[Item], changes: list[Change], shape: Shape) -> list[Message]:
    """Rules 3 to 5."""
    turns = _start_with_user(_join_turns(_anthropic_roles(items, changes, shape)), changes)
    turns = _unique_ids(turns, changes)
    if turns and turns[-1].message.role == "assistant":
        turns[-1] = Item(turns[-1].origin, _strip_end(turns[-1], changes))
    return [_anthropic_layout(item.message, shape) for item in turns]


def _anthropic_roles(items: list[Item], changes: list[Change], shape: Shape) -> list[Item]:
    out: list[Item] = []
    for index, message in items:
        parts = [p for p in (_anthropic_part(p, index, changes) for p in message.parts) if p]
        if not parts:
            changes.append(Change(index, "dropped", "message left empty"))
            continue
        leading = shape == "body" and (not out or out[-1].message.role == "system")
        role = _anthropic_role(message.role, leading=leading)
        if message.role in ("system", "developer") and role == "user":
            changes.append(Change(index, "changed", f"{message.role} message sent as user text"))
            parts = [_reminder(p) for p in parts]
        out.append(Item(index, Message(role, tuple(parts))))
    return out


def _reminder(part: Part) -> Part:
    """A later system message's text as user text that says what it is (rule 3)."""
    if type(part) is not Text:
        return part
    return replace(part, text=f"{REMINDER_OPEN}\n{part.text}\n{REMINDER_CLOSE}")


def _anthropic_role(role: Role, *, leading: bool) -> Role:
    """Rule 3: system messages before any other content are the system prompt."""
    if role in ("system", "developer"):
        return "system" if leading else "user"
    return "user" if role == "tool" else role


def _anthropic_part(part: Part, index: int, changes: list[Change]) -> Part | None:
    if isinstance(part, _TEXTS) and not part.text.strip():
        changes.append(Change(index, "dropped", "whitespace-only text"))
        return None
    if isinstance(part, Image) and not anthropic_image(part.source):
        changes.append(Change(index, "dropped", "image Anthropic cannot take"))
        return None
    if isinstance(part, ToolResult):
        inner = [p for p in part.parts if not isinstance(p, Image) or anthropic_image(p.source)]
        if len(inner) < len(part.parts):
            changes.append(Change(index, "dropped", "image Anthropic cannot take"))
        return replace(part, parts=tuple(inner))
    if isinstance(part, ToolCall) and not _is_object(part.arguments):
        changes.append(Change(index, "changed", f"arguments of {part.id!r} wrapped in an object"))
        return replace(part, arguments=json.dumps({WRAP_KEY: part.arguments}, ensure_ascii=False))
    return part


def anthropic_image(source: str) -> bool:
    """Whether Anthropic takes an image with this neutral source (a URL or base64 data)."""
    if not source.startswith("data:"):
        return True
    media, sep, _ = source[5:].partition(BASE64)
    return bool(sep) and media in _ANTHROPIC_MEDIA


def _is_object(arguments: str) -> bool:
    """Whether `arguments` is a JSON object (NaN and Infinity are not JSON)."""
    try:
        return isinstance(json.loads(arguments, parse_constant=_no_constant), dict)
    except (ValueError, RecursionError):
        return False


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _join_turns(items: list[Item]) -> list[Item]:
    """Consecutive turns of one role as one message, each run joined once (linear)."""
    runs: list[list[Item]] = []
    for item in items:
        role = item.message.role
        if runs and runs[-1][0].message.role == role != "system":
            runs[-1].append(item)
        else:
            runs.append([item])
    return [
        run[0] if len(run) == 1 else Item(run[0].origin, _joined([i.message for i in run]))
        for run in runs
    ]


def _joined(messages: list[Message]) -> Message:
    """One message with the parts of all, in order; in a user turn, tool results first."""
    parts = tuple(p for m in messages for p in m.parts)
    if messages[0].role == "user":
        parts = tuple(p for p in parts if isinstance(p, ToolResult)) + tuple(
            p for p in parts if not isinstance(p, ToolResult)
        )
    return Message(messages[0].role, parts)


def _start_with_user(items: list[Item], changes: list[Change]) -> list[Item]:
    lead = next((k for k, item in enumerate(items) if item.message.role != "system"), len(items))
    if lead < len(items) and items[lead].message.role == "user":
        return items
    index = items[lead].origin if lead < len(items) else items[-1].origin if items else 0
    return [*items[:lead], placeholder(index, changes), *items[lead:]]


def placeholder(index: int, changes: list[Change]) -> Item:
    """The PLACEHOLDER user turn, reported as added before source message `index`."""
    changes.append(Change(index, "added", "placeholder user turn"))
    return Item(index, Message("user", (Text(PLACEHOLDER),)))


def _unique_ids(items: list[Item], changes: list[Change]) -> list[Item]:
    used: set[str] = set()
    renamed: dict[str, deque[str]] = {}
    out: list[Item] = []
    for index, message in items:
        if message.role == "assistant":
            renamed = {}
            parts = [_fresh_call(p, used, renamed, index, changes) for p in message.parts]
        elif message.role == "user":
            parts = [_renamed_result(p, renamed) for p in message.parts]
            renamed = {}
        else:
            parts = list(message.parts)
        out.append(Item(index, Message(message.role, tuple(parts))))
    return out


def _fresh_call(
    part: Part, used: set[str], renamed: dict[str, deque[str]], index: int, changes: list[Change]
) -> Part:
    if not isinstance(part, ToolCall):
        return part
    base = _INVALID_ID.sub("_", part.id) or "call"
    fresh, n = base, 2
    while fresh in used:
        fresh, n = f"{base}_{n}", n + 1
    used.add(fresh)
    renamed.setdefault(part.id, deque()).append(fresh)
    if fresh == part.id:
        return part
    changes.append(Change(index, "changed", f"tool call id {part.id!r} sent as {fresh!r}"))
    return replace(part, id=fresh)


def _renamed_result(part: Part, renamed: Mapping[str, deque[str]]) -> Part:
    queue = renamed.get(part.call_id) if isinstance(part, ToolResult) else None
    if not queue or not isinstance(part, ToolResult):
        return part
    return replace(part, call_id=queue.popleft())


def _strip_end(item: Item, changes: list[Change]) -> Message:
    message = item.message
    last = message.parts[-1]
    if not isinstance(last, _TEXTS) or last.text == last.text.rstrip():
        return message
    changes.append(Change(item.origin, "changed", "trailing whitespace of the final text"))
    return replace(message, parts=(*message.parts[:-1], replace(last, text=last.text.rstrip())))


def _anthropic_layout(message: Message, shape: Shape) -> Message:
    parts = tuple(_result_layout(p) for p in message.parts)
    extras: dict[str, object] = {}
    if message.role == "system":
        extras[SYSTEM] = "top"
    if len(parts) == 1 and isinstance(parts[0], _TEXTS):
        extras[CONTENT] = "string"
    return Message(message.role, parts, extras=extras or EMPTY)


def _result_layout(part: Part) -> Part:
    if isinstance(part, ToolResult) and len(part.parts) > 1:
        return replace(part, extras={CONTENT: "list"})
    return part


# --- OpenAI Responses ----------------------------------------------------------------------

_TYPED_INPUT: Final[Extras] = {"type": "input_text"}


def for_responses(items: list[Item], changes: list[Change], shape: Shape) -> list[Message]:
    """Rule 6."""
    out: list[Message] = []
    for _, message in items:
        run: list[Part] = []
        role: Role = "user" if message.role == "tool" else message.role
        for part in message.parts:
            if isinstance(part, ToolCall | ToolResult):
                if run:
                    out.append(Message(role, tuple(run)))
                    run = []
                out.append(_item_for(part))
            else:
                run.append(part)
        if run:
            out.append(Message(role, tuple(run)))
    if shape == "body" and out and out[0].role == "system" and _one_text(out[0]):
        out[0] = replace(out[0], extras={INSTRUCTIONS: True})
    return out


def _one_text(message: Message) -> bool:
    return len(message.parts) == 1 and isinstance(message.parts[0], _TEXTS)


def _item_for(part: ToolCall | ToolResult) -> Message:
    if isinstance(part, ToolCall):
        return Message("assistant", (part,))
    parts = part.parts or (Text(""),)
    if len(parts) > 1:
        parts = tuple(
            replace(p, extras=_TYPED_INPUT) if isinstance(p, _TEXTS) else p for p in parts
        )
    return Message("tool", (replace(part, parts=parts),))
