"""The user-state card: what the user stated that still holds, verbatim, newest winning.

Rules:
1. Only user-authored text feeds it: `Text` parts of user messages, and of messages the
   caller pins. Tool results are data and are never read; assistant text never states
   user state (unless the caller pins the message). Pasted documents are removed first.
2. A statement is the user's sentence verbatim (bullets and outer spaces removed); a
   sentence that only refers back ("Never exceed it without my approval.") or retracts an
   old value ("Not 3.12.") is joined to the sentence before it, so a rule keeps the value
   it constrains; a sentence that only announces an update ("Sorry, I gave you the wrong
   value.") is joined to the statement after it, which then reads as the update it is.
3. The newest statement on a subject wins and the older one is returned as superseded
   (the engine archives it): same normalized text is a duplicate; rules with the same
   subject key (`_cues.subject_of`) replace each other, unless two prohibitions name
   different things ("never deploy svc-a", "never deploy svc-b") and the newer is no update; an
   update ("actually", "instead", "no longer", "is now", ...) replaces the statement it
   names by an old value ("not 3.12") or shares the most subject words with; a fact
   replaces an older fact or goal about the same subject (two or more shared subject
   words, most of the smaller set; or the very same subject words with a new value).
   A permission that relaxes nothing adds nothing. The replacement takes the old one's
   place, so the card's order is stable.
4. A statement's kind and subject are pure functions of its text, so `parse_card`
   inverts `render_card` exactly (I7), in both forms: full (a `- ` line per statement with
   the archive reference of the message that said it) and dense (one block reference in
   the header, then one statement a line, past its update lead-in; the block entry holds
   the full card, so the exact statements come back from it). A dense card that cannot
   show every statement whole may end with one "(also: ...)" line: the values of the next
   statements in card order (a few of their words when they state no value), a pointer
   to the block entry that holds them whole, never a statement itself: reading the card
   back skips it, and it never shows a value the statement names as replaced.
5. A statement is retired when an update ("Actually ...", "Change of plan: ...", "not X")
   in a newer user message still in view supersedes it: the card never shows as current
   what the conversation itself has already replaced. Only explicit updates retire, so
   an older message kept in view (the user's task) never retires a newer statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter, is_
from typing import Final

from .._content_cache import Memo, TextMemo, on_clear
from .._messages import CARD_HEADER, REF_PATTERN, Message, Text
from ._cues import FILLER, OVERRIDE_ONLY, fold, gated, subject_of, words_of
from ._facts import normalize, outside_quotes, sentences, splits_to_itself, word_set
from ._kinds import (
    RANKS,
    UPDATE_LEAD,
    StatementKind,
    is_update,
    names,
    rank,
    replaced_values,
    statement_kind,
    subject_words,
    values,
)

__all__ = [
    "CARD_INTRO",
    "CardState",
    "Statement",
    "extract_statements",
    "parse_card",
    "render_card",
    "render_ordered",
    "text_states_anything",
]

CARD_INTRO: Final = "What the user said that still holds (newest wins):"
_BLOCK: Final = "see "


@dataclass(frozen=True, slots=True)
class Statement:
    """One thing the user stated: the words verbatim, what kind, where it was said."""

    text: str
    source: str = ""
    """Archive ref of the message that stated it, or '' when unknown."""

    @property
    def kind(self) -> StatementKind:
        """What it states (rule 4: a function of the text)."""
        return _kind_of(self.text)

    @property
    def rank(self) -> int:
        """The card's fill order: rules first."""
        return rank(self.kind)

    @property
    def subject(self) -> str:
        """Supersession key of a rule (see `_cues`); '' for goals, facts and decisions."""
        return _subject(self.text)


_NOT_RULES: Final = frozenset({"goal", "fact", "decision"})


def _read_subject(text: str) -> str:
    return "" if _kind_of(text) in _NOT_RULES else _rule_subject(text)


