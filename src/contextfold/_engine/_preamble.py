"""Take compaction artifacts out of a conversation, and put new ones back in place.

Rules:
1. Reading: the card and summary messages `_artifacts` recognises (only those contextfold
   made) are lifted out, remembering the input index of the message that followed each
   (its anchor); recognised bridges are dropped (they are regenerated on writing);
   everything else stays, as ordinary text of its role.
2. Writing: the card goes right after the system prompt; the summary goes where the
   oldest folded turn was, which is right after the system prompt (and the card) unless
   protected turns, such as the user's task, came before it. Unchanged artifacts go back
   to their anchors.
3. The summary text is SUMMARY_INTRO then the summarizer's body; `summary_body`
   recovers the body for an anchored merge.
4. Card and summary share one user message when the format needs alternating turns and
   nothing stands between them; otherwise each has its own user message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .._messages import REF_PATTERN, SUMMARY_HEADER, Card, Message, Summary, Text, artifact_kind
from ._artifacts import Verifier, demote, recognise

SUMMARY_INTRO: Final = (
    f"{SUMMARY_HEADER} Summary of earlier turns; recall a ref with contextfold_recall.\n"
)
"""The intro of summaries made before span references (still read back)."""
_SPAN_INTRO: Final = "Summary of earlier turns (every folded message: "
_SPAN_LINE: Final = re.compile(
    re.escape(f"{SUMMARY_HEADER} {_SPAN_INTRO}") + r"(" + REF_PATTERN + r")\)"
)
BEFORE_ALL: Final = -1
"""Anchor that places an artifact right after the system prompt."""


@dataclass(slots=True)
class Split:
    """A conversation with its artifacts lifted out (rule 1)."""

    system: list[Message] = field(default_factory=list)
    body: list[Message] = field(default_factory=list)
    origins: list[int | None] = field(default_factory=list)
    card: str | None = None
    summary: str | None = None
    summary_anchor: int | None = None
    """Anchor of the summary message as it was."""
    artifacts: list[tuple[int, Message]] = field(default_factory=list)
    """(anchor, message) for each card or summary message as it was."""
    bridges: int = 0


def split(
    messages: Sequence[Message], archive: Verifier | None = None, *, alternate: bool = False
) -> Split:
    """System prefix, recognised artifacts and the rest (rule 1), in one pass."""
    out = Split()
    start = 0
    while start < len(messages) and messages[start].role in ("system", "developer"):
        start += 1
    out.system = list(messages[:start])
    tags = recognise(messages, start, archive, alternate=alternate)
    for index in range(start, len(messages)):
        tag = tags[index - start]
        if tag == "bridge":
            out.bridges += 1
        elif tag is not None:
            _lift(messages[index], index + 1, out)
        else:
            out.body.append(demote(messages[index]))
            out.origins.append(index)
    return out


def _lift(message: Message, anchor: int, out: Split) -> None:
    for part in message.parts:
        assert isinstance(part, Text | Card | Summary)
        if artifact_kind(part.text) == "card":
            out.card = part.text
        else:
            out.summary, out.summary_anchor = part.text, anchor
    out.artifacts.append((anchor, message))


def summary_body(text: str | None) -> str | None:
    """The summarizer's body inside a summary text (rule 3)."""
    if text is None:
        return None
    if text.startswith(SUMMARY_INTRO):
        return text[len(SUMMARY_INTRO) :]
    if _SPAN_LINE.match(text):
        return text.split("\n", 1)[1] if "\n" in text else ""
    return text[len(SUMMARY_HEADER) :].lstrip()


def summary_span(text: str | None) -> str | None:
    """The span reference a summary text names, if any."""
    match = _SPAN_LINE.match(text) if text else None
    return match.group(1) if match else None


def summary_text(body: str, span: str, recall: bool = True) -> str:
    """The full summary text for a summarizer's body and the span's reference; `recall`:
    the intro names the recall tool (`Policy.recall_hints`)."""
    hint = "; recall any ref with contextfold_recall." if recall else "."
    intro = f"{SUMMARY_HEADER} {_SPAN_INTRO}{span}){hint}"
    body = body.strip()
    return f"{intro}\n{body}" if body else intro


def placements(
    card: str | None, summary: str | None, summary_anchor: int, joined: bool
) -> list[tuple[int, Message]]:
    """(anchor, message) for a new card and summary (rules 2 and 4)."""
    if joined and card and summary and summary_anchor == BEFORE_ALL:
        return [(BEFORE_ALL, Message("user", (Card(card), Summary(summary))))]
    out: list[tuple[int, Message]] = []
    if card:
        out.append((BEFORE_ALL, Message("user", (Card(card),))))
    if summary:
        out.append((summary_anchor, Message("user", (Summary(summary),))))
    return out


def insert(
    body: Sequence[Message],
    origins: Sequence[int | None],
    items: Sequence[tuple[int, Message]],
) -> tuple[list[Message], list[int | None]]:
    """Put each (anchor, message) before the first body message from that anchor on."""
    pending = sorted(items, key=lambda item: item[0])
    out: list[Message] = []
    out_origins: list[int | None] = []
    last = BEFORE_ALL
    for message, origin in zip(body, origins, strict=True):
        last = origin if origin is not None else last
        while pending and pending[0][0] <= last:
            out.append(pending.pop(0)[1])
            out_origins.append(None)
        out.append(message)
        out_origins.append(origin)
    for _, message in pending:
        out.append(message)
        out_origins.append(None)
    return out, out_origins
