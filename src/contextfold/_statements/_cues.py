"""Which user sentences are rules, and of which kind (what each is about: `_subjects`).

Rules:
1. Precision before recall: a wrong rule is carried forever. A sentence is a rule only
   when a cue in CUES matches it, it is not a question, and it is the user's own prose
   (pasted documents, code and quotes are removed first, see `_facts.outside_quotes`;
   a cue inside quotes in the sentence does not count, nor does a sentence that relays
   what a document or a tool says: "The README says: ...").
   A short lead-in that ends with a colon ("Important:", "Rule:", "One more thing:",
   "Important rule for the rest of this session:", numbered: "Rule 2:", "Rule 2 -") is
   read past: what follows it must be a rule on its own, and the rule is still the whole
   sentence.
2. Some cues only ever *replace* an existing rule and never add one (OVERRIDE_ONLY): a
   permission ("you may edit the tests now") or a correction ("actually, use 3.12"); a
   retraction ("Forget what I said about X", "The X rule no longer applies", "Never mind
   the deadline") is a correction, tried first.
   A request that says what the work must leave alone ("change it without changing the
   dates") states a prohibition. A note the user flags for later ("Note that ...", "Keep
   in mind ...", "For later: ...") is carried like a rule: the user asked for it to stay.
3. Each cue names the words (`needs`: maximal runs of a-z in the folded sentence) of which
   every match contains one; a sentence is searched only with the cues it has a word for,
   so most sentences cost one split into words. `needs` only skips searches that would
   fail: it never changes what is detected.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final, Literal

from .._content_cache import Memo, on_clear
from ._facts import normalize, word_set

Kind = Literal[
    "prohibition",
    "obligation",
    "limit",
    "deadline",
    "preference",
    "permission",
    "correction",
    "note",
]
OVERRIDE_ONLY: Final[frozenset[Kind]] = frozenset({"permission", "correction"})

_OPENER: Final = (
    r"^(?:(?:please|and|also|but|so|actually|oh|ok|okay|just|again|remember|note|however|"
    r"plus|then|sure|yes|no|well|finally|additionally|important|reminder)[,:;!.]*\s+)*"
)
UNIT: Final = (
    r"(?:[$€£]\s?\d|\d[\d,.]*\s?(?:%|percent|dollars?|usd|eur|euros?|hours?|hrs?|days?|"
    r"weeks?|minutes?|mins?|lines?|words?|tokens?|files?|characters?|chars|bags?|seconds?|"
    r"secs?|steps?|stops?|tries|retries|attempts?|times|kb|mb|gb|items?|calls?|requests?)\b|"
    r"\d[\d,.]*\s[a-z]+\s(?:calls?|requests?|queries|jobs?|messages?|emails?)\b)"
)
"""An amount with its unit (money, a count of something), as a limit states it."""
_WHEN: Final = (
    r"(?:the end of (?:the )?(?:day|week|month)|end of (?:day|week|month)|eod|eow|tomorrow|"
    r"tonight|noon|midnight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d|"
    r"\d{1,2}(?::\d{2})?\s?[ap]\.?m\b|\d{4}-\d{2}-\d{2})"
)
_WITHOUT: Final = (
    r"^(?=.*\bwithout (?:breaking|changing|touching|modifying|altering|affecting|removing|"
    r"deleting|dropping|losing)\b)"
    r"(?!.*\b(?:ago|since|was|were|did|had)\b)(?=.*\b(?:i'd like|i would like|i want|i need|"
    r"we need|please|help me|make|fix|change|update|finish|do|get|refactor|migrate|upgrade|"
    r"goal|task|trying to)\b)"
)
"""A sentence that asks for work and says what the work must leave alone (`... without
changing the dates`); the `without` clause is looked for first, so most sentences fail
fast."""
_PERSONAL: Final = (
    r"\b(?:i|i'm|i'd|i'll|my|we|we're|our|you|your|please|keep|budget|limit|don't|do not|"
    r"need|must|want|prefer|should|make sure)\b"
)


_RULE_NOUN: Final = (
    r"(?:earlier |previous |last |old )?(?:rule|requirement|constraint|restriction|note|"
    r"instruction|request|preference)s?"
)
RETRACT_LEAD: Final = (
    r"^(?:(?:please|ok|okay|also|and|oh)[,!]?\s+)*(?:(?:forget|ignore|disregard)(?: about)? "
    rf"(?:what i (?:said|told you|wrote|asked)|(?:my|the|that|this) {_RULE_NOUN})|"
    rf"forget about|never mind(?: about)? (?:the|my|that|what)|(?:drop|scrap|lift) (?:my|the|that|"
    rf"this) {_RULE_NOUN})\b(?: (?:about|on|for|regarding|re)\b)?"
)
_RULE_ABOUT: Final = rf"\b(?:the |my |that )?{_RULE_NOUN} (?:about|on|for|regarding)\b"
_NO_LONGER: Final = (
    r"\b(?:(?:is|are) no longer (?:needed|necessary|required|relevant|valid|in effect|in force)|"
    r"no longer (?:applies|apply|holds|hold|stands|matters))\b"
)
RETRACTION: Final = re.compile(rf"{RETRACT_LEAD}|(?:{_RULE_ABOUT})?[^.;]*?{_NO_LONGER}")
"""A sentence that lifts an earlier statement without stating a new value (rule 2): it
names itself first ("Forget what I said about ...") or says its subject no longer holds
("The X rule no longer applies", "X is no longer needed")."""
RETRACT_WORDS: Final = re.compile(rf"{RETRACT_LEAD}|{_RULE_ABOUT}|{_NO_LONGER}", re.IGNORECASE)
"""The words of a retraction that say it retracts, not what it is about."""


Cue = tuple[Kind, frozenset[str], str]
"""(kind, words one of which a match contains, pattern)."""


def _cue(kind: Kind, needs: str, pattern: str) -> Cue:
    """One row of CUES: a match contains one of the `needs` words (rule 3); a leading
    `(?=[...])` names the letters a match can start with, so the search skips other
    positions fast."""
    return kind, word_set(needs), pattern


CUES: Final[tuple[Cue, ...]] = (
    _cue(
        "correction",
        "forget ignore disregard mind drop scrap lift longer",
        RETRACTION.pattern,
    ),
    _cue(
        "permission",
        "you free fine ok okay alright need",
        r"(?=[yfin])\b(?:you (?:may|can) (?:now |also |still )?(?!not\b|be\b|see\b|find\b)"
        r"\w+|feel free to|it'?s (?:fine|ok|okay|alright) (?:to|if you)|you are allowed to|"
        r"you're allowed to|you don'?t have to|you do not have to|you don'?t need to|"
        r"you do not need to|no need to)\b",
    ),
    _cue(
        "limit",
        "most more up maximum max below under less within cheaper exceed higher limit limited",
        rf"(?=[anumblwc])\b(?:at most|no more than|not more than|up to|maximum of|a maximum of|"
        rf"at or below|at or under|"
        rf"max(?:imum)?|under|below|less than|within|cheaper than|not exceed|no higher than|"
        rf"limit(?:ed)? (?:of|to|is))\s+(?:a |an |the )?(?:total of )?{UNIT}",
    ),
    _cue("limit", "budget", rf"(?=[mota])\b(?:my|our|the|a) budget (?:is|of)\b.*{UNIT}"),
    _cue("limit", "limit", rf"{_OPENER}limit\b.*\bto\s+{UNIT}"),
    _cue(
        "deadline",
        "by before later until due",
        rf"(?=[bnud])\b(?:by|before|no later than|until|due)\s+{_WHEN}",
    ),
    _cue("deadline", "deadline", r"(?=d)\bdeadline\b"),
    _cue(
        "prohibition",
        "do don dont never avoid stop refrain",
        _OPENER + r"(?:do not|don'?t|never|avoid|stop|refrain from)\s+"
        r"(?!worry|hesitate|mind\b|forget)\w",
    ),
    _cue(
        "prohibition",
        "forbidden prohibited allowed permitted limits",
        _OPENER + r"[a-z][\w-]*ing\b[^,;]{0,60} (?:is|are) (?:strictly |absolutely |completely )?"
        r"(?:forbidden|prohibited|not allowed|not permitted|off[- ]limits)[.!]*$",
    ),
    _cue(
        "prohibition",
        "must mustn should shouldn may are aren",
        r"(?=[ywt])\b(?:you|we|the agent|the assistant) (?:must not|mustn't|should not|"
        r"shouldn't|may not|are not allowed to|aren't allowed to|are not to)\b",
    ),
    _cue(
        "prohibition",
        "want wish need",
        r"(?=i)\bi (?:do not|don't|would not|wouldn't) (?:want|wish|need)\b",
    ),
    _cue(
        "prohibition",
        "rather circumstances circumstance",
        r"(?=[iu])(?:\bi(?:'d| would) rather not\b|\bunder no circumstances?\b)",
    ),
    _cue(
        "prohibition",
        "must mustn",
        r"(?=m)(?:(?<!there )\bmust not\b|\bmustn't\b|\bmust never\b)",
    ),
    _cue("prohibition", "without", _WITHOUT),
    _cue(
        "obligation",
        "always sure ensure remember forget",
        _OPENER + r"(?:always|make sure|be sure|ensure|remember to|"
        r"don't forget to|do not forget to)\b",
    ),
    _cue(
        "obligation",
        "sure",
        r"(?=[apl,])(?:\band|\bplease|\balso|,) (?:make sure|be sure to)\b",
    ),
    _cue(
        "obligation",
        "must need have required should",
        r"(?=[yw])(?<!\bin case )(?<!\bif )\b(?:you|we) (?:must|need to|have to|are required to|"
        r"should)\b"
        r"(?! be able| see| find| know| have received| get| receive| already| probably)",
    ),
    _cue(
        "obligation",
        "you always",
        r"(?=[im])(?:\bi (?:need|want|would like|'d like) you to\b|\bmust always\b)",
    ),
    _cue(
        "obligation",
        "has have need needs required",
        r"(?=[eaf])\b(?:every|each|all|from now on,? (?:every|each|all))\b[^.;]{0,60}?"
        r"\b(?:has to|have to|needs? to|is required to|are required to)\b",
    ),
    _cue("obligation", "exceptions", r"(?=n), no exceptions\b"),
    _cue(
        "obligation",
        "when whenever each every after before once if",
        r"^(?:when|whenever|each time|every time|after|before|once|if)\b[^,]{3,60},\s*"
        r"(?:please\s+)?(?:always\s+)?(?:sign|tag|mention|include|add|use|write|ping|notify|"
        r"tell|ask|run|check|email|send|label|prefix|end|start|put|keep|update|commit|open|"
        r"close|attach|cc|post|report|log|note)\b",
    ),
    _cue(
        "prohibition",
        "no",
        _OPENER + r"no (?:new |more |extra |additional |external |third-party )?"
        r"(?!problem|worries|worry|thanks|thank|luck|idea|way|clue|doubt|rush|pressure|"
        r"one|longer|matter|need|change|changes|further|other|reservation|i\b|it\b)"
        r"[a-z][a-z-]*s?(?: [a-z][a-z-]*)?(?: (?:please|allowed|permitted))?[.!]?$",
    ),
    _cue(
        "obligation",
        "must shall",
        r"(?=[ms])(?<!\bi )(?<!there )(?<!it )(?<!that )\b(?:must|shall)\s+(?!not\b|never\b|have\b|"
        r"be (?:a|an|the|some|that|why|wrong|missing|because|related)\b)\w+",
    ),
    _cue(
        "obligation",
        "keep only stick use limit stay",
        _OPENER + r"(?:keep|only|stick to|use only|limit yourself to|stay)\s+"
        r"(?!going|trying|looking|up\b|it up|in mind|me posted|on\b|tuned|calm|with me)\w",
    ),
    _cue("preference", "use", _OPENER + r"use\b[^,.;]{1,60}, not\b"),
    _cue(
        "preference",
        "prefer rather preference use",
        r"(?=[imp])(?:\bi (?:prefer|would prefer|'d prefer)\b|\bi(?:'d| would) rather\b|"
        r"\bmy preference\b|\bplease use\b)",
    ),
    _cue(
        "preference",
        "instead",
        _OPENER + r"(?:use|write|call|run|put|keep|return|choose|pick|pay|"
        r"send|switch to)\b.*\binstead of\b",
    ),
    _cue(
        "correction",
        "actually instead second change correction scratch wait",
        r"^(?:actually|instead|on second thought|change of plans?|correction|"
        r"scratch that|wait)\b",
    ),
    _cue(
        "note",
        "note mind remember later future record fyi information know",
        r"^(?:please )?(?:note that|keep in mind(?: that)?|bear in mind(?: that)?|remember that|"
        r"for later|for future reference|for the record|fyi|for your information|"
        r"just so you know)\b[,:]?\s+\S",
    ),
)
"""Cues in the order they are tried; the first that matches names the rule's kind."""

