"""Placeholder constraint card (the real one is being written): no rules are detected."""

from __future__ import annotations

from dataclasses import dataclass

from ._messages import CARD_HEADER, Message


@dataclass(frozen=True, slots=True)
class Rule:
    """A user-stated rule, kept verbatim."""

    text: str
    subject: str
    source: str


@dataclass(frozen=True, slots=True)
class CardState:
    """The rules carried so far."""

    rules: tuple[Rule, ...] = ()

    def update(self, message: Message, source: str) -> tuple[CardState, list[Rule]]:
        """Add the rules `message` states (none in this placeholder)."""
        return self, []


def render_card(state: CardState) -> str:
    """The card text."""
    return CARD_HEADER + "\n" + "\n".join(f"- {r.text}" for r in state.rules)


def parse_card(text: str) -> CardState:
    """Inverse of render_card."""
    lines = [ln[2:] for ln in text.splitlines()[1:] if ln.startswith("- ")]
    return CardState(tuple(Rule(t, t, "") for t in lines))
