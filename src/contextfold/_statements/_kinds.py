"""What a user sentence states beyond rules: goals, facts, decisions; and what it is about.

Rules:
1. A sentence's kind is its rule kind when a rule cue matches (`_cues.classify`); past an
   update's lead-in ("Update:", "Scratch that,"), a fact, goal or decision stays one; else a
   goal or next step (GOAL cues, or an imperative that names a value); else a decision
   (DECISION cues); else a fact when it states a value (an identifier, host, date,
   amount, version, number or name) and is not a question or a request for help. Short
   acknowledgements ("ok", "sounds good", "thanks") and bare go-aheads ("Please
   continue.", "Keep going.") state nothing.
2. RANKS order what the card keeps when room is short: rules and constraints, then the
   current goal and next step, then facts, values and decisions, then preferences.
3. `subject_words` are a sentence's content words with values, names, filler and update
   words removed (hyphenated words split, plurals folded): what two statements must
   share to be about the same thing, each once, in order (a tuple: cached per text, it
   holds a fraction of a set's memory). `values` are the values it states, verbatim.
4. `is_update` marks a sentence that says an earlier statement no longer holds ("actually",
   "from now on", "instead", "no longer", "switch to", "is now", "not X anymore"), and
   `replaced_values` the values it names as the old ones ("not 3.12", "instead of X").
5. Speed never changes a result: a search most sentences fail runs only when the text
   holds a word every match contains (DECISION_NEEDS, UPDATE_NEEDS, _OUTDATED_NEEDS), values
   are read only from a text with a mark some value needs (_VALUE_MARK), and only when
   more than whether there is one is needed (`names`: a number or a name is one), and
   patterns that would start with a check match their first character first (as `_facts`
   rule 5 says).
6. Subject words leave the values out, but the values are read for that only when a
   token that gives subject words could be one: letters alone, with at most the first a
   capital (or two capitals), are a value only as a name or in a shape that spans a space.
All functions are pure and cached by sentence.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from itertools import chain, filterfalse
from operator import attrgetter
from typing import Final, Literal

from .._content_cache import Memo, WordMemo
from ._cues import Kind, classify, fold, gated, words_of
from ._facts import prose_facts, spaced_values, word_set
from ._subjects import FILLER, VALUE_WORDS

StatementKind = Kind | Literal["goal", "fact", "decision"]

RANKS: Final[dict[StatementKind, int]] = {
    "prohibition": 0,
    "obligation": 0,
    "limit": 0,
    "deadline": 0,
    "permission": 0,
    "correction": 0,
    "goal": 1,
    "fact": 2,
    "decision": 2,
    "note": 2,
    "preference": 3,
}
RULE_RANK: Final = 0

_LEAD: Final = r"^(?:(?:ok|okay|so|and|also|then|now|alright|right|great|good|thanks)[,:;!.]?\s+)*"
_GOAL: Final = re.compile(
    _LEAD
    + r"(?:(?:the |our |my |your )?next(?: step| steps| task| thing)?\b|then\b|after (?:that|this|"
    r"the\b)|once\b|(?:the|our|my|your) (?:goal|objective|aim|task|plan|priority|mission|focus)\b|"
    r"(?:the )?(?:goal|objective|task|plan|priority|todo|to-do)\s*:|"
    r"i(?:'d| would)? (?:like|want|need|hope)(?: you)? to\b|"
    r"what (?:i|we)(?:'m| am|'re| are)? (?:after|aiming for|going for|want|need)(?: is|:)|"
    r"we(?:'d| would)? (?:like|want|need) to\b|"
    r"we(?:'re| are) (?:going|trying) to\b|i(?:'m| am) (?:trying|looking|hoping) to\b|"
    r"let'?s\b|please (?!note|remember|keep|don't|do not|never|always|use)\w+|"
    r"(?:can|could|would|will) you (?:please )?\w+.*[.!]$|help me\b|"
    r"focus on\b|work on\b|start (?:with|by)\b|first,? \w+)"
)
_IMPERATIVE: Final = re.compile(
    _LEAD + r"(?:check|look|find|open|read|run|fix|add|remove|update|change|book|cancel|search|"
    r"deploy|build|test|write|create|investigate|review|migrate|backfill|merge|send|get|ship|"
    r"refactor|rename|delete|move|upgrade|install|configure|set|schedule|email|call|notify|"
    r"prepare|draft|finish|complete|implement|debug|profile|benchmark|document|release)\b"
)
_STANDING: Final = re.compile(
    _LEAD + r"(?:please )?(?:use|write|run|deploy|target|build|format|name|put|store|keep|"
    r"send|route|log|test|pin)\b.*\b(?:for (?:all|every|any|each|new)|always|by default|"
    r"everywhere|from now on|going forward|for the rest)\b"
)
"""A standing instruction ("use Python 3.12 for all new scripts"): an obligation."""
_DECISION: Final = re.compile(
    r"\b(?:we|i)(?:'ve| have)? (?:decided|agreed|chose|chosen|settled on|picked|opted)\b|"
    r"\b(?:we|i)(?:'ll| will) go with\b|\blet'?s go with\b|\bwent with\b|^decision\s*:|"
    r"\bthe decision is\b|\bwe(?:'re| are) going with\b"
)
DECISION_NEEDS: Final = (
    "decided",
    "agreed",
    "chose",
    "settled on",
    "picked",
    "opted",
    "go with",
    "going with",
    "went with",
    "decision",
)
"""Every _DECISION match contains one of these (rule 5): text with none is not searched."""
_REQUEST: Final = re.compile(
    r"^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:can|could|would|will|do|does|did|is|are|was|were|have|"
    r"has|should|shall|may|might|what|why|how|when|where|who|which)\b"
)
_ACK: Final = re.compile(
    r"^(?:ok(?:ay)?|sure|great|thanks?(?: you)?|thank you|sounds good|got it|noted|perfect|"
    r"cool|nice|yes|yeah|yep|no|nope|fine|alright|right|understood|makes sense|good|"
    r"awesome|hi|hello|hey|bye|cheers)\b[\s\w,!.']{0,24}$"
)
_UPDATE: Final = re.compile(
    r"^(?:actually|correction|update|change of plans?|scratch that|wait|sorry|instead|no,|"
    r"on second thought|small change|quick change|change)\b|"
    r"^[^;,]*\binstead[.!]?$|"
    r"\b(?:from now on|going forward|no longer|instead of|switch(?:ed|ing)? to|"
    r"change[ds]? (?:it |that )?to|moved? to|now (?:is|are|at|on|use|uses|using|be)|"
    r"(?:is|are|has been|have been) now|anymore|any more|not .{1,40} but|rather than|"
    r"replaced? (?:by|with)|has changed|have changed|updated to|bump(?:ed)? to|"
    r"raised? to|lower(?:ed)? to|increase[ds]? to|decrease[ds]? to|reduced? to|extend(?:ed)? to|"
    r"push(?:ed)? (?:back )?to|postponed? to|is moving to)\b"
)
UPDATE_FIRST: Final = (
    "actually",
    "correction",
    "update",
    "change",
    "scratch that",
    "wait",
    "sorry",
    "instead",
    "no,",
    "on second thought",
    "small change",
    "quick change",
)
"""How an update that names itself first starts (rule 5)."""
UPDATE_NEEDS: Final = gated(
    word_set(
        """
        now forward longer instead switch switched switching change changed changes move
        moved moving anymore any but rather replace replaced updated bump bumped raise
        raised lower lowered increase increased increases decrease decreased decreases
        reduce reduced extend extended push pushed postpone postponed
        """
    )
)
"""Every other _UPDATE match holds one of these words (`_cues.words_of`; rule 5)."""
_NOT_VALUE: Final = re.compile(
    r"[nir](?<!\w.)(?:(?<=n)ot|(?<=i)nstead of|(?<=r)ather than|(?<=n)o longer"
    r"|(?<=r)eplac(?:e|es|ed|ing))\s+(?:the\s+)?([^\s,;.!?]+(?:[.][^\s,;!?]+)*)"
)
"""A value named as replaced: "not 3.12", "instead of X" (rule 5: from its first letter)."""
_OUTDATED: Final = re.compile(
    r"([^\s(]+) (?:is|was|are|were) (?:out of date|outdated|obsolete|wrong|no longer (?:valid|"
    r"current|right))",
    re.IGNORECASE,
)
"""A value named as no longer holding: "(2027-06-28 is out of date.)"."""
_OUTDATED_NEEDS: Final = re.compile(
    r" (?:is|was|are|were) (?:out of date|outdated|obsolete|wrong|no longer (?:valid|current|"
    r"right))",
    re.IGNORECASE,
)
"""What every _OUTDATED match holds (rule 5: a text without it is not searched; this
search skips to each space, _OUTDATED's tries every position)."""
_TOKEN: Final = re.compile(
    r"[A-Za-z$\d](?:(?<=[A-Za-z])(?:[A-Za-z0-9_'+#.-]*[A-Za-z0-9+#])?|(?<=\$)\d[\w.,:/$%-]*"
    r"|(?<=\d)[\w.,:/$%-]*)"
)
"""A word, or a number with what sticks to it (rule 5: from its first character)."""
_NUMBER: Final = re.compile(
    r"[$\d](?<![\w.-][$\d])(?:(?<=\$)\d+|(?<=\d)\d*)(?:[.,:/-]\d+)*%?(?!\w)"
)
"""A number or amount, not inside a word (rule 5: from its first character)."""
_NAME: Final = re.compile(
    r"[A-Z](?<=[a-z,;:] [A-Z])(?:[a-z]+(?:[ -][A-Z][a-z]+)*|[A-Z]\w*(?![\w-]))"
)
"""A capitalized name or an acronym after a lowercase word or a comma (rule 5: from its
first letter)."""
_VALUE_MARK: Final = re.compile(
    r"[\d$€£@/_(:.A-Z-](?:(?<=[\d$€£@/_(])|(?<=:):|(?<=[\w-]\.)[A-Za-z_]|(?<=[A-Za-z\d]-)[A-Za-z\d]"
    r"|(?<=[a-z\d][A-Z])|(?<=[A-Z])(?:[A-Z\d]|(?<=[a-z,;:] [A-Z])[A-Za-z]|rror|xception|arning))"
)
"""What a text with any value has (rule 5): a digit, a currency sign, `@`, `/`, `_`, `(`,
`::`, a dotted or hyphenated name, a capital after a letter or digit, two capitals, a
name after a lowercase word (`_NAME`), or an error name: every `_NUMBER`, `_NAME` and
`prose_facts` value needs one (`_shapes._SHAPED`, `_facts._SPACED`, `_facts._NAMED_IN_TEXT`)."""
_NO_VALUES: Final[frozenset[str]] = frozenset()
_UPDATE_WORDS: Final = word_set(
    """
    actually correction update changed change changes switch switched switching moved move
    instead longer anymore now rather replace replaced replacing raised raise lowered
    lower increased increase decreased decrease reduced reduce extended extend bumped bump
    postponed postpone pushed push back updated new old current currently from going
    forward wait sorry scratch plan plans today week this next
    """
)
_GO_AHEAD: Final = word_set(
    """
    continue proceed carry keep going go ahead on resume next step steps summarize recap
    tell know left done finish finished start started
    """
)
"""Words of a bare go-ahead ("Please continue.", "Go on, next step."): no goal (rule 1)."""
UPDATE_LEAD: Final = re.compile(
    r"^(?:actually|correction|update|change of plans?|scratch that|wait|sorry|instead|"
    r"on second thought|small change|quick change|one change|new info)\b[\s,:;.!-]*",
    re.IGNORECASE,
)
"""An update's lead-in: read past it for what the sentence states (rule 1)."""
_COMMAND: Final = re.compile(
    r"^(?:please )?(?:use|switch|make|keep|write|run|set|go|change|move|put|call|send|pick|"
    r"choose|stick|do|don't|never|always|stop|start|only)\b"
)
"""An instruction after the lead-in: "Actually, use 3.12" stays a correction (a rule)."""
_MIN_CHARS: Final = 8
_MAX_CHARS: Final = 400


def _read_statement_kind(sentence: str) -> StatementKind | None:
    """What `sentence` states (rule 1), or None."""
    rule = classify(sentence)
    text = sentence.strip()
    rest = UPDATE_LEAD.sub("", text, count=1)
    if rest and rest != text and rule in (None, "correction") and not _COMMAND.match(fold(rest)):
        inner = statement_kind(rest[0].upper() + rest[1:])
        if inner in ("goal", "fact", "decision") or (rule is None and inner is not None):
            return inner  # "Update: the host is X" is a fact, "Scratch that, never Y" a rule
    if rule is not None:
        return rule
    if not _MIN_CHARS <= len(text) <= _MAX_CHARS or text.endswith("?"):
        return None
    folded = fold(text)
    return None if _ACK.match(folded) else _other_kind(text, folded)


def _other_kind(text: str, folded: str) -> StatementKind | None:
    """A standing instruction, goal, decision or fact, in that order (rule 1)."""
    if _STANDING.match(folded):
        return "obligation"
    if _GOAL.match(folded):
        return "goal" if names(text) or not _GO_AHEAD.issuperset(subject_words(text)) else None
    if _IMPERATIVE.match(folded) and names(text):
        return "goal"
    if any(map(folded.__contains__, DECISION_NEEDS)) and _DECISION.search(folded):
        return "decision"
    return "fact" if not _REQUEST.match(folded) and names(text) else None


def names(text: str) -> bool:
    """Whether `text` states a value (`values(text)` is not empty), read without them all
    when a number or a name shows one (rule 5: both are values whenever they match)."""
    if _VALUE_MARK.search(text) is None:
        return False
    if _NUMBER.search(text) is not None or _NAME.search(text) is not None:
        return True
    return bool(values(text))


def _read_values(text: str) -> frozenset[str]:
    """The values `text` states, verbatim: identifiers, dates, amounts, numbers, names."""
    if _VALUE_MARK.search(text) is None:
        return _NO_VALUES  # rule 5: most sentences hold no mark of any value
    return _marked_values(text)


def _marked_values(text: str) -> frozenset[str]:
    """`_read_values` without its gate."""
    found = set(map(_VALUE, prose_facts(text)))
    found.update([number.rstrip(".,") for number in _NUMBER.findall(text)])
    found.update(_NAME.findall(text))
    found.discard("")
    return frozenset(found) if found else _NO_VALUES


_VALUE: Final = attrgetter("value")


def _read_subject_words(text: str) -> tuple[str, ...]:
    """Content words of `text` without values, names, filler or update words, each once
    (rule 3)."""
    tokens = _TOKEN.findall(text)
    stated = _stated(text, tokens)
    if stated:
        skip = {*stated, *(w for v in stated for w in v.split())}
        tokens = list(filterfalse(skip.__contains__, tokens))
    return tuple(dict.fromkeys(chain.from_iterable(map(_word_subjects, tokens))))


def _stated(text: str, tokens: list[str]) -> Collection[str]:
    """`values(text)`, or those of them that can be, or hold, a token of `tokens` that gives
    subject words (rule 6): when every such token is letters alone with at most its first
    one a capital (or two capitals), no value but a name or a shape that spans a space is
    one (a value of a word's shape or a named one has a digit, a mark or more capitals, and
    a number digits), so the values are not read (in text with ASCII digits alone: a run of
    hex letters before another digit is a hash)."""
    known = _VALUES.get(text)
    if known is not None:
        return known
    if _VALUE_MARK.search(text) is None:
        return _NO_VALUES
    if all(map(_plain, filter(_word_subjects, tokens))) and _OTHER_DIGIT.search(text) is None:
        return [*_NAME.findall(text), *spaced_values(text)]
    return values(text)


def _plain(token: str) -> bool:
    """Letters alone, with at most the first a capital, or two capitals (`_stated`)."""
    return token.isalpha() and (token[1:].islower() or (len(token) == 2 and token.isupper()))


_OTHER_DIGIT: Final = re.compile(r"(?![0-9])\d")
"""A digit other than 0-9 (which `\\d` in a shape's pattern also matches)."""


def _read_word_subjects(word: str) -> tuple[str, ...]:
    """The subject words one token gives, wherever it stands (cached: words recur)."""
    if word.isalpha():  # most tokens: one piece, no digit, no apostrophe
        lowered = word.lower()
        if lowered in _NOT_SUBJECTS:
            return ()
        stem = _stem(word if lowered == word else lowered)  # a stem shares its key's characters
        return (stem,) if len(stem) > 1 and stem not in _NOT_STEMS else ()
    if _has_digit(word):
        return ()
    lowered = word.lower()
    if lowered in FILLER:
        return ()
    out: list[str] = []
    for piece in (lowered,) if lowered.isalpha() else _JOINERS.split(lowered):
        if piece in FILLER or piece in _UPDATE_WORDS or "'" in piece:
            continue
        stem = _stem(piece)
        if len(stem) > 1 and stem not in FILLER and stem not in VALUE_WORDS:
            out.append(stem)
    return tuple(out)


_JOINERS: Final = re.compile(r"[-_./]")
_NOT_SUBJECTS: Final = FILLER | _UPDATE_WORDS
"""Words that are never subject words (one lookup for both tables)."""
_NOT_STEMS: Final = FILLER | VALUE_WORDS
"""Stems that are never subject words."""


def _has_digit(word: str) -> bool:
    """Whether `word` has a digit (a word of letters has none: the classes are disjoint)."""
    return not word.isalpha() and any(map(str.isdigit, word))


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _read_is_update(text: str) -> bool:
    """Whether `text` says an earlier statement no longer holds (rule 4)."""
    folded = fold(text)
    if UPDATE_NEEDS.isdisjoint(words_of(folded)) and not folded.startswith(UPDATE_FIRST):
        return False
    return _UPDATE.search(folded) is not None


def _read_replaced_values(text: str) -> frozenset[str]:
    """Values `text` names as no longer holding ("not 3.12", "instead of Postgres")."""
    found = [m.group(1) for m in _NOT_VALUE.finditer(text)]
    if _OUTDATED_NEEDS.search(text) is not None:
        found += [m.group(1) for m in _OUTDATED.finditer(text)]
    return frozenset([v.strip("'\".,;:!?()") for v in found]) if found else _NO_VALUES


_CHATTER: Final = _GO_AHEAD | word_set(
    """
    noted note mind sound good great thank thanks perfect cool nice sure understood sense
    fine alright awesome got know left lgtm agreed yes yeah yep cheers appreciate
    """
)


def _read_is_filler(text: str) -> bool:
    """Whether `text` only acknowledges or says go on ("Noted, I'll keep that in mind.",
    "Sounds good.", "Please continue."): it states nothing worth carrying."""
    folded = fold(text.strip())
    if not folded or _ACK.match(folded):
        return True
    return (
        len(folded) <= _MAX_FILLER and not names(text) and _CHATTER.issuperset(subject_words(text))
    )


_MAX_FILLER: Final = 80


def rank(kind: StatementKind) -> int:
    """The card's fill order for `kind` (rule 2): lower is kept first."""
    return RANKS[kind]


KINDS: Final = Memo(_read_statement_kind, 1 << 15)
statement_kind: Final = KINDS.__getitem__
_VALUES: Final = Memo(_read_values, 1 << 15)
values: Final = _VALUES.__getitem__
subject_words: Final = Memo(_read_subject_words, 1 << 15).__getitem__
_word_subjects: Final = WordMemo(_read_word_subjects, 1 << 16).__getitem__
is_update: Final = Memo(_read_is_update, 1 << 15).__getitem__
replaced_values: Final = Memo(_read_replaced_values, 1 << 15).__getitem__
is_filler: Final = Memo(_read_is_filler, 1 << 15).__getitem__
"""Cached per text (rule 4 of `_content_cache`): cleared by `clear_caches()`."""
