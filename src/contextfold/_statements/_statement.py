"""A user statement: which sentences of a user text state something, what kind, about what.

Rules:
1. Only user-authored text feeds the card: `Text` parts of user messages, and of messages
   the caller pins. Tool results are data and are never read; assistant text never states
   user state (unless the caller pins the message). Pasted documents are removed first.
   A text that is a summary (it starts with SUMMARY_HEADER) states nothing: a summary
   records every role's turns (tool output, the model's actions), so one the archive
   cannot prove, read as user text, would put their words on the card as the user's.
2. A statement is the user's sentence verbatim (bullets and outer spaces removed); a
   sentence that only refers back ("Never exceed it without my approval.") or retracts an
   old value ("Not 3.12.") is joined to the sentence before it, so a rule keeps the value
   it constrains; a sentence that only announces an update ("Sorry, I gave you the wrong
   value.") is joined to the statement after it, which then reads as the update it is.
3. A statement's kind, subject key and subject words are pure functions of its text
   (cached per text), so the card's text form reads back to the same statements (I7).
4. A statement counts with nothing to replace unless it is a permission (it needs a rule
   to relax), a retraction (it lifts what it names) or a correction that, past its
   lead-in, states nothing and names no choice ("Actually, I have another question").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .._content_cache import Memo, TextMemo, on_clear
from .._messages import SUMMARY_HEADER, Message, Text
from ._cue_table import INTERJECTION
from ._cues import fold, gated, words_of
from ._facts import outside_quotes, sentences, splits_to_itself, word_set
from ._kinds import UPDATE_LEAD, StatementKind, is_pick, is_update, rank, statement_kind
from ._retractions import RETRACT_WORDS, is_retraction
from ._subjects import subject_of
from ._values import names, subject_words

__all__ = [
    "NOT_RULES",
    "Statement",
    "candidates",
    "core_sentences",
    "core_words",
    "counts_alone",
    "extract_statements",
    "kind_of",
    "lead_only",
    "retracts",
    "statement_sentences",
    "subject_key",
    "text_says_anything",
    "text_states_anything",
]


@dataclass(frozen=True, slots=True)
class Statement:
    """One thing the user stated: the words verbatim, what kind, where it was said."""

    text: str
    source: str = ""
    """Archive ref of the message that stated it, or '' when unknown."""

    @property
    def kind(self) -> StatementKind:
        """What it states (rule 3: a function of the text)."""
        return kind_of(self.text)

    @property
    def rank(self) -> int:
        """The card's fill order: rules first."""
        return rank(self.kind)

    @property
    def subject(self) -> str:
        """Supersession key of a rule (see `_subjects`); '' for goals, facts and decisions."""
        return subject_key(self.text)


NOT_RULES: Final = frozenset({"goal", "fact", "decision"})
"""The kinds that are not rules: they have no subject key."""


def _read_subject(text: str) -> str:
    return "" if kind_of(text) in NOT_RULES else _rule_subject(text)


def _read_kind_of(text: str) -> StatementKind:
    kinds = [k for k in map(statement_kind, statement_sentences(text)) if k is not None]
    if not kinds:
        return statement_kind(text) or "fact"
    return min(kinds, key=rank)


def _read_split(text: str) -> tuple[str, ...]:
    """The sentences of a statement (cached: a statement is read again and again)."""
    return tuple(sentences(text))


def _read_rule_subject(text: str) -> str:
    parts = core_sentences(text)
    said = parts[0] if len(parts) == 1 else " ".join(parts)
    return subject_of(UPDATE_LEAD.sub("", said, count=1) or said)


def lead_only(sentence: str) -> bool:
    """A sentence that only announces an update ("Sorry, I gave you the wrong value.")."""
    return is_update(sentence) and statement_kind(sentence) is None


_ANAPHOR: Final = re.compile(
    r"\b(?!(?<=\bas )(?:it|they) (?:is|are|was|were|stands)\b)"
    r"(?:it|that|this|them|they|those|these|there|which)\b"
)
"""A word pointing back; not in "as it is" ("Leave the API as it is" points nowhere)."""
_ANAPHORS: Final = gated(word_set("it that this them they those these there which"))
"""The words one of which every _ANAPHOR match is (`_cues.words_of`)."""


_RETRACTS: Final = re.compile(
    r"^\(?(?:not\b(?! (?:\w+ ){0,2}fan\b)|no longer\b|(?:\S+ ){1,3}(?:is|was|are|were) "
    r"(?:out of date|outdated|obsolete|wrong|old|no longer)\b)"
)
"""A sentence retracting the value before it ("Not 3.12."); "Not a fan of X" is a
preference of its own."""


_RETRACT_WORDS: Final = 4


def _refers_back(sentence: str) -> bool:
    """A sentence that only makes sense with the one before it (rule 2): it points back
    ("Never exceed it.") or retracts an old value ("Not 3.12.", "(X is out of date.)")."""
    folded = fold(sentence)
    if _RETRACTS.match(folded) is not None and len(subject_words(sentence)) <= _RETRACT_WORDS:
        return True
    if _ANAPHORS.isdisjoint(words_of(folded)) or _ANAPHOR.search(folded) is None:
        return False
    return len(subject_words(sentence)) <= 2


def retracts(sentence: str) -> bool:
    """A sentence that retracts an old value ("Not 3.12.")."""
    return _RETRACTS.match(fold(sentence)) is not None


