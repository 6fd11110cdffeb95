"""What a user sentence states beyond rules (goals, facts, decisions), and whether it updates.

Rules:
1. A sentence's kind is its rule kind when a rule cue matches (`_cues.classify`); past an
   update's lead-in ("Update:", "Scratch that,"), a fact, goal or decision stays one; else a
   goal or next step (GOAL cues, or an imperative that names a value); else a decision
   (DECISION cues); else a fact when it states a value (an identifier, host, date,
   amount, version, number or name) or a standing state (`_STATE`: "I'm a premium
   member", "We use tabs", "The main branch is protected") and is not a question or a
   request for help, nor chit-chat opening with a laugh ("haha", "lol"). Short
   acknowledgements ("ok", "sounds good", "thanks"; not one with a number or an update:
   "Yes, 2 bags", "No, let's do option 2"), bare go-aheads ("Please
   continue.", "Keep going.") and bare archive references ("(r0123456789)", the source
   tag of a pasted card line) state nothing; a Markdown heading ("# Acme Billing
   Service", the title of a pasted document) states only a rule its words state.
2. RANKS order what the card keeps when room is short: rules and constraints, then the
   current goal and next step, then facts, values and decisions, then preferences.
3. What a sentence is about (`subject_words`) and the values it states (`values`, `names`)
   are read by `_values` (its rules 1-3).
4. `is_update` marks a sentence that says an earlier statement no longer holds (a lead-in
   such as "actually" or "scratch that", after any sounds: "Hmm, on second thought", "No
   wait"; "No,"; "from now on", "instead", "no longer", "switch to", "is now", "not X
   anymore", "make that $5,000" / "make it Friday" (a value said alone), a retraction:
   "forget what I said about X", `_retractions.RETRACTION`), and
   `replaced_values` the values it names as the old ones ("not 3.12", "instead of X").
5. Speed never changes a result: a search most sentences fail runs only when the text
   holds a word every match contains (DECISION_NEEDS, UPDATE_NEEDS, _OUTDATED_NEEDS), and
   patterns that would start with a check match their first character first (as `_facts`
   rule 5 says).
All functions are pure and cached by sentence.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from .._content_cache import Memo
from .._messages import REF_PATTERN
from ._cue_table import INTERJECTION, Kind
from ._cues import classify, fold, gated, words_of
from ._facts import word_set
from ._retractions import is_retraction
from ._values import NO_VALUES, names, subject_words

__all__ = [
    "DECISION_NEEDS",
    "KINDS",
    "RANKS",
    "RULE_RANK",
    "UPDATE_FIRST",
    "UPDATE_LEAD",
    "UPDATE_NEEDS",
    "StatementKind",
    "is_filler",
    "is_pick",
    "is_update",
    "rank",
    "replaced_values",
    "statement_kind",
]

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

_LEAD: Final = (
    r"^(?:(?:ok|okay|so|and|also|then|now|alright|right|great|good|thanks|no)[,:;!.]?\s+)*"
)
_GOAL: Final = re.compile(
    _LEAD
    + r"(?:(?:the |our |my |your )?next(?: step| steps| task| thing)?\b|then\b|after (?:that|this|"
    r"the\b)|once\b|(?:the|our|my|your) (?:(?:main|overall|end|ultimate|real|primary|only|"
    r"current|immediate|top|big|actual|first|whole) )?(?:goal|objective|aim|task|plan|priority|"
    r"mission|focus)\b|(?:your|our|my) (?:(?:main|real|actual|only|first) )?(?:job|role|"
    r"assignment)(?: here| today| now| for (?:this|today))?(?: is|:)|the idea (?:here )?is to\b|"
    r"(?:the |today's |this week's )?(?:goal|objective|task|plan|priority|todo|to-do)\s*:|"
    r"i(?:'d| would)? (?:like|want|need|hope)(?: you| (?:the|my|our|this|these|all) [\w -]{1,40})?"
    r" to\b|"
    r"what (?:i|we)(?:'m| am|'re| are)? (?:after|aiming for|going for|want|need)"
    r"(?: from you)?(?: is|:)|you(?:'ll| will) be (?:helping|working on|assisting)\b|"
    r"you(?:'re| are) here to\b|"
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
_BANTER: Final = re.compile(
    r"(?:ha(?:ha)+|hah|he(?:he)+|heh|lol|lmao|rofl|omg|ugh|yay|wow|phew|jeez|geez|lolol)\b"
)
"""A laugh or an exclamation first: chit-chat, not a goal, decision or fact (a rule cue
after it still makes a rule: "lol ok, never push to main")."""
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
    rf"^{INTERJECTION}(?:actually|correction|update|change of plans?|scratch that|wait|sorry|"
    r"instead|on second thought|small change|quick change|change)\b|^no,|"
    r"^make (?:that|it) (?:[$€£\d]|v\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d)|"
    rf"^{INTERJECTION}[^;,]*\binstead[.!]?$|"
    r"\b(?:from now on|going forward|no longer|instead of|switch(?:ed|ing)? to|"
    r"change[ds]? (?:it |that )?to|moved? to|now (?:is|are|at|on|use|uses|using|be)|"
    r"(?:is|are|has been|have been) now|anymore|any more|not .{1,40} but|rather than|"
    r"replaced? (?:by|with)|has changed|have changed|updated to|bump(?:ed)? to|"
    r"raised? to|lower(?:ed)? to|increase[ds]? to|decrease[ds]? to|reduced? to|extend(?:ed)? to|"
    r"push(?:ed)? (?:back )?to|postponed? to|is moving to|"
    r"(?:push(?:ed)?|postponed?|moved?|extend(?:ed)?) (?:the|our|my) deadline (?:back )?to|"
    r"(?:moved|pushed|rescheduled|postponed|shifted|switched|changed|bumped|raised|lowered|"
    r"increased|decreased|reduced|extended|upped|cut) (?:it|that|this|them|everything|all|"
    r"(?:the|our|my|your) (?:[\w-]+ ){0,2}[\w-]+) (?:back |forward |up |down )?to|"
    r"(?:move|shift) (?:it|that|this|them) (?:back |forward )?to|"
    rf"^{INTERJECTION}(?:please |let'?s )?(?:push|reschedule|postpone|bump|raise|lower|"
    r"increase|decrease|reduce|extend|up|cut) (?:it|that|this|them|(?:the|our|my|your) "
    r"(?:[\w-]+ ){0,2}[\w-]+) (?:back |forward |up |down )?to)\b"
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
    "make that",
    "make it",
)
"""How an update that names itself first starts (rule 5)."""
_OPENS_UPDATE: Final = re.compile(INTERJECTION + f"(?:{'|'.join(map(re.escape, UPDATE_FIRST))})")
"""An update that names itself first, after any sounds ("Hmm, actually ..."): one match at
the start of the text (rule 5)."""
UPDATE_NEEDS: Final = gated(
    word_set(
        """
        now forward longer instead switch switched switching change changed changes move
        moved moving anymore any but rather replace replaced updated bump bumped raise
        raised lower lowered increase increased increases decrease decreased decreases
        reduce reduced extend extended push pushed postpone postponed forget ignore
        disregard mind drop scrap lift rescheduled reschedule postponed shifted shift upped
        up cut
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
_GO_AHEAD: Final = word_set(
    """
    continue proceed carry keep going go ahead on resume next step steps summarize recap
    tell know left done finish finished start started
    """
)
"""Words of a bare go-ahead ("Please continue.", "Go on, next step."): no goal (rule 1)."""
UPDATE_LEAD: Final = re.compile(
    rf"^{INTERJECTION}(?:actually|correction|update|change of plans?|scratch that|wait|sorry|"
    r"instead|on second thought|small change|quick change|one change|new info)\b[\s,:;.!-]*",
    re.IGNORECASE,
)
"""An update's lead-in: read past it for what the sentence states (rule 1)."""
_COMMAND: Final = re.compile(
    r"^(?:please )?(?:use|switch|make|keep|write|run|set|go|change|move|put|call|send|pick|"
    r"choose|stick|do|don't|never|always|stop|start|only)\b"
)
"""An instruction after the lead-in: "Actually, use 3.12" stays a correction (a rule)."""
_MIN_CHARS: Final = 8
_DIGIT: Final = re.compile(r"\d")
_HEADING: Final = re.compile(r"\s*#{1,6}[ \t]+")
"""A Markdown heading: a title, not a statement (rule 1)."""
_MAX_CHARS: Final = 400
_REFS_ONLY: Final = re.compile(rf"[\s(\[]*(?:{REF_PATTERN}[\s),;.\]]*)+")
"""A sentence that is only archive references ("(r0123456789)", a pasted card line's
source tag): it states nothing."""


