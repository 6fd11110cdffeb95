"""Which messages are compaction artifacts: only those contextfold made (one place).

Threat: text the user did not write (a tool result fetched from anywhere, the model
echoing it) shaped like a card, a summary or a marker. Parsing reads every text as
`Text`; this module alone decides, once per compaction, with evidence text cannot forge.

Rules:
1. Role: a card or summary is a whole user-role message: every part is text starting
   with CARD_HEADER or SUMMARY_HEADER (at most one of each), no name. Text in assistant,
   tool, system or developer messages, or inside a tool result (whatever the message's
   role), is never an artifact: it stays ordinary text of its role, and since only user
   text feeds the card, it can never become user state.
2. Position: the card only in the preamble, the run of artifact messages right after the
   system prefix, where contextfold puts it; the summary there or later (it goes where
   the oldest folded turn was); a second card or summary is ordinary text. So a user who
   pastes a card-shaped text later in the conversation wrote user text: the card reads
   its sentences like any other user statement (the user's own text is the user's).
3. Proof: every card and summary contextfold makes is archived (`vouch`), and so is the
   VOUCHED note. An archive holding VOUCHED has seen this history compacted: it vouches,
   and a candidate counts only if the archive holds its exact text. An archive without
   VOUCHED (the fresh in-memory archive of a stateless caller who re-sends our output to
   a later compact(), maybe in another process) cannot vouch; rules 1-2 decide alone, so
   the card's continuity and I7 hold for such callers. Mixing archives (output made with
   one, compacted again with another that vouches for other histories) demotes our card
   to user text: its rules come back from its sentences. No keyed digest: it would need
   a secret that stateless calls do not have, add tokens to every artifact, and inside
   rules 1-2 only the user's own messages are left, whose text is the user's anyway.
4. Bridges (formats whose turns alternate): exactly the bridge text over the archived
   bridge note, in a place where `add_bridges` would put the same message back. They are
   dropped and regenerated; a message that is not one is never dropped.
5. Markers need no recognition: they are short text, counted and cut like any text, so a
   marker-shaped tool result escapes nothing. Card and Summary parts made by a caller
   (public types) in any other place are demoted to Text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import cache
from typing import Final, Literal, Protocol, TypeAlias

from .._archive import ref_of
from .._messages import (
    BRIDGE_NOTE,
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
    artifact_kind,
)
from ._shape import BRIDGE_ARCHIVED
from ._transform import marker

Tag: TypeAlias = Literal["card", "summary", "both", "bridge"]
VOUCHED: Final = (
    "contextfold: this archive holds the cards and summaries contextfold made for the "
    "histories it compacted."
)
"""Stored beside the first artifact an archive receives (rule 3)."""


class Verifier(Protocol):
    """What recognition asks of the archive (Archive has it)."""

    def holds(self, item: Message | Part | str) -> bool:
        """Whether the archive stores `item`."""
        ...


class Voucher(Verifier, Protocol):
    """An archive that can also store artifacts."""

    def put(self, item: Message | Part | str, *, label: str | None = None) -> str:
        """Store `item`; return its reference."""
        ...


def vouch(archive: Voucher, part: Card | Summary) -> str:
    """Archive an artifact contextfold made, so a later compaction can prove it (rule 3)."""
    archive.put(VOUCHED, label="contextfold artifacts")
    return archive.put(type(part)(part.text), label=f"contextfold {part.kind}")


@cache
def bridge_text() -> str:
    """The text of every bridge: a marker over the archived bridge note."""
    return marker(ref_of(BRIDGE_ARCHIVED), BRIDGE_NOTE).text


def recognise(
    messages: Sequence[Message], start: int, archive: Verifier | None, *, alternate: bool
) -> list[Tag | None]:
    """A tag per message from `start` on (None: ordinary), by rules 1-4."""
    vouches = archive is not None and archive.holds(VOUCHED)
    tags: list[Tag | None] = []
    preamble, seen = True, set[str]()
    for i in range(start, len(messages)):
        message = messages[i]
        kinds = _candidate(message) if message.role == "user" else _NO_KINDS
        tag: Tag | None = None
        if kinds and not (seen & kinds) and (preamble or "card" not in kinds):
            if not vouches or _proven(message, archive):
                tag = "both" if len(kinds) == 2 else "card" if "card" in kinds else "summary"
                seen |= kinds
        elif alternate and _is_bridge(messages, i, start, tags):
            tag = "bridge"
        preamble = preamble and tag is not None
        tags.append(tag)
    return tags


_NO_KINDS: Final[frozenset[str]] = frozenset()


def _candidate(message: Message) -> AbstractSet[str]:
    """The artifact kinds of a whole user-role artifact message (rule 1); empty if none."""
    if message.role != "user" or message.name is not None or not message.parts:
        return _NO_KINDS
    kinds: list[str] = []
    for part in message.parts:
        if not isinstance(part, Text | Card | Summary):
            return _NO_KINDS
        kind = artifact_kind(part.text)
        if kind is None:
            return _NO_KINDS
        kinds.append(kind)
    return set(kinds) if len(set(kinds)) == len(kinds) else _NO_KINDS


def _proven(message: Message, archive: Verifier | None) -> bool:
    if archive is None:
        return False
    for part in message.parts:
        assert isinstance(part, Text | Card | Summary)
        made = Card(part.text) if artifact_kind(part.text) == "card" else Summary(part.text)
        if not archive.holds(made):
            return False
    return True


def _is_bridge(messages: Sequence[Message], i: int, start: int, tags: Sequence[Tag | None]) -> bool:
    """Rule 4: the bridge text, where add_bridges would put it back."""
    message = messages[i]
    parts = message.parts
    if len(parts) != 1 or not isinstance(parts[0], Text | Marker) or message.name is not None:
        return False
    if parts[0].text != bridge_text() or i + 1 >= len(messages):
        return False
    after = messages[i + 1].role
    if message.role not in ("user", "assistant") or after not in ("user", "assistant"):
        return False
    if after == message.role:
        return False
    for j in range(i - 1, start - 1, -1):
        role = messages[j].role
        if tags[j - start] != "bridge" and role in ("user", "assistant"):
            return role == after
    return after == "assistant"


def demote(message: Message) -> Message:
    """`message` with caller-made Card and Summary parts as Text (rule 5)."""
    parts = message.parts
    if _UNTYPED.issuperset(map(type, parts)) or not any(map(_typed, parts)):
        return message
    return dataclasses.replace(message, parts=tuple(_demoted(p) for p in parts))


_UNTYPED: Final = frozenset({Text, ToolCall, Image, Reasoning, Opaque, Marker})
"""Part classes that are no Card or Summary (exactly these: the common case, seen at once)."""


def _typed(part: Part, *, markers: bool = False) -> bool:
    if isinstance(part, ToolResult):
        parts = part.parts
        if not markers and _UNTYPED.issuperset(map(type, parts)):
            return False
        return any(_typed(p, markers=markers) for p in parts)
    return isinstance(part, Card | Summary) or (markers and isinstance(part, Marker))


def _demoted(part: Part, *, markers: bool = False) -> Part:
    if isinstance(part, Card | Summary) or (markers and isinstance(part, Marker)):
        return Text(part.text, extras=part.extras)
    if isinstance(part, ToolResult) and _typed(part, markers=markers):
        parts = tuple(_demoted(p, markers=markers) for p in part.parts)
        return dataclasses.replace(part, parts=parts)
    return part


def as_text(message: Message) -> Message:
    """`message` with every artifact part (markers too) as the Text it renders to."""
    if not any(_typed(p, markers=True) for p in message.parts):
        return message
    parts = tuple(_demoted(p, markers=True) for p in message.parts)
    return dataclasses.replace(message, parts=parts)


def same_messages(first: Sequence[Message], second: Sequence[Message]) -> bool:
    """Whether two message lists render the same (artifact parts compare as their text)."""
    return len(first) == len(second) and all(
        a is b or a == b or as_text(a) == as_text(b) for a, b in zip(first, second, strict=True)
    )