def candidates(message: Message, *, pinned: bool) -> list[str]:
    """The statements (whole, rule 2) that the message's author wrote."""
    if message.role != "user" and not pinned:
        return []
    return [text for part in message.parts if isinstance(part, Text) for text in _said(part.text)]


def _text_statements(text: str) -> tuple[str, ...]:
    """The statements of one text part (rule 2: a sentence that refers back joins)."""
    if text.startswith(SUMMARY_HEADER):
        return ()  # rule 1: a summary records everyone's turns, not the user's statements
    said = sentences(outside_quotes(text).replace("###STOP###", ""))
    out: list[str] = []
    kept_previous = False
    lead = ""
    for i, sentence in enumerate(said):
        kind = statement_kind(sentence)
        joins = i > 0 and (kept_previous or names(said[i - 1])) and _refers_back(sentence)
        if joins and (kind is not None or kept_previous):
            if kept_previous:
                out[-1] = f"{out[-1]} {sentence}"
            else:
                out.append(f"{said[i - 1]} {sentence}")
            kept_previous = True
        elif kind is not None:
            out.append(f"{lead} {sentence}" if lead and lead_only(lead) else sentence)
            kept_previous = True
        else:
            kept_previous = False
        lead = sentence if kind is None and not joins else ""  # a lead-in only if lead_only
    _note_single(out, said)
    return tuple(out)


def _note_single(statements: list[str], said: list[str]) -> None:
    """Remember what reading `said` found of each statement that is one of its sentences:
    its sentences (itself, `splits_to_itself`) and so its kind (the sentence's), which
    `counts_alone` asks for next. Skipped when those memos are full (they clear on a miss)."""
    single = set(said)
    for text in statements:
        if text in single and splits_to_itself(text) and len(_KIND_OF) < _KIND_OF.size:
            _SPLIT.setdefault(text, (text,))
            _KIND_OF.setdefault(text, statement_kind(text) or "fact")


_SAID: Final = TextMemo(_text_statements, 1 << 15, 1 << 24)
_said: Final = _SAID.__getitem__
"""Statements per text across calls: a re-sent history's user messages are read once. Keyed
by the text itself (a hit is one lookup in C: each user text is asked for again by the
card's bounds and by the card after the plan), so bounded in characters too."""
on_clear(_SAID.clear)


def extract_statements(
    message: Message, source: str = "", *, pinned: bool = False
) -> list[Statement]:
    """The statements `message` makes on its own (a permission needs something to relax)."""
    return [
        Statement(text, source) for text in candidates(message, pinned=pinned) if counts_alone(text)
    ]


def text_states_anything(text: str) -> bool:
    """Whether a user message with this text states anything (`extract_statements` of it
    is not empty), read without making the message or its statements."""
    return any(map(counts_alone, _said(text)))


def text_says_anything(text: str) -> bool:
    """Whether a user message with this text says anything the card reads: a statement,
    or a permission or retraction that lifts one (what `CardState.retire` reads)."""
    return bool(_said(text))


def counts_alone(text: str) -> bool:
    """Whether a statement counts with nothing to replace (rule 4: a permission does not)."""
    return kind_of(text) != "permission" and _stands(text)


_CORRECTION_LEAD: Final = re.compile(
    rf"^{INTERJECTION}(?:actually|correction|instead|on second thought|change of plans?|"
    r"scratch that|wait)\b[\s,:;.!-]*",
    re.IGNORECASE,
)


def _stands(text: str) -> bool:
    """Whether a statement counts with nothing to replace: a correction only when, past its
    lead-in, it states something ("Actually, use Python 3.13 for new scripts") or names a
    choice ("Scratch that, aisle seat please", `is_pick`) rather than chat ("Actually, I
    have another question")."""
    if kind_of(text) != "correction":
        return True
    if is_retraction(fold(text)):
        return False  # a retraction only lifts what it names
    rest = _CORRECTION_LEAD.sub("", text, count=1)
    return bool(rest) and (statement_kind(rest[0].upper() + rest[1:]) is not None or is_pick(rest))


def _read_words(text: str) -> tuple[str, ...]:
    """Subject words of what a statement says, past any update lead-in, each once."""
    core = " ".join(core_sentences(text))
    core = UPDATE_LEAD.sub("", core, count=1) or core
    if is_retraction(fold(core)):
        core = RETRACT_WORDS.sub(" ", core)  # what it lifts, not that it does
    return subject_words(core)


def core_sentences(text: str) -> list[str]:
    """A statement's sentences without an update's lead-in or trailing retractions."""
    said = statement_sentences(text)
    core = [p for i, p in enumerate(said) if not lead_only(p) and not (i and retracts(p))]
    return core or [text]


_KIND_OF: Final = Memo(_read_kind_of, 1 << 15)
kind_of: Final = _KIND_OF.__getitem__
_SPLIT: Final = Memo(_read_split, 1 << 15)
statement_sentences: Final = _SPLIT.__getitem__
_rule_subject: Final = Memo(_read_rule_subject, 1 << 15).__getitem__
subject_key: Final = Memo(_read_subject, 1 << 15).__getitem__
core_words: Final = Memo(_read_words, 1 << 15).__getitem__
"""Cached per text (rule 4 of `_content_cache`): cleared by `clear_caches()`."""
