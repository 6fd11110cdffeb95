"""Prune and mask one message: the payload goes to the archive, a marker takes its place.

Rules:
1. Mask: a tool result becomes one marker (ids kept, so pairing stays valid); an image
   becomes a marker; assistant text over the prose limit becomes a marker. User text,
   tool calls, reasoning and existing artifacts are never touched. A marker keeps the
   extras of the text it replaces (still text on the wire), never those of an image.
2. Prune: a tool result whose text is over the limit keeps a head and a tail (cut at line
   breaks when one is near) around a marker that says how much was cut, all in one text
   part, so every wire format renders it the same way. Head and tail never overlap: a
   text that would lose nothing stays whole (only its images give way to markers).
3. Every marker names the archive reference of the whole original part. `ref` is a
   callback: the engine passes `archive.put`; cost estimates pass a function returning ""
   and add REF_TOKENS_MAX per marker, so estimates bound the real cost from above.
4. Markers state sizes in characters, so their text does not depend on the tokenizer.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .._archive_readable import readable
from .._messages import RECALLED_RE, Image, Marker, Message, Part, Text, ToolResult
from .._tokens._protocol import TokenCounter

Ref = Callable[[Part], str]


@dataclass(frozen=True, slots=True)
class PruneSize:
    """Prune sizes resolved against the budget."""

    over: int
    keep: int
    head_share: float
    recall: bool = True
    """The marker names the recall call that reads what was cut (`Policy.recall_hints`)."""
    recalls: frozenset[str] = frozenset()
    """Ids of the recall calls: only their results can be recalled pages (rule 2)."""


MASK_MIN_CHARS: Final = 120
"""Text this short is left alone: its marker would cost about as much."""
REF_TOKENS_MAX: Final = 11
"""Upper bound of the tokens a reference like `r0123456789` adds to a marker."""
_TEXTS: Final = (Text, Marker)
"""Parts whose text is payload (a tuple: `isinstance` takes it faster than `Text | Marker`)."""


def marker(ref: str, what: str) -> Marker:
    """A marker for `ref` with a one-line description (no `]` or newlines)."""
    what = what.replace("]", ")").replace("\n", " ")
    return Marker(ref, f"[cf:{ref} {what}]")


def _chars(parts: tuple[Part, ...]) -> int:
    """Characters of payload text (a marker is text too: its size is what it costs)."""
    return sum([len(p.text) for p in parts if isinstance(p, _TEXTS)])


def mask_message(message: Message, ref: Ref, prose_over: int, counter: TokenCounter) -> Message:
    """`message` with its maskable parts replaced by markers (rule 1)."""
    parts = tuple([_mask_part(p, message, ref, prose_over, counter) for p in message.parts])
    return _with_parts(message, parts)


def _with_parts(message: Message, parts: tuple[Part, ...]) -> Message:
    """`message` itself when `parts` are its own, else a copy holding them (built directly:
    `dataclasses.replace` costs more than the copy)."""
    if all(map(operator.is_, parts, message.parts)):  # as long: one part out per part in
        return message
    return Message(message.role, parts, name=message.name, extras=message.extras)


def _result_with(result: ToolResult, parts: tuple[Part, ...]) -> ToolResult:
    """`dataclasses.replace(result, parts=parts)`, built directly."""
    return ToolResult(
        result.call_id, parts, is_error=result.is_error, extras=result.extras, kind=result.kind
    )


def _mask_part(
    part: Part, message: Message, ref: Ref, prose_over: int, counter: TokenCounter
) -> Part:
    match part:
        case ToolResult():
            return _mask_result(part, ref)
        case Image():
            return marker(ref(part), "image masked")  # image extras describe an image
        case Text() if message.role == "assistant" and _long(part, prose_over, counter):
            return _keep_extras(
                marker(ref(part), f"assistant text masked ({len(part.text):,} chars)"), part
            )
        case _:
            return part


def _mask_result(result: ToolResult, ref: Ref) -> ToolResult:
    """One marker in place of the result's content, unless that would not be shorter."""
    size = _chars(result.parts)
    images = sum(isinstance(p, Image) for p in result.parts)
    if not images and size <= MASK_MIN_CHARS:
        return result  # already a marker, empty, or too short to be worth a marker
    what = f"tool result masked ({size:,} chars" + (f", {images} images" if images else "")
    return _result_with(result, (marker(ref(result), what + ")"),))


