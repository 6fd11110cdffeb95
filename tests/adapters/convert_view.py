"""What cross-format conversion promises to keep, as a comparable view of a Conversation.

A view is the list of turns (runs of messages of one role, tool results counted as the
user's) with their texts and images in order, tool calls (id, name, arguments) and tool
results (call id, texts). It leaves out what `contextfold.convert` documents it drops:
extras, names, Opaque parts, reasoning, `is_error`, empty texts, images outside user turns,
the order of texts relative to calls inside one turn (chat puts text first) and the
placeholder user turn (added when converting to Anthropic). Images in tool results count
with the user turn's content (chat moves them there).

Going through Anthropic (`via="anthropic"`) also accounts for its documented changes:
whitespace-only texts, images it cannot take and image `detail` go; later system messages
(and, in a bare list, every one) become user text in `<system-reminder>` tags; arguments
compare as JSON values, non-objects wrapped under "input"; the final assistant text loses
its trailing whitespace; call ids compare by pairing (which call a result answers), as Anthropic
renames repeated or invalid ones (`anthropic_ids` says when they must come back verbatim).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from contextfold import (
    Card,
    Conversation,
    Format,
    Image,
    Marker,
    Message,
    Summary,
    Text,
    ToolCall,
    ToolResult,
)
from contextfold._adapters._convert_turns import PLACEHOLDER, WRAP_KEY, anthropic_image

_TEXTS = (Text, Marker, Summary, Card)
_ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]+")


@dataclass
class Turn:
    role: str
    content: list[tuple[str, ...]] = field(default_factory=list)
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    results: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.content or self.calls or self.results)


def view(conversation: Conversation, via: Format) -> list[Turn]:
    """The turns `conversation` shows, as conversion through `via` keeps them."""
    anthropic = via == "anthropic"
    turns: list[Turn] = []
    started = anthropic and conversation.shape == "list"  # a bare list has no system prompt
    for message in conversation.messages:
        role = _role(message, started, anthropic)
        turn = _turn(message, role, anthropic)
        if turn.empty():
            continue
        started = started or role != "system"
        if turns and turns[-1].role == role:
            _extend(turns[-1], turn)
        else:
            turns.append(turn)
    turns = [t for t in turns if t.content != [("text", PLACEHOLDER)] or t.results]
    if anthropic:
        _strip_final(turns)
        _number_ids(turns)
    return turns


def _role(message: Message, started: bool, anthropic: bool) -> str:
    if message.role in ("system", "developer"):
        return "user" if anthropic and started else "system"
    return "user" if message.role == "tool" else message.role


def _turn(message: Message, role: str, anthropic: bool) -> Turn:
    turn = Turn(role)
    reminder = anthropic and role == "user" and message.role in ("system", "developer")
    for part in message.parts:
        if isinstance(part, _TEXTS) and _kept_text(part.text, anthropic):
            wrapped = reminder and type(part) is Text  # `_convert_turns` rule 3
            text = f"<system-reminder>\n{part.text}\n</system-reminder>" if wrapped else part.text
            turn.content.append(("text", text))
        elif isinstance(part, Image) and message.role == "user":
            _add_image(turn, part, anthropic)
        elif isinstance(part, ToolCall):
            turn.calls.append((part.id, part.name, _arguments(part.arguments, anthropic)))
        elif isinstance(part, ToolResult):
            texts = tuple(p.text for p in part.parts if isinstance(p, _TEXTS) and p.text)
            turn.results.append((part.call_id, texts))
            for inner in part.parts:
                if isinstance(inner, Image):
                    _add_image(turn, inner, anthropic)
    return turn


def _kept_text(text: str, anthropic: bool) -> bool:
    return bool(text.strip()) if anthropic else bool(text)


def _add_image(turn: Turn, image: Image, anthropic: bool) -> None:
    if not anthropic:
        turn.content.append(("image", image.source, str(image.detail)))
    elif anthropic_image(image.source):
        turn.content.append(("image", image.source))


def _arguments(arguments: str, anthropic: bool) -> str:
    if not anthropic:
        return arguments
    try:
        value = json.loads(arguments, parse_constant=_no_constant)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        value = {WRAP_KEY: arguments}
    return json.dumps(value, sort_keys=True)


def _no_constant(name: str) -> object:
    raise ValueError(name)


def _extend(turn: Turn, more: Turn) -> None:
    turn.content += more.content
    turn.calls += more.calls
    turn.results += more.results


def _strip_final(turns: list[Turn]) -> None:
    last = turns[-1] if turns else None
    if last is None or last.role != "assistant" or last.calls or not last.content:
        return
    if last.content[-1][0] == "text":
        last.content[-1] = ("text", last.content[-1][1].rstrip())


def call_ids(conversation: Conversation) -> list[str]:
    """Every tool call id, in order."""
    return [p.id for m in conversation.messages for p in m.parts if isinstance(p, ToolCall)]


def anthropic_ids(ids: list[str]) -> bool:
    """Whether Anthropic takes these call ids as they are (valid and unique)."""
    return len(ids) == len(set(ids)) and all(_ANTHROPIC_ID.fullmatch(i) for i in ids)


def _number_ids(turns: list[Turn]) -> None:
    """Replace call ids by call numbers, results by the number of the call they answer."""
    latest: dict[str, str] = {}
    count = 0
    for turn in turns:
        for k, (call_id, name, arguments) in enumerate(turn.calls):
            latest[call_id] = f"#{count}"
            turn.calls[k] = (latest[call_id], name, arguments)
            count += 1
        turn.results = [(latest.get(i, i), texts) for i, texts in turn.results]