def _read_kind_of(text: str) -> StatementKind:
    kinds = [k for k in map(statement_kind, _split(text)) if k is not None]
    if not kinds:
        return statement_kind(text) or "fact"
    return min(kinds, key=rank)


def _read_split(text: str) -> tuple[str, ...]:
    """The sentences of a statement (cached: a statement is read again and again)."""
    return tuple(sentences(text))


def _read_rule_subject(text: str) -> str:
    parts = _core_sentences(text)
    said = parts[0] if len(parts) == 1 else " ".join(parts)
    return subject_of(UPDATE_LEAD.sub("", said, count=1) or said)


def _lead_only(sentence: str) -> bool:
    """A sentence that only announces an update ("Sorry, I gave you the wrong value.")."""
    return is_update(sentence) and statement_kind(sentence) is None


_ANAPHOR: Final = re.compile(r"\b(?:it|that|this|them|they|those|these|there|which)\b")
_ANAPHORS: Final = gated(word_set("it that this them they those these there which"))
"""The words one of which every _ANAPHOR match is (`_cues.words_of`)."""


_RETRACTS: Final = re.compile(
    r"^\(?(?:not\b|no longer\b|(?:\S+ ){1,3}(?:is|was|are|were) (?:out of date|outdated|"
    r"obsolete|wrong|old|no longer)\b)"
)


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


def _candidates(message: Message, *, pinned: bool) -> list[str]:
    """The statements (whole, rule 2) that the message's author wrote."""
    if message.role != "user" and not pinned:
        return []
    return [text for part in message.parts if isinstance(part, Text) for text in _said(part.text)]


def _text_statements(text: str) -> tuple[str, ...]:
    """The statements of one text part (rule 2: a sentence that refers back joins)."""
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
            out.append(f"{lead} {sentence}" if lead and _lead_only(lead) else sentence)
            kept_previous = True
        else:
            kept_previous = False
        lead = sentence if kind is None and not joins else ""  # a lead-in only if _lead_only
    _note_single(out, said)
    return tuple(out)


def _note_single(statements: list[str], said: list[str]) -> None:
    """Remember what reading `said` found of each statement that is one of its sentences:
    its sentences (itself, `splits_to_itself`) and so its kind (the sentence's), which
    `_counts` asks for next. Skipped when those memos are full (they clear on a miss)."""
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
        Statement(text, source) for text in _candidates(message, pinned=pinned) if _counts(text)
    ]


def text_states_anything(text: str) -> bool:
    """Whether a user message with this text states anything (`extract_statements` of it
    is not empty), read without making the message or its statements."""
    return any(map(_counts, _said(text)))


def _counts(text: str) -> bool:
    """Whether a statement counts with nothing to replace (a permission does not)."""
    return _kind_of(text) != "permission" and _stands(text)


@dataclass(frozen=True, slots=True)
class CardState:
    """The statements in force, in the order they were first made."""

    statements: tuple[Statement, ...] = ()

    @property
    def rules(self) -> tuple[Statement, ...]:
        """The rules, constraints and preferences among them (not goals, facts, decisions)."""
        return tuple(s for s in self.statements if s.subject)

    def update(
        self, message: Message, source: str = "", *, pinned: bool = False
    ) -> tuple[CardState, list[Statement]]:
        """The state after `message`, and the statements it superseded (oldest first)."""
        current = list(self.statements)
        superseded: list[Statement] = []
        source = _clean_source(source)
        for text in _candidates(message, pinned=pinned):
            old = _apply(current, Statement(text, source))
            if old is not None and _among(self.statements, old):
                superseded.append(old)
        if current == list(self.statements):
            return self, []
        return CardState(tuple(current)), superseded

    def retire(
        self, messages: Iterable[Message], *, explicit: bool = True
    ) -> tuple[CardState, list[Statement]]:
        """The state without the statements that updates in `messages` (still shown
        verbatim, newer than everything on the card) supersede, and those statements
        (rule 5). Each statement is judged on its own, so a card shown in part retires the
        same way. `explicit=False` (the caller knows the messages are newer) lets a plain
        restatement with a new value retire too (`_retires`)."""
        if not self.statements:
            return self, []  # nothing to retire: the messages are not read
        said = [
            Statement(text)
            for message in messages
            for text in _candidates(message, pinned=False)
            if is_update(text) or not explicit
        ]
        if not said:
            return self, []
        gone = [old for old in self.statements if any(_retires(new, old) for new in said)]
        if not gone:
            return self, []
        return CardState(tuple(s for s in self.statements if s not in gone)), gone