def _keep_extras(new: Marker, old: Part | None = None) -> Marker:
    if old is None or not old.extras:
        return new
    return Marker(new.ref, new.text, extras=old.extras, kind=new.kind)


def _long(part: Text, limit: int, counter: TokenCounter) -> bool:
    if len(part.text) <= limit:  # a token is at least one character
        return False
    return counter.count(Message("assistant", (part,))) > limit


def prune_message(message: Message, ref: Ref, size: PruneSize, counter: TokenCounter) -> Message:
    """`message` with every tool result over `size.over` tokens cut to `size.keep` (rule 2)."""
    parts = tuple(
        [
            prune_result(p, ref, size, counter) if isinstance(p, ToolResult) else p
            for p in message.parts
        ]
    )
    return _with_parts(message, parts)


def result_tokens(result: ToolResult, counter: TokenCounter) -> int:
    """Tokens of a tool result on its own (its message overhead included)."""
    return counter.count(Message("tool", (result,)))


def prune_result(
    result: ToolResult, ref: Ref, size: PruneSize, counter: TokenCounter
) -> ToolResult:
    text = "".join([p.text for p in result.parts if isinstance(p, _TEXTS)])
    if len(text) <= size.over or (size.over and _recalled_page(result, text, size)):
        return result  # a recalled page is not pruned again (only trimmed to fit)
    tokens = result_tokens(result, counter)
    if tokens <= size.over:
        return result
    keep_chars = max(1, int(len(text) * size.keep / tokens))
    head_chars = int(keep_chars * size.head_share)
    head, tail = _cut(text, head_chars, keep_chars - head_chars)
    cut = len(text) - len(head) - len(tail)
    if cut <= 0 and not any(isinstance(p, Image) for p in result.parts):
        return result  # nothing to cut: the text is about its keep (rule 2)
    images = "".join(
        "\n" + marker(ref(p), "image masked").text for p in result.parts if isinstance(p, Image)
    )
    others = tuple(p for p in result.parts if not isinstance(p, Text | Marker | Image))
    if cut <= 0:  # the tokens were the images': they go, the text stays whole
        return _result_with(result, (Text(text + images), *others))
    what = f"{cut:,} of {len(text):,} chars pruned from this tool result"
    if size.recall:
        what += f"; recall with offset={_recall_offset(result, head)} to read them"
    note = marker(ref(result), what)
    parts: tuple[Part, ...] = (Text(head + note.text + tail + images), *others)
    return _result_with(result, parts)


def _recalled_page(result: ToolResult, text: str, size: PruneSize) -> bool:
    """Whether `result` is a page the recall tool answered (rule 2)."""
    return result.call_id in size.recalls and RECALLED_RE.match(text) is not None


def _recall_offset(result: ToolResult, head: str) -> int:
    """Where the cut starts in the recalled text of `result` (its `[tool result ...]` line
    comes first)."""
    return len(readable(_result_with(result, ()))) + 1 + len(head)


def _cut(text: str, head_chars: int, tail_chars: int) -> tuple[str, str]:
    """Head and tail of `text`, moved to a nearby line break when there is one."""
    head = text[:head_chars]
    newline = head.rfind("\n")
    if newline >= head_chars * 0.8:
        head = head[: newline + 1]
    elif not head.endswith("\n"):
        head += "\n"
    tail = text[len(text) - tail_chars :] if tail_chars else ""
    newline = tail.find("\n")
    if 0 <= newline <= tail_chars * 0.2:
        tail = tail[newline:]
    elif tail and not tail.startswith("\n"):
        tail = "\n" + tail
    return head, tail
