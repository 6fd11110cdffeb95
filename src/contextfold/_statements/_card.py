"""The constraint card: the user's rules, verbatim, carried after the system prompt.

Rules:
1. Only user-authored text creates or changes rules: `Text` parts of user messages, and of
   messages the caller pins. Tool results are data and are never read; assistant text
   never creates rules (unless the caller pins the message).
2. A rule is the user's sentence verbatim (list bullets and outer spaces removed).
3. Same normalized text: a duplicate, nothing changes. Same subject key (see
   `_cues`): the newer rule takes the older one's place and the older is returned
   as superseded, so the engine can archive it. Order is stable; re-feeding the same
   messages in the same order gives the same card.
4. `render_card` and `parse_card` invert each other exactly: a rule's subject is a pure
   function of its text, and its source (an archive ref) is shown after it when known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .._messages import CARD_HEADER, REF_PATTERN, Message, Text
from ._cues import OVERRIDE_ONLY, classify, subject_of
from ._facts import normalize, outside_quotes, sentences

__all__ = ["CARD_INTRO", "CardState", "Rule", "extract_rules", "parse_card", "render_card"]

CARD_INTRO: Final = "Rules and notes the user set; they apply until the user changes them:"


@dataclass(frozen=True, slots=True)
class Rule:
    """One user rule: the sentence verbatim, what it is about, where it was said."""

    text: str
    subject: str
    """Supersession key: a newer rule with the same subject replaces this one."""
    source: str = ""
    """Archive ref of the message that stated it, or '' when unknown."""


def _candidates(message: Message, *, pinned: bool) -> list[tuple[str, bool]]:
    """(sentence, override_only) for each rule-like sentence the message's author wrote."""
    if message.role != "user" and not pinned:
        return []
    out: list[tuple[str, bool]] = []
    for part in message.parts:
        if not isinstance(part, Text):
            continue
        for sentence in sentences(outside_quotes(part.text).replace("###STOP###", "")):
            kind = classify(sentence)
            if kind is not None:
                out.append((sentence, kind in OVERRIDE_ONLY))
    return out


def extract_rules(message: Message, source: str = "", *, pinned: bool = False) -> list[Rule]:
    """The rules `message` states on its own (overrides need a rule to replace, see update)."""
    return [
        Rule(text, subject_of(text), source)
        for text, override in _candidates(message, pinned=pinned)
        if not override
    ]


@dataclass(frozen=True, slots=True)
class CardState:
    """The rules in force, in the order they were first stated."""

    rules: tuple[Rule, ...] = ()

    def update(
        self, message: Message, source: str = "", *, pinned: bool = False
    ) -> tuple[CardState, list[Rule]]:
        """The state after `message`, and the rules it superseded (oldest first)."""
        rules = list(self.rules)
        superseded: list[Rule] = []
        for text, override in _candidates(message, pinned=pinned):
            rule = Rule(text, subject_of(text), _clean_source(source))
            old = _apply(rules, rule, override=override)
            if old is not None and old in self.rules:
                superseded.append(old)
        if rules == list(self.rules):
            return self, []
        return CardState(tuple(rules)), superseded


def _clean_source(source: str) -> str:
    return source if _REF.fullmatch(source) else ""


def _apply(rules: list[Rule], rule: Rule, *, override: bool) -> Rule | None:
    """Add or substitute `rule` in place; returns the rule it replaced, if any."""
    key = normalize(rule.text)
    if any(normalize(r.text) == key for r in rules):
        return None
    for index, old in enumerate(rules):
        if old.subject == rule.subject:
            rules[index] = rule
            return old
    if not override:
        rules.append(rule)
    return None


# --- text form ---------------------------------------------------------------------------------

_REF: Final = re.compile(REF_PATTERN)
_LINE: Final = re.compile(rf"^- (?P<text>.*?)(?: \((?P<source>{REF_PATTERN})\))?$")


def render_card(state: CardState) -> str:
    """The card text: header, one intro sentence, one `- rule` line per rule."""
    lines = [CARD_HEADER, CARD_INTRO]
    for rule in state.rules:
        source = f" ({rule.source})" if rule.source else ""
        lines.append(f"- {rule.text}{source}")
    return "\n".join(lines)


def parse_card(text: str) -> CardState:
    """The state a card text shows (the inverse of `render_card`)."""
    rules: list[Rule] = []
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is not None and match.group("text"):
            body = match.group("text")
            rules.append(Rule(body, subject_of(body), match.group("source") or ""))
    return CardState(tuple(rules))