def _among(statements: tuple[Statement, ...], old: Statement) -> bool:
    """`old in statements`, the very object looked for first (no __eq__ per statement)."""
    return any(map(is_, statements, repeat(old))) or old in statements


def _retires(new: Statement, old: Statement) -> bool:
    """Whether `new`, in view, retires `old` from the card: an update that supersedes it,
    or a plain restatement that supersedes it with a value `old` does not name (the same
    value said again leaves nothing stale, and may be an older message kept in view)."""
    if not _replaces(new, old):
        return False
    return is_update(new.text) or not values(new.text) <= values(old.text)


def _replaces(new: Statement, old: Statement) -> bool:
    """Whether `new` supersedes `old` when `old` is all there is."""
    probe = [old]
    return _apply(probe, new) is old


_TEXT: Final = attrgetter("text")


def _clean_source(source: str) -> str:
    return source if source and _REF.fullmatch(source) else ""


def _apply(current: list[Statement], new: Statement) -> Statement | None:
    """Add or substitute `new` in place (rule 3); returns the statement it replaced."""
    if normalize(new.text) in map(normalize, map(_TEXT, current)):
        return None  # said before, in other spaces or case
    index = _target(current, new)
    if index is not None:
        old = current[index]
        current[index] = new
        return old
    if not _counts(new.text):
        return None
    current.append(new)
    return None


_CORRECTION_LEAD: Final = re.compile(
    r"^(?:actually|correction|instead|on second thought|change of plans?|scratch that|wait)"
    r"\b[\s,:;.!-]*",
    re.IGNORECASE,
)


def _stands(text: str) -> bool:
    """Whether a statement counts with nothing to replace: a correction only when, past its
    lead-in, it states something ("Actually, use Python 3.13 for new scripts") rather than
    chat ("Actually, I have another question")."""
    if _kind_of(text) != "correction":
        return True
    rest = _CORRECTION_LEAD.sub("", text, count=1)
    return bool(rest) and statement_kind(rest[0].upper() + rest[1:]) is not None


def _target(current: list[Statement], new: Statement) -> int | None:
    """The index of the statement `new` supersedes, if any (rule 3)."""
    subject = _subject(new.text)  # new.subject, new.kind: without the properties' calls
    if subject:
        for index, old in enumerate(current):
            if _subject(old.text) == subject and not _other_things(old, new):
                return index
    kind = _kind_of(new.text)
    if kind == "permission":
        return None  # a permission relaxes only the rule with its subject key
    if is_update(new.text) or kind in OVERRIDE_ONLY:
        return _best_match(current, new)
    if kind in _NOT_RULES:
        return _same_subject(current, new, kind)
    return None


def _read_words(text: str) -> tuple[str, ...]:
    """Subject words of what a statement says, past any update lead-in, each once (rule 3)."""
    core = " ".join(_core_sentences(text))
    return subject_words(UPDATE_LEAD.sub("", core, count=1) or core)


def _core_sentences(text: str) -> list[str]:
    """A statement's sentences without an update's lead-in or trailing retractions."""
    said = _split(text)
    core = [p for i, p in enumerate(said) if not _lead_only(p) and not (i and _retracts(p))]
    return core or [text]


