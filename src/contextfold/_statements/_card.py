"""The user-state card: what the user stated that still holds, verbatim, newest winning.

Rules:
1. The card holds the statements (`_statement`) of the user's messages in the order they
   were first made; only user-authored text feeds it (`_statement` rule 1).
2. The newest statement on a subject wins and the older one is returned as superseded
   (the engine archives it): same normalized text is a duplicate; rules with the same
   subject key (`_subjects.subject_of`) replace each other, unless two prohibitions name
   different things ("never deploy svc-a", "never deploy svc-b") and the newer is no update; an
   update ("actually", "instead", "no longer", "is now", ...) replaces the statement it
   names by an old value or shares the most subject words with (`_updates`), or, when it
   has no subject words, the newest statement with a date, amount
   or version as it states ("Actually, make it 3.12"), joined after what that one said,
   so the card still says what the value is for; a goal, fact or decision replaces an older one of
   its own kind about the same subject (two or more shared subject words, most of the
   smaller set; or the very same subject words with a new value). Across kinds only an
   update replaces: a fact about what a goal works on ("My flight from ATL to LAS is
   HAT102") leaves the goal ("I want to change my flight from ATL to LAS") standing, as
   one says what is and the other what to do. Failing all of these, a statement that
   gives again every setting an older one gives, one with a new value, and names nothing
   more replaces it, of any kind (`_settings`: "We upgraded to Postgres 16" after "We use
   Postgres 14", "Let's bump retries to 5" after "Max 3 retries per request"); two that
   give settings under no common key are never one subject.
   A statement that says again what a retraction on the card lifted replaces the
   retraction. A permission relaxes the prohibition with its subject key, else the
   newest whose key holds all of its two or more key words; one that lifts a duty ("you
   no longer need to ...") relaxes the newest rule most of its key words are shared
   with; one that relaxes nothing but
   says all the subject words of a prohibition ("you can add pytest-mock as a dependency")
   is its exception, placed after it (both hold); any other adds nothing. The replacement
   takes the old one's place, so the card's order is stable.
3. A statement is retired when an update ("Actually ...", "Change of plan: ...", "not X")
   in a newer user message still in view supersedes it: the card never shows as current
   what the conversation itself has already replaced. Only explicit updates retire, so
   an older message kept in view (the user's task) never retires a newer statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat, takewhile
from operator import attrgetter, is_
from typing import Final

from .._messages import REF_PATTERN, Message
from ._cue_table import OVERRIDE_ONLY
from ._facts import normalize
from ._kinds import StatementKind, is_update
from ._settings import apart, has_settings, newest_changed
from ._statement import (
    NOT_RULES,
    Statement,
    candidates,
    core_words,
    counts_alone,
    kind_of,
    statement_sentences,
    subject_key,
)
from ._updates import best_match, by_value, is_retraction_text, own_words
from ._values import names, values

__all__ = ["CardState"]


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
        for text in candidates(message, pinned=pinned):
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
        (rule 3). Each statement is judged on its own, so a card shown in part retires the
        same way. `explicit=False` (the caller knows the messages are newer) lets a plain
        restatement with a new value retire too (`_retires`)."""
        if not self.statements:
            return self, []  # nothing to retire: the messages are not read
        said = [
            Statement(text)
            for message in messages
            for text in candidates(message, pinned=False)
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
    """Whether `new`, in view, retires `old` from the card: an update (a retraction too)
    or a permission that supersedes it, or a plain restatement that supersedes it with a
    value `old` does not name (the same value said again leaves nothing stale, and may be
    an older message kept in view)."""
    if not _replaces(new, old):
        return False
    return (
        is_update(new.text) or new.kind == "permission" or not values(new.text) <= values(old.text)
    )


def _replaces(new: Statement, old: Statement) -> bool:
    """Whether `new` supersedes `old` when `old` is all there is."""
    probe = [old]
    return _apply(probe, new) is old


_TEXT: Final = attrgetter("text")
_REF: Final = re.compile(REF_PATTERN)


def _clean_source(source: str) -> str:
    return source if source and _REF.fullmatch(source) else ""


def _apply(current: list[Statement], new: Statement) -> Statement | None:
    """Add or substitute `new` in place (rule 2); returns the statement it replaced."""
    if normalize(new.text) in map(normalize, map(_TEXT, current)):
        return None  # said before, in other spaces or case
    index = _target(current, new)
    alone = index is None and _needs_context(new)
    if alone or (index is None and _about_a_value(new)):
        index = by_value(current, new, alone=alone)
        if index is not None:
            old = current[index]
            current[index] = _in_context(old, new)
            return old
    if index is None and has_settings(new.text):
        index = newest_changed(list(map(_TEXT, current)), new.text)
    if index is not None:
        old = current[index]
        current[index] = new
        return old
    if not counts_alone(new.text):
        excepted = _excepted(current, new)
        if excepted is not None:
            current.insert(excepted + 1, new)  # the exception beside the rule it narrows
        return None
    current.append(new)
    return None


def _target(current: list[Statement], new: Statement) -> int | None:
    """The index of the statement `new` supersedes, if any (rule 2)."""
    subject = subject_key(new.text)  # new.subject, new.kind: without the properties' calls
    if subject:
        for index, old in enumerate(current):
            if subject_key(old.text) == subject and not _other_things(old, new):
                return index
    kind = kind_of(new.text)
    if kind == "permission":
        return _relaxed(current, subject)
    if not _needs_context(new):
        lifted = _lifted(current, new)
        if lifted is not None:
            return lifted
    if is_update(new.text) or kind in OVERRIDE_ONLY:
        return best_match(current, new)
    if kind in NOT_RULES:
        return _same_subject(current, new, kind)
    return None


def _lifted(current: list[Statement], new: Statement) -> int | None:
    """The retraction on the card that `new` says the opposite of: the subject it lifted
    said again (two or more subject words shared, most of the smaller set)."""
    words: frozenset[str] | None = None
    for index, old in enumerate(current):
        if not is_retraction_text(old.text):
            continue
        words = frozenset(core_words(new.text)) if words is None else words
        theirs = core_words(old.text)
        shared = len(words.intersection(theirs))
        if shared >= 2 and shared * 3 >= 2 * min(len(words), len(theirs)):
            return index
    return None


def _needs_context(new: Statement) -> bool:
    """An update that says nothing of what it updates ("Actually, make it 3.12")."""
    text = new.text
    return (is_update(text) or kind_of(text) in OVERRIDE_ONLY) and not core_words(text)


def _about_a_value(new: Statement) -> bool:
    """An update whose one subject word matched nothing ("I moved my flight to May 14"
    after "I'm flying out May 12"): what it updates is told by its value's kind. With two
    or more subject words (a count's unit aside) it names a subject of its own ("a good
    date for the departure")."""
    return is_update(new.text) and own_words(new.text) <= 1 and not is_retraction_text(new.text)


def _in_context(old: Statement, new: Statement) -> Statement:
    """`new`, replacing `old` by value alone, after what `old` said before any update of
    its own (as a sentence that refers back joins the one before it): the card still says
    what the new value is for, and the old value shows only beside the new one."""
    said = statement_sentences(old.text)
    head = list(takewhile(lambda sentence: not is_update(sentence), said))
    return Statement(f"{' '.join(head) or old.text} {new.text}", new.source)


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


def _relaxed(current: list[Statement], subject: str) -> int | None:
    """The newest rule a permission with `subject` relaxes without its key: a prohibition
    whose key words hold two or more words and all of the permission's ("you can push
    directly to main now" relaxes "never push directly to main; open a PR instead"), or a
    duty that most of its two or more key words are shared with ("you no longer need to
    run the full test suite" relaxes "run the full test suite after every change")."""
    family, _, said = subject.partition(":")
    words = frozenset(said.split())
    if family not in ("neg", "pos") or len(words) < 2:
        return None
    for index in range(len(current) - 1, -1, -1):
        old_family, _, theirs = subject_key(current[index].text).partition(":")
        if old_family != family:
            continue
        if family == "neg" and words.issubset(theirs.split()):
            return index
        shared = len(words.intersection(theirs.split()))
        if (
            family == "pos"
            and shared >= 2
            and shared * 3 >= 2 * min(len(words), len(theirs.split()))
        ):
            return index
    return None


def _excepted(current: list[Statement], new: Statement) -> int | None:
    """The newest prohibition a permission that relaxes none narrows: one all of whose
    subject words the permission says ("you can add pytest-mock as a dependency" after
    "don't add any new dependencies"). Both hold: the rule, and the exception to it."""
    if kind_of(new.text) != "permission":
        return None
    words = frozenset(core_words(new.text))
    for index in range(len(current) - 1, -1, -1):
        old = current[index]
        theirs = core_words(old.text)
        if kind_of(old.text) == "prohibition" and theirs and words.issuperset(theirs):
            return index
    return None


def _same_subject(current: list[Statement], new: Statement, kind: StatementKind) -> int | None:
    words: frozenset[str] | None = None  # read at the first statement of the same kind
    for index in range(len(current) - 1, -1, -1):
        old = current[index]
        if kind_of(old.text) != kind:  # old.kind, without the property's call
            continue
        if words is None:
            words = frozenset(core_words(new.text))
            if not words:
                return None  # no subject word: it shares none with any statement
        theirs = core_words(old.text)  # distinct words: the same set when all are shared
        shared = len(words.intersection(theirs))
        close = shared >= 2 and shared * 3 >= 2 * min(len(words), len(theirs))
        if (
            close or (shared == len(words) == len(theirs) and names(new.text) and names(old.text))
        ) and not apart(new.text, old.text):
            return index
    return None