_MIN_CHARS: Final = 8
_MAX_CHARS: Final = 300


_LEAD_IN: Final = re.compile(
    r"^(?:(?:one|another|a|an|the|my|our|just a|quick)\s+)?"
    r"(?:(?:more|last|final|other|quick|very|really|super|general|ground|house|golden|hard|"
    r"strict|key|big|main|critical|crucial|absolute|important|standing)\s+){0,3}"
    r"(?:important|rule|rules|note|nb|reminder|thing|warning|caution|constraint|"
    r"constraints|requirement|requirements|policy|instruction|instructions|ps|p\.s\.|fyi|"
    r"btw|heads[- ]up|remember|also|and)"
    r"(?:\s*#?\d{1,3}[a-z]?\b)?"
    r"(?:(?:\s+(?:for|from|during|throughout|going|in|on)\b[^:]{0,40})?\s*:|\s+[-\u2013\u2014])"
    r"\s+(?=\S)"
)
"""A lead-in before the rule itself (rule 1): at most a few words and a number ("Rule 2"),
then a colon (or a spaced dash after the head word: "Rule 2 - ...")."""


fold: Final = normalize
"""The sentence as cues read it: lowercase, straight quotes, single spaces (`normalize`
itself: a hit is one lookup in C, with no call around it)."""