_ID: Final = re.compile(r"(?=.*[A-Za-z])(?=.*[\d_./-])[A-Za-z0-9_./-]{4,}")


def _identifiers(text: str) -> frozenset[str]:
    return frozenset(v for v in values(text) if _ID.fullmatch(v) and not v[0].isdigit())


_DUTIES: Final = frozenset({"prohibition"})


def _other_things(old: Statement, new: Statement) -> bool:
    """Two prohibitions of one shape about different named things ("never deploy svc-a",
    "never deploy svc-b") both hold, unless the newer says it is an update; any other
    restatement with a new value ("sign off with tag-b") replaces the older."""
    if is_update(new.text) or new.kind not in _DUTIES or old.kind not in _DUTIES:
        return False
    mine, theirs = _identifiers(new.text), _identifiers(old.text)
    return bool(mine) and bool(theirs) and not mine & theirs


def _best_match(current: list[Statement], new: Statement) -> int | None:
    gone = replaced_values(new.text)
    words = frozenset(_words(new.text))
    best: tuple[int, int] | None = None
    for index, old in enumerate(current):
        named = len(gone & values(old.text)) if gone else 0
        theirs = _words(old.text)
        shared = len(words.intersection(theirs))
        if not named and not shared:
            continue
        if not named and shared < 2 and min(len(words), len(theirs)) > 1:
            continue  # one shared word of several ("write") is not the same subject
        score = 4 * named + shared
        if best is None or score >= best[0]:
            best = (score, index)
    return None if best is None else best[1]


def _same_subject(current: list[Statement], new: Statement, kind: StatementKind) -> int | None:
    words: frozenset[str] | None = None  # read at the first statement of the same kind
    for index in range(len(current) - 1, -1, -1):
        old = current[index]
        if _kind_of(old.text) != kind:  # old.kind, without the property's call
            continue
        if words is None:
            words = frozenset(_words(new.text))
            if not words:
                return None  # no subject word: it shares none with any statement
        theirs = _words(old.text)  # distinct words: the same set when all are shared
        shared = len(words.intersection(theirs))
        if (shared >= 2 and shared * 3 >= 2 * min(len(words), len(theirs))) or (
            words and shared == len(words) == len(theirs) and names(new.text) and names(old.text)
        ):
            return index
    return None


# --- text form ---------------------------------------------------------------------------------

_REF: Final = re.compile(REF_PATTERN)
_LINE: Final = re.compile(rf"^- (?P<text>.*?)(?: \((?P<source>{REF_PATTERN})\))?$")
_HEAD: Final = re.compile(rf"\({_BLOCK}(?P<ref>{REF_PATTERN})\)")


def ordered(statements: tuple[Statement, ...]) -> list[Statement]:
    """The card's order: by rank (rules first), then in the order they were made."""
    ranks = list(map(RANKS.__getitem__, map(_kind_of, map(_TEXT, statements))))
    return [statements[i] for i in sorted(range(len(statements)), key=ranks.__getitem__)]


def render_card(
    state: CardState, *, block: str | None = None, shown: int | None = None, also: int = 0
) -> str:
    """The card text: full (a reference per statement) or, with `block`, dense (one block
    reference); `shown` keeps only the first statements in card order, and `also` adds
    the values of the next ones on an "(also: ...)" line (dense only, rule 4)."""
    return render_ordered(ordered(state.statements), block=block, shown=shown, also=also)


def render_ordered(
    every: Sequence[Statement], *, block: str | None = None, shown: int | None = None, also: int = 0
) -> str:
    """`render_card` of the state whose statements, in card order, are `every` (`ordered`:
    a card fitted to its room is rendered again and again, and sorted once)."""
    items = every[:shown]
    if block is None:
        lines = [f"{CARD_HEADER} {CARD_INTRO}"]
        lines += [f"- {s.text}" + (f" ({s.source})" if s.source else "") for s in items]
    else:
        lines = [f"{CARD_HEADER} ({_BLOCK}{block})" if block else CARD_HEADER]
        lines += [dense_text(s.text) for s in items]
        hints = [h for s in every[len(items) : len(items) + also] if (h := hint(s.text))]
        if hints:
            lines.append(f"{_ALSO}{'; '.join(hints)})")
    return "\n".join(lines)