def _read_statement_kind(sentence: str) -> StatementKind | None:
    """What `sentence` states (rule 1), or None."""
    if _REFS_ONLY.fullmatch(sentence) is not None:
        return None
    heading = _HEADING.match(sentence)
    if heading is not None:  # a title states only a rule it words
        return classify(sentence[heading.end() :])
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
    return _other_kind(text, fold(text))


_STATE: Final = re.compile(
    _LEAD + r"(?:i(?:'m| am) (?:a|an) (?!bit\b|little\b|lot\b|(?:big |huge )?fan\b|mess\b)"
    r"(?:[a-z-]+ ){0,2}[a-z-]+$|i(?:'m| am) (?:allergic|intolerant|vegan|vegetarian|diabetic|"
    r"pregnant|colou?r-?blind|deaf|blind|disabled|left-handed|based in|located in|new to|"
    r"registered|subscribed|enrolled)\b|(?:i|we|(?:my|our) [a-z-]+)(?: (?:mostly|usually|"
    r"only|always|currently|mainly))? (?:use|uses|follow|follows|own|owns|maintain|"
    r"maintains|host|hosts|target|targets)\b(?! (?:it|this|that|them)\b)|"
    r"(?:the|our|my) (?:[a-z][\w-]* ){1,3}(?:is|are) (?:(?:now|always|still|currently) )?"
    r"(?:protected|private|public|read-only|readonly|deprecated|frozen|locked|mandatory|"
    r"optional|immutable|generated|auto-generated|vendored|archived|confidential|internal|"
    r"(?:owned|managed|maintained) by|hosted (?:on|in|at)|deployed (?:on|to|in)|written in|"
    r"built (?:with|on)|located in|off[- ]limits)\b)"
)
"""A standing fact with no value in it (rule 1): who the user is ("I'm a premium member",
"I'm allergic to peanuts"), what the team uses or owns ("We use tabs", "Our team owns
the payments service"), and what state a thing is kept in ("The main branch is
protected")."""