def read_rule(sentence: str) -> tuple[Kind, str] | None:
    """(kind, folded text the cue matched) of a rule sentence, or None (rule 1)."""
    if not _MIN_CHARS <= len(sentence) <= _MAX_CHARS or sentence.rstrip().endswith("?"):
        return None
    folded = fold(sentence)
    cues = candidates(folded)
    if not cues:  # most sentences state no rule: no cue has a word it needs (rule 3)
        return None
    if _REPORTED.match(folded) is not None:
        return None  # what a document or a tool says, relayed: not the user's rule
    lead_in = _LEAD_IN.match(folded)
    forms = (folded[lead_in.end() :], folded) if lead_in is not None else (folded,)
    for form in forms:
        probe = unquoted(form)
        for kind, cue in cues:
            if cue.search(probe) is not None and _context_ok(kind, probe):
                return kind, form
    return None


_QUOTED_SPAN: Final = re.compile(r"\"[^\"\n]{1,200}\"|(?<![a-z0-9])'[^'\n]{2,200}'(?![a-z0-9])")
"""Words in quotes ("...", '...'; an apostrophe inside a word opens none): someone else's
words or a literal, never the cue of the user's rule (rule 1)."""
_REPORTED: Final = re.compile(
    r"^(?:the|this|that|my|our|their|his|her|a|an)\s+(?:[\w-]+\s+){0,2}?(?:readme|docs?|"
    r"documentation|wiki|tool|output|log|logs|error|linter|page|file|email|e-mail|ticket|"
    r"spec|website|site|vendor|manual|comment|message|article|post|guide|faq|changelog)\s+"
    r"(?:says?|said|states?|stated|reads?|claims?|claimed|mentions?|mentioned|suggests?|"
    r"suggested|recommends?|recommended)\b"
)
"""A sentence that relays what a document or a tool says ("The README says: ...")."""