_ALSO: Final = "(also: "


def _read_hint(text: str) -> str:
    """What the "(also: ...)" line shows of a statement (rule 4): its current values in
    the order it names them, else (or when they are all short words) its first few
    content words (denials kept: a hint never reads as the opposite rule)."""
    core = dense_text(text)
    gone = replaced_values(text)
    found = [v for v in values(core) if v not in gone]
    found = [v for v in found if not any(v != w and v in w for w in found)]
    if any(map(_telling, found)):
        return " ".join(sorted(filter(_telling, found), key=core.find))
    words = [w.strip(".,;:!?()\"'") for w in core.split()]
    kept = [w for w in words if w and (w.lower() in _DENIALS or w.lower() not in FILLER)]
    return " ".join(kept[:_HINT_WORDS])


_HINT_WORDS: Final = 4
_DENIALS: Final = word_set(
    "never not no don't dont do-not avoid without cannot can't won't mustn't shouldn't"
)
"""Words a hint keeps although they are filler: without them a rule would read inverted."""


def _telling(value: str) -> bool:
    """Whether a value says enough alone to point at its statement ("PR" does not)."""
    return len(value) > _SHORT_VALUE or any(c.isdigit() or c in "-_./@$" for c in value)


_SHORT_VALUE: Final = 4


def _read_dense_text(text: str) -> str:
    """A statement as the dense card shows it: without an update's lead-in ("Sorry, I
    gave you the wrong value before.", "Change of plan:") or a trailing retraction ("Not
    3191."); the words that state it stay verbatim, the whole is in the block entry."""
    said = _split(text)
    kept = [p for i, p in enumerate(said) if not _lead_only(p) and not (i and _retracts(p))]
    core = " ".join(kept) if kept else text
    bare = UPDATE_LEAD.sub("", core, count=1)
    if not bare:
        return core
    shown = bare[0].upper() + bare[1:]
    if statement_kind(shown) is None:
        return core
    return text if shown == text else shown  # the statement itself when that is all


def _retracts(sentence: str) -> bool:
    return _RETRACTS.match(fold(sentence)) is not None


def parse_card(text: str) -> tuple[CardState, str | None]:
    """The state a card text shows and its block reference (the inverse of `render_card`)."""
    found: list[Statement] = []
    lines = text.splitlines()
    head = _HEAD.search(lines[0]) if lines else None
    for line in lines[1:]:
        if line.startswith(_ALSO) and line.endswith(")"):
            continue  # rule 4: a pointer, not a statement
        match = _LINE.match(line) if line.startswith("- ") else None
        if match is not None and match.group("text"):
            found.append(Statement(match.group("text"), match.group("source") or ""))
        elif match is None and line.strip():
            found.append(Statement(line.strip()))
    return CardState(tuple(found)), head.group("ref") if head else None


_KIND_OF: Final = Memo(_read_kind_of, 1 << 15)
_kind_of: Final = _KIND_OF.__getitem__
_SPLIT: Final = Memo(_read_split, 1 << 15)
_split: Final = _SPLIT.__getitem__
_rule_subject: Final = Memo(_read_rule_subject, 1 << 15).__getitem__
_subject: Final = Memo(_read_subject, 1 << 15).__getitem__
_words: Final = Memo(_read_words, 1 << 15).__getitem__
hint: Final = Memo(_read_hint, 1 << 15).__getitem__
dense_text: Final = Memo(_read_dense_text, 1 << 15).__getitem__
"""Cached per text (rule 4 of `_content_cache`): cleared by `clear_caches()`."""