def _other_kind(text: str, folded: str) -> StatementKind | None:
    """A standing instruction, goal, decision or fact, in that order (rule 1)."""
    if (_ACK.match(folded) and not (_DIGIT.search(text) or is_update(text))) or _BANTER.match(
        folded
    ):
        return None  # "ok thanks" (not "Yes, use port 8080"), "haha, my cat typed 77777"
    if _STANDING.match(folded):
        return "obligation"
    if _GOAL.match(folded):
        return "goal" if names(text) or not _GO_AHEAD.issuperset(subject_words(text)) else None
    if _IMPERATIVE.match(folded) and names(text):
        return "goal"
    if any(map(folded.__contains__, DECISION_NEEDS)) and _DECISION.search(folded):
        return "decision"
    stated = names(text) or _STATE.match(folded) is not None
    return "fact" if stated and not _REQUEST.match(folded) else None


def _read_is_update(text: str) -> bool:
    """Whether `text` says an earlier statement no longer holds (rule 4)."""
    folded = fold(text)
    if UPDATE_NEEDS.isdisjoint(words_of(folded)) and _OPENS_UPDATE.match(folded) is None:
        return False
    return _UPDATE.search(folded) is not None or is_retraction(folded)


def _read_replaced_values(text: str) -> frozenset[str]:
    """Values `text` names as no longer holding ("not 3.12", "instead of Postgres")."""
    found = [m.group(1) for m in _NOT_VALUE.finditer(text)]
    if _OUTDATED_NEEDS.search(text) is not None:
        found += [m.group(1) for m in _OUTDATED.finditer(text)]
    return frozenset([v.strip("'\".,;:!?()") for v in found]) if found else NO_VALUES


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


_PICK: Final = re.compile(
    r"(?:(?:the|a|an|my|our) )?(?!(?:i|you|we|it|that|this|they|he|she|there|what|why|how|who|"
    r"never|not|no|one|just|so|my|me)\b)(?:[\w$€£.:/@-]+ ){0,3}[\w$€£.:/@-]+"
    r"(?:,? (?:please|then|instead|it is))?"
)
"""A choice said alone, after a correction's lead-in: "aisle seat please", "plan B",
"the green theme" (up to four words, no pronoun first)."""
_NOT_PICKED: Final = _CHATTER | word_set(
    """
    is are was were be been have has had do does did can will would think mean meant
    see look said wrong right bad mistake typo question idea point oops what
    """
)


_SOFTENERS: Final = word_set("the a an my our please then instead it is")


def _read_is_pick(text: str) -> bool:
    """Whether `text` (past a correction's lead-in) only names a choice (`_PICK`): its
    words hold a subject word, and none says something else (a verb, chat, "my bad")."""
    folded = fold(text)
    if _PICK.fullmatch(folded) is None:
        return False
    said = folded.replace(",", " ").split()
    return _NOT_PICKED.isdisjoint(said) and not _SOFTENERS.issuperset(said)


def rank(kind: StatementKind) -> int:
    """The card's fill order for `kind` (rule 2): lower is kept first."""
    return RANKS[kind]


KINDS: Final = Memo(_read_statement_kind, 1 << 15)
statement_kind: Final = KINDS.__getitem__
is_update: Final = Memo(_read_is_update, 1 << 15).__getitem__
replaced_values: Final = Memo(_read_replaced_values, 1 << 15).__getitem__
is_filler: Final = Memo(_read_is_filler, 1 << 15).__getitem__
is_pick: Final = Memo(_read_is_pick, 1 << 15).__getitem__
"""Cached per text (rule 4 of `_content_cache`): cleared by `clear_caches()`."""
