"""The constraint card during a compaction: what it will hold, and its size bound.

Rules:
1. The card holds the rules of user messages that leave the verbatim view (folded or
   dropped), merged into the card already there; newer rules on a subject win and the
   older ones are archived.
2. Before planning, the card's size is bounded by the card every unprotected user
   message could produce, plus a reference's worth of tokens per rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .._messages import Card, Message, Text
from .._planning._plan import Protection
from .._planning._units import Unit, UnitKind
from .._statements._card import CardState, extract_rules, parse_card, render_card
from .._tokens._protocol import TokenCounter
from ._apply import Archiver
from ._transform import REF_TOKENS_MAX


def new_card(
    existing: str | None,
    sources: Sequence[tuple[Message, str]],
    archive: Archiver | None,
    refs: list[str] | None = None,
) -> tuple[str | None, int]:
    """The card text after adding the rules of `sources` (message, ref), and its size.

    Superseded rules are archived; their references are appended to `refs`.
    """
    state = parse_card(existing) if existing else CardState()
    for message, ref in sources:
        if message.role != "user":
            continue
        state, superseded = state.update(message, ref)
        if archive is not None:
            for rule in superseded:
                stored = archive.put(rule.text, label="superseded rule")
                if refs is not None:
                    refs.append(stored)
    if not state.rules:
        return None, 0
    return render_card(state), len(state.rules)


def _user_text(message: Message) -> str:
    return "\n".join(p.text for p in message.parts if isinstance(p, Text))


@lru_cache(maxsize=65_536)
def _states_rules(text: str) -> bool:
    """Whether user text states any rule (cached: histories repeat across compactions)."""
    return bool(text) and bool(extract_rules(Message("user", (Text(text),))))


def card_bound(
    existing: str | None,
    body: Sequence[Message],
    units: Sequence[Unit],
    protection: Sequence[Protection],
    counter: TokenCounter,
) -> int:
    """Upper bound of the card message's tokens after this compaction (rule 2)."""
    sources = [
        (body[i], "")
        for k, unit in enumerate(units)
        if unit.kind in (UnitKind.USER, UnitKind.EXCHANGE) and protection[k] is Protection.NONE
        for i in range(unit.start, unit.stop)
        if body[i].role == "user" and _states_rules(_user_text(body[i]))
    ]
    text, rules = new_card(existing, sources, None)
    if text is None:
        return 0
    return counter.count(Message("user", (Card(text),))) + REF_TOKENS_MAX * rules