def unquoted(folded: str) -> str:
    """`folded` with its quoted words blanked (only when it has a quote mark)."""
    if '"' not in folded and "'" not in folded:
        return folded
    return _QUOTED_SPAN.sub(" ", folded)


_Rows = tuple[tuple[Kind, re.Pattern[str]], ...]


def candidates(folded: str) -> _Rows:
    """The cues, in CUES order, that can match `folded` or any suffix of it that starts a
    word: those with a `needs` word among its words (rule 3)."""
    return _cues_needing[words_of(folded)]


def _read_cues_needing(words: frozenset[str]) -> _Rows:
    """The cues, in CUES order, that need one of `words` (cached by the set `words_of`
    shares: sentences share a few combinations of them, and equal answers are one tuple)."""
    masks = _masks()
    mask = 0
    for word in _NEEDED.intersection(words):
        mask |= masks[word]
    found = _ROWS.get(mask)
    if found is None:
        if len(_ROWS) >= _MAX_SHARED:
            _ROWS.clear()
        table = compiled()
        found = _ROWS[mask] = tuple(table[i] for i in range(len(table)) if mask >> i & 1)
    return found


_cues_needing: Final = Memo(_read_cues_needing, 1 << 12)
_ROWS: Final[dict[int, _Rows]] = {}
"""Each distinct answer of `_read_cues_needing` once, by the cues it holds (`_masks`)."""


