"""Archived items as text a model can read (what recall answers with).

Rules:
1. Text is given as it is; a part as its text, or a one-line bracketed note for what has
   none (reasoning not shown, an image, opaque content); a message as `role: text`, its
   parts one per line.
2. A tool call shows its name, id and arguments; a tool result its call id, whether it is
   an error, then its parts.
3. An inline image shows its media type and size, never its data; a URL is cut to
   _URL_SHOWN characters.
"""

from __future__ import annotations

from typing import Final, assert_never

from ._messages import (
    Card,
    Image,
    Marker,
    Message,
    Opaque,
    Part,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
)


def readable(item: Message | Part | str) -> str:
    """Text a model can read: text as is, a part's text, a message as `role: text`."""
    match item:
        case str():
            return item
        case Message():
            who = item.role if item.name is None else f"{item.role} ({item.name})"
            return f"{who}: " + "\n".join(_part_text(p) for p in item.parts)
        case _:
            return _part_text(item)


def _part_text(part: Part) -> str:
    match part:
        case Text() | Marker() | Summary() | Card():
            return part.text
        case Reasoning():
            return f"[reasoning] {part.text}" if part.text else "[reasoning, not shown]"
        case Image():
            return _image_text(part)
        case ToolCall():
            return f"[tool call {part.name}, id {part.id}] {part.arguments}"
        case ToolResult():
            head = f"[tool result for {part.call_id}{', error' if part.is_error else ''}]"
            return "\n".join([head, *(_part_text(p) for p in part.parts)])
        case Opaque():
            kind = part.payload.get("type")
            return f"[{kind if isinstance(kind, str) else 'opaque'} content, not text]"
        case _:
            assert_never(part)


_URL_SHOWN: Final = 120


def _image_text(image: Image) -> str:
    source = image.source
    if source.startswith("data:"):
        media = source[5:].split(";", 1)[0].split(",", 1)[0] or "unknown type"
        return f"[image: inline {media}, {len(source)} characters]"
    shown = source if len(source) <= _URL_SHOWN else source[:_URL_SHOWN] + "..."
    return f"[image: {shown}]"
