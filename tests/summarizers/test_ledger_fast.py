"""Each test the ledger writes for speed answers as its plain form does."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements import _facts
from contextfold._statements._kinds import is_filler
from contextfold._summarizers import (
    _ledger_bound,
    _ledger_goals,
    _ledger_sentences,
    _ledger_text,
    _ledger_values,
)

from ..strategies import glued

_NEEDS_QUOTES = re.compile(r', |: |; |^"|\)$|^\s|\s$|^$|\n')
_PIECES = st.sampled_from(("a", ", ", ": ", "; ", ",", ":", '"', ")", " ", "\n", "\t", "\u2003"))
values = st.lists(_PIECES | st.text(max_size=3), max_size=8).map("".join)


@given(values)
def test_quoting_is_the_pattern(value: str) -> None:
    assert _ledger_text._needs_quotes(value) == (_NEEDS_QUOTES.search(value) is not None)


_ROLES = st.sampled_from(("code", "number", "cabin", "flights[].cabin", "user_id", "date", "x"))


@given(_ROLES, st.booleans(), _ROLES, st.booleans(), st.sampled_from(("economy", "HAT1", "a b")))
def test_renaming_compares_the_role_ranks(
    role: str, named: bool, known_role: str, known_named: bool, value: str
) -> None:
    known = _ledger_values._Record(known_role, known_named, 5, 0, 5, "")
    for seq in (4, 5, 6):
        rank = _ledger_values._role_rank(role, named, value, seq)
        before = _ledger_values._role_rank(known_role, known_named, value, 5)
        assert _ledger_values._renames(known, role, named, value, seq) == (rank > before)


_TEXTS = st.lists(
    st.sampled_from(("1", "٣", "12", "-", ":", "/", ".", ",", "%", "$", "€", " ", "a", "GB", "x"))
    | st.text(max_size=2),
    max_size=6,
).map("".join)


@given(_TEXTS, st.sampled_from(("seen", "identifiers", "user", "goals")))
def test_weight_is_the_plain_weight(text: str, section: _ledger_text.Section) -> None:
    entry = _ledger_text.Entry(section, text, group="flights[].date")
    assert _ledger_bound.weight(entry) == _plain_weight(entry)


def _plain_weight(entry: _ledger_text.Entry) -> int:
    if entry.section not in _ledger_text.VALUES:
        return 1
    if entry.section == "user":
        return 0
    text = entry.text
    if _ledger_bound._TIME_OR_DATE.match(text) is not None:
        return 1
    if text[:1] in ("$", "€", "£"):
        return 2
    if _ledger_bound._NUMERIC.fullmatch(text) is not None:
        return 3
    setting = _ledger_text.is_setting(entry.group, text)
    return 2 if setting or _ledger_bound._ID_LIKE.search(text) is None else 0


_ID_PIECES = st.sampled_from(("a", "Z", "1", "٣", "_", "/", "@", ".", "\n", " ", "é"))


@given(st.lists(_ID_PIECES, max_size=8).map("".join))
def test_id_like_is_the_pattern(text: str) -> None:
    assert _ledger_bound._id_like(text) == (_ledger_bound._ID_LIKE.search(text) is not None)


def test_a_value_entry_is_the_entry() -> None:
    made = _ledger_text.value_entry("seen", "HAT1", "flight_number", ("r1",), 7)
    plain = _ledger_text.Entry("seen", "HAT1", group="flight_number", refs=("r1",), seq=7)
    assert made == plain
    assert repr(made) == repr(plain)
    assert hash(made) == hash(plain)


_REQUEST = re.compile(
    r"\b(?:i'?d like|i would like|i want|i need|i'?m looking|i am looking|looking for|"
    r"can you|could you|would you|will you|please|help me|i'?m trying|your task|the task is|"
    r"goal is|how (?:do|can|to))\b|\?$|^(?:fix|implement|add|remove|change|update|cancel|book|"
    r"create|write|make|find|check|run|refactor|rename|delete|modify|move|upgrade|install)\b",
    re.I,
)
_STATED = re.compile(
    r"\b(?:(?:my|our|the|your)\s+(?:[a-z-]+\s+){0,2}?(?:goal|objective|aim|mission|purpose|"
    r"task)s?\b[^.?!]{0,24}?(?:\bis\b|\bare\b|:|\bwill be\b)|(?:i'?m|i am|we'?re|we are) "
    r"trying to|we need to|what i (?:want|need) is)",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:go(?:ing)? with|decided|decide to|chose|choose|opt(?:ed)? for|switch(?:ed)? to|"
    r"instead of|rather than|the fix (?:is|was|will be)|root cause|is caused by|"
    r"(?:the|this) (?:issue|problem|bug|error) (?:is|was|occurs|happens|arises|comes)|"
    r"i'll use|we'll use|let's use|we should use)\b",
    re.I,
)
_PLAN = re.compile(
    r"^(?:now,? |next,? |then,? |first,? |finally,? )?(?:let's|let me|i'll|i will|i need to|"
    r"we need to|we should|i should|next step)|\b(?:next step|plan is|will now|going to)\b",
    re.I,
)
_DONE = re.compile(
    r"\b(?:(?:has|have) been (?:successfully )?|successfully |is now )(?:booked|cancell?ed|"
    r"updated|changed|modified|processed|completed|implemented|fixed|resolved|submitted|"
    r"refunded|upgraded|added|removed|applied)\b|\ball tests pass|\btask is complete",
    re.I,
)
_BOILERPLATE = re.compile(
    r"\b(?:let me know|feel free|any (?:other|further|more) (?:questions|assistance)|"
    r"anything else|happy to help|glad to help|have a (?:great|nice|good))\b",
    re.I,
)
_WORDS = (
    "Now, ",
    "next ",
    "then ",
    "let's",
    "Let me",
    "i will",
    "next step",
    "plan is",
    "will now",
    "Going to",
    "has been",
    "have been",
    "successfully",
    "\u017fuccessfully",
    "is now",
    "\u0130s now",
    "booked",
    "cancelled",
    "Fixed",
    "all tests pass",
    "task is complete",
    "let me know",
    "feel free",
    "any other questions",
    "anything else",
    "happy to help",
    "have a great",
    "I'd like",
    "id like",
    "I would like",
    "i want",
    "I need",
    "I'm looking",
    "im trying",
    "i am looking",
    "looking for",
    "Can you",
    "could you",
    "would you",
    "will you",
    "PLEASE",
    "help me",
    "your task",
    "the task is",
    "goal is",
    "how to",
    "how can",
    "Fix",
    "install",
    "my",
    "our",
    "The",
    "your",
    "goal",
    "Objectives",
    "task",
    "is",
    "are",
    "will be",
    ":",
    "we're",
    "we are",
    "trying to",
    "we need to",
    "what I want is",
    "go with",
    "Going with",
    "decided",
    "chose",
    "opted for",
    "switched to",
    "instead of",
    "rather than",
    "the fix was",
    "root cause",
    "is caused by",
    "this bug occurs",
    "the error is",
    "I'll use",
    "we'll use",
    "let's use",
    "we should use",
    "\u0130'll use",
    "\u0131nstead of",
    "\u017fwitch to",
    "?",
    "x",
    "_",
    "é",
    "a-b",
)
_GLUE = (" ", "", ".", "?", "\n", "_", "x", "é", ", ")
sentences = glued(list(_WORDS), _GLUE, piece_size=3, max_size=10)


@given(sentences)
def test_sentence_tests_are_the_plain_patterns(sentence: str) -> None:
    assert _ledger_sentences.is_request(sentence) == (_REQUEST.search(sentence) is not None)
    assert (_ledger_sentences.STATED.search(sentence) is None) == (_STATED.search(sentence) is None)
    assert (_ledger_sentences.DECISION.search(sentence) is None) == (
        _DECISION.search(sentence) is None
    )
    assert _ledger_sentences.is_plan(sentence) == (_PLAN.search(sentence) is not None)
    assert (_ledger_sentences.DONE.search(sentence) is None) == (_DONE.search(sentence) is None)
    low = sentence.lower()
    assert _ledger_sentences.says_done(low) == (_ledger_sentences.DONE_LOW.search(low) is not None)
    assert (_ledger_sentences.BOILERPLATE.search(sentence) is None) == (
        _BOILERPLATE.search(sentence) is None
    )


def test_lowercase_tests_are_the_plain_patterns() -> None:
    assert _ledger_sentences.DECISION_LOW.pattern == "(?=[gdcoistrlw])" + _DECISION.pattern
    assert _ledger_sentences.DONE_LOW.pattern == _DONE.pattern
    for pattern in (_ledger_sentences.DECISION_LOW, _ledger_sentences.DONE_LOW):
        assert pattern.flags == re.compile("").flags


_USER_GLUE = (*_GLUE, ". ", "! ", '." ', ") ", "\n- ", "\n1. ", "\nHi there, ", "<q>", "</q>")
user_texts = glued([*_WORDS, "Hi", "hello", "###"], _USER_GLUE, piece_size=3, max_size=12)


@given(user_texts)
def test_user_text_searches_sentences_only_when_the_text_finds(text: str) -> None:
    own_text = _facts.outside_quotes(text)
    own = [_ledger_sentences.GREETING.sub("", s) for s in _facts.sentences(own_text)]
    decides = _ledger_sentences.DECISION.search(own_text) is not None
    states = _ledger_sentences.STATED.search(own_text) is not None
    assert decides or not any(_ledger_sentences.DECISION.search(s) for s in own)
    assert states or not any(_ledger_sentences.STATED.search(s) for s in own)
    plain = _ledger_goals.goals(text, own, True, True)
    assert _ledger_goals.goals(text, own, decides, states) == plain


_FILLER = st.sampled_from(("Sounds good.", "Noted, I'll keep that in mind.", "OK", "", "Sure!"))


@given(st.lists(sentences | _FILLER, max_size=8))
def test_next_steps_are_the_plain_choice(said: list[str]) -> None:
    assert any(map(is_filler, ("Sounds good.", "OK")))
    kept = [s for s in said if not is_filler(s)]
    plans = [s for s in kept if _ledger_sentences.is_plan(s)]
    boiler = _ledger_sentences.BOILERPLATE
    plain = plans[-2:] if plans else [s for s in kept if not boiler.search(s)][-1:]
    assert _ledger_goals.next_steps(said) == plain