def _read_words_of(folded: str) -> frozenset[str]:
    found = _GATE_WORDS[0].intersection(_LETTERS.findall(folded))
    shared = _SHARED.get(found)
    if shared is not None:
        return shared
    words = frozenset(map(_GATED.__getitem__, found))  # the gates' strings, not the text's
    if len(_SHARED) >= _MAX_SHARED:
        _SHARED.clear()
    return _SHARED.setdefault(words, words)


_LETTERS: Final = re.compile(r"[a-z]+")
_GATE_WORDS: Final[list[frozenset[str]]] = [frozenset()]
"""Every word some gate names (`gated`), as one frozen set."""
_GATED: Final[dict[str, str]] = {}
"""Each of those words to itself: a set of them holds the gates' strings, not the text's
copies."""
_SHARED: Final[dict[frozenset[str], frozenset[str]]] = {}
"""One object per distinct set of gate words (a few hundred: sentences share them)."""
_MAX_SHARED: Final = 1 << 12
on_clear(_SHARED.clear)
on_clear(_ROWS.clear)
_WORDS_OF: Final = Memo(_read_words_of, 1 << 15)
words_of: Final = _WORDS_OF.__getitem__
"""The words of folded text that some gate names (`gated`), as gates name them: maximal
runs of the letters a-z (cached per text: cues, updates and references back all ask, in
different stages; only gate words are kept, so an entry holds one shared set)."""


def gated(words: frozenset[str]) -> frozenset[str]:
    """`words`, registered as a gate's table: `words_of` keeps them (called at import,
    before any text is read)."""
    _GATE_WORDS[0] |= words
    _GATED.update(zip(words, words, strict=True))
    _WORDS_OF.clear()
    _SHARED.clear()
    return words


@cache
def compiled() -> tuple[tuple[Kind, re.Pattern[str]], ...]:
    """CUES compiled (on first use: importing stays cheap)."""
    return tuple((kind, re.compile(pattern)) for kind, _, pattern in CUES)


_NEEDED: Final = gated(frozenset().union(*(needs for _, needs, _ in CUES)))
"""Every word some cue needs (rule 3)."""


@cache
def _masks() -> dict[str, int]:
    """Each `needs` word and the cues that need it, as bits (bit i: CUES[i])."""
    out: dict[str, int] = {}
    for i, (_, needs, _) in enumerate(CUES):
        for word in needs:
            out[word] = out.get(word, 0) | 1 << i
    return out


def classify(sentence: str) -> Kind | None:
    """The kind of rule `sentence` states, or None when it states none (rule 1)."""
    found = read_rule(sentence)
    return found[0] if found is not None else None


def _context_ok(kind: Kind, folded: str) -> bool:
    """Limits and deadlines only count when someone asks for them, not in narration."""
    if kind == "limit":
        asked = _IMPERATIVE.match(folded) is not None or re.search(_PERSONAL, folded) is not None
        return asked and _NARRATION.search(folded) is None
    if kind == "deadline":
        return _IMPERATIVE.match(folded) is not None or _ASKED.search(folded) is not None
    return True


_IMPERATIVE: Final = re.compile(
    _OPENER + r"(?:finish|submit|send|deliver|complete|book|get|have|make|fix|do|ship|deploy|"
    r"respond|reply|return|arrive|be|reach|call|email|notify|merge|release|publish|use|write|"
    r"spend|show|add|run|limit|cap|stay|choose|pick|find)\b"
)
_NARRATION: Final = re.compile(r"\b(?:ago|since|it's been|has been|have been|was|were|did)\b")
_ASKED: Final = re.compile(
    r"\b(?:need|must|have to|has to|want|should|prefer|please|deadline|due|make sure|"
    r"would like|i'd like|don't|do not|can't|cannot|no later)\b"
)
