"""The rule cues: the kinds of rule a user sentence can state and the patterns that say so.

Rules:
1. CUES are tried in order; the first that matches names the rule's kind (`_cues`
   reads sentences with them).
2. Some cues only ever *replace* an existing rule and never add one (OVERRIDE_ONLY): a
   permission ("you may edit the tests now", "you no longer need to ...") or a correction
   ("actually, use 3.12", after any sounds: "Hmm, actually ..."); a retraction ("Forget
   what I said about X", "The X rule no longer applies", "Never mind the deadline",
   `_retractions`) is a correction, tried first.
   A request that says what the work must leave alone ("change it without changing the
   dates") states a prohibition. A note the user flags for later ("Note that ...", "Keep
   in mind ...", "For later: ...") is carried like a rule: the user asked for it to stay.
   A prohibition may follow a clause ("Whatever you do, don't ...", "If a test is flaky,
   don't ...") and a conditional may end in a stop ("If the tests fail, stop and ask me"):
   both are rules; "never" before a past tense ("never worked", "we never got") is
   narration, not a rule. Likes and dislikes ("I like ...", "I can't stand ...", "I'm not
   a fan of ...") are preferences, unless they only react to what was just said ("I like
   that idea", "I love it", "I hate to bother you").
   A bare imperative that says how the work is always done ("use X for <a purpose>", "do
   X before every ...") is an obligation, unless it names a particular thing ("use it for
   the payment"); so is what a generic subject "should" be or do ("Commit messages
   should be in the imperative mood", "Every function should have a docstring"; "should
   never": a prohibition), never a prediction ("The tests should pass now", "That should
   be fine") or a counterfactual ("should have been caught"); "prefer X over Y", a
   preference. Other languages: `_foreign_cues`, last.
3. Each cue names the words (`needs`: maximal runs of a-z in the folded sentence, or the
   gate CJK) of which every match contains one (`_cues` rule 3).
"""

from __future__ import annotations

from typing import Final, Literal

from ._facts import word_set
from ._foreign_cues import FOREIGN_CUES
from ._retractions import RETRACTION

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

OPENER: Final = (
    r"^(?:(?:please|and|also|but|so|actually|oh|ok|okay|just|again|remember|note|however|"
    r"plus|then|sure|yes|no|well|finally|additionally|important|reminder|hmm+|hm+|um+|uh+|ah|"
    r"oops|erm?)[,:;!.]*\s+)*"
)
INTERJECTION: Final = r"(?:(?:hmm+|hm+|um+|uh+|oh|ah|ok|okay|well|no|so|oops|erm?)[,.!]*\s+)*"
"""Sounds a correction may open with ("Hmm, on second thought, ...", "No wait, ...")."""
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
PAST: Final = (
    r"(?:(?!embed\b|shed\b|shred\b)[a-z]+(?<!e)ed|was|were|had|did|got|saw|heard|went|came|ran|"
    r"wrote|made|found|knew|thought|said|told|left|felt|took|gave|sent|spent|built|broke|"
    r"became|began|chose|forgot|held|kept|lost|meant|met|paid|sat|spoke|stood|understood|"
    r"won|seemed)\b"
)
"""A past tense: "never" before one narrates ("never worked", "we never got it")."""
_NOT_DUTY: Final = (
    rf"(?:worry|hesitate|mind\b|forget|{PAST}|(?:bother|stress|panic|apologi[sz]e|sweat it)"
    r"\b[.!]*$)"
)
"""What may follow "don't" or "never" in a rule: not reassurance ("don't worry") or
narration ("never worked")."""
_WE_STATE: Final = (
    r"(?:know|have|need|think|see|get|understand|care|like|mind|remember|really|even|"
    r"usually|always|currently|yet|actually|quite|fully|support|want to know)\b"
)
"""What "we don't" says of a state, not a practice ("we don't have a staging server")."""
_CLAUSE: Final = r"^(?:[^,;:]{2,60}[,;]\s+){1,2}(?:(?:please|and|also|just|then|so|but)[,]?\s+)*"
"""One or two leading clauses and their commas ("Whatever you do, ", "Look, whatever
happens, ", "If a test is flaky, ")."""
_CONDITIONAL: Final = (
    r"(?:if|when|whenever|once|after|before|since|because|although|though|while|until|unless|"
    r"as soon)\b"
)
"""How a clause that sets a condition starts: "If the tables differ, we don't compare them"
says how something behaves, not what the user wants."""
_CONDITION: Final = (
    r"^(?:when|whenever|each time|every time|after|before|once|if|unless|in case(?: of)?|"
    r"should (?:the|a|an|any|anything|something|it|this|that|we|you)\b)\b[^,]{3,60},\s*"
    r"(?:please\s+)?(?:always\s+)?(?:just\s+)?"
)
"""A conditional's condition and its comma ("If the tests fail, ")."""
_LIKES: Final = (
    r"(?:i (?:(?:really|generally|usually|personally|absolutely|just|definitely|truly|strongly|"
    r"honestly|also|do|totally|kind of|kinda|actually) )*(?:like|love|hate|dislike|detest|"
    r"loathe|despise|enjoy|can't stand|cannot stand|can not stand|don't like|do not like|"
    r"don't love|don't enjoy)|(?:i(?:'m| am) (?:not |really not |not really )?|not |really "
    r"not |not really )a (?:big |huge |great )?fan of|i(?:'d| would) (?:really )?appreciate "
    r"it if|i (?:really )?appreciate it when)\b"
    r"(?!\s+(?:it|this|them|you)(?:\s+(?:a lot|so much|very much))?\s*(?:[.!,]|$)|\s+that\b)"
    r"(?!\s+(?:that|this|your|the) (?:idea|plan|approach|suggestion|one|answer|fix|version|"
    r"solution|change)\b)(?!\s+(?:where|how|what)\b)"
    r"(?!\s+to (?:bother|say|admit|ask|interrupt|break|be|tell|see you|hear)\b)"
)
"""A like or dislike as a standing preference, not a reaction to what was just said or
done ("I like that idea", "I hate that it took so long")."""
_NOT_SAID: Final = r"(?! not (?:say|answer|comment|talk|discuss|go into|share)\b)"
""""I'd rather not say" declines to answer: it states no rule."""
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
_ONE_OFF: Final = (
    r"(?:this|that|it|now|them|these|those|me|us|the (?:next|rest|moment|payment|booking|"
    r"reservation|purchase|order|refund|change|upgrade|fee|difference)|a (?:moment|bit|second|"
    r"while|minute))\b"
)
_THAT: Final = r"(?:the|this|that|it|these|those|them|my|your)\b"
_IT: Final = r"(?:it|this|that|them)\b"
"""What a one-off names ("use it for the payment", "sort the list", "test it"): no rule."""
_CONVENTION: Final = (
    rf"(?:use\b[^,.;?]{{1,50}}?\bfor (?!{_ONE_OFF})[a-z]|"
    rf"(?:indent|format|sort|lint)\b(?! {_THAT})[^,.;?]{{0,40}}?\b(?:with|using)\b|"
    rf"(?:reply|respond|answer)(?: to me)? in (?!{_THAT}|a\b)|"
    r"(?:add|document|pin|annotate|type|comment|sign|tag|label|prefix|quote|escape|sanitize|"
    rf"validate|wrap|cover|test|name|log|keep|put|store)\b(?! {_IT})[^.;?]{{0,50}}?"
    rf"\b(?:every|each|everywhere|all (?!of\b|{_THAT}))|"
    rf"(?!(?:i|we|you|he|she|they|it|there|this|that|the|a|an|my|our|its|their)\b|{PAST}|"
    rf"{_CONDITIONAL})[a-z]+ (?!{_IT})[^.;?]{{0,60}}?\b(?:before|after|on|at) (?:every|each)\b)"
)
"""A bare imperative that says how the work is always done (rule 2)."""
_GENERIC: Final = (
    r"^(?:(?:please|and|also|so|just|remember|note|ok|okay)[,:;!.]*\s+)*(?:(?:all|every|each|any) "
    r"(?:[a-z][\w./-]* ){0,3}|(?!(?:the|these|those|my|your|his|her|their|its|things|results|"
    r"numbers|changes|ones)\b)"
    r"(?:[a-z][\w./-]* ){0,2}[a-z][\w-]*[a-rt-z]s )"
    r"(?![^.;]*\b(?:now|soon|by then|anyway|probably|hopefully|again)\b)"
)
"""The generic subject of a convention: a bare plural ("Commit messages should ...",
"Variable names should ..."; not what the work produces, "the tests", "results") or
"every/all X", never a prediction ("... should pass now")."""
_HEDGED: Final = (
    r"be (?:fine|ok|okay|good|done|ready|enough|possible|easy|quick|working|fixed|able|back|"
    r"here|there|available|up|out|better|worse|faster|slower|similar|the same|related)\b|"
    r"(?:work|pass|help|fix|do|suffice|improve)\b"
)
"""What "should" predicts or hopes for, not prescribes ("should be fine", "should work")."""
_WOULD_HAVE: Final = rf"have (?:been|done|gone|known|seen|had|made|got|gotten|taken|{PAST})"
"""A counterfactual: "should have been caught" says what went wrong, not a rule."""
PERSONAL: Final = (
    r"\b(?:i|i'm|i'd|i'll|my|we|we're|our|you|your|please|keep|budget|limit|don't|do not|"
    r"need|must|want|prefer|should|make sure)\b"
)


Cue = tuple[Kind, frozenset[str], str]
"""(kind, words one of which a match contains, pattern)."""


def _cue(kind: Kind, needs: str, pattern: str) -> Cue:
    """One row of CUES: a match contains one of the `needs` words (rule 3); a leading
    `(?=[...])` names the letters a match can start with (the search skips the rest fast)."""
    return kind, word_set(needs), pattern


_ENGLISH: Final[tuple[Cue, ...]] = (
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
        r"you're allowed to|you (?:don'?t|do not|no longer) (?:have|need) to|no need to)\b",
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
    _cue("limit", "limit", rf"{OPENER}limit\b.*\bto\s+{UNIT}"),
    _cue(
        "deadline",
        "by before later until due",
        rf"(?=[bnud])\b(?:by|before|no later than|until|due)\s+{_WHEN}",
    ),
    _cue("deadline", "deadline", r"(?=d)\bdeadline\b"),
    _cue(
        "prohibition",
        "do don dont never avoid stop refrain",
        OPENER + r"(?:do not|don'?t|never|avoid|stop|refrain from)\s+"
        rf"(?!{_NOT_DUTY})\w",
    ),
    _cue(
        "prohibition",
        "do don dont never",
        _CLAUSE + rf"(?:do not|don'?t|never)\s+(?:ever\s+|just\s+)?(?!{_NOT_DUTY})\w",
    ),
    _cue(
        "prohibition",
        "do don dont never",
        rf"^(?:{OPENER[1:]}|(?![^,;:]*\b{_CONDITIONAL}){_CLAUSE[1:]})we (?:never|don'?t|do not) "
        rf"(?!{_NOT_DUTY}|{_WE_STATE})\w",
    ),
    _cue(
        "prohibition",
        "stop pause halt hold abort",
        _CONDITION + r"(?:stop|pause|halt|hold off|abort)\b",
    ),
    _cue(
        "prohibition",
        "leave hands",
        OPENER + r"(?:please\s+)?(?:leave\b[^,.;]{1,60}?\b(?:alone|untouched|as it is|as is|"
        r"as-is|unchanged|intact)\b|hands off\b)",
    ),
    _cue(
        "prohibition",
        "forbidden prohibited allowed permitted limits",
        OPENER + r"[a-z][\w-]*ing\b[^,;]{0,60} (?:is|are) (?:strictly |absolutely |completely )?"
        r"(?:forbidden|prohibited|not allowed|not permitted|off[- ]limits)[.!]*$",
    ),
    _cue(
        "prohibition",
        "forbidden prohibited allowed permitted limits bounds",
        OPENER + r"(?!.*\b(?:i|was|were|told|said|says|that|it|if|when|whether|why|because|who|"
        r"which)\b)(?:[\w./-]+ ){1,6}(?:is|are) (?:strictly |absolutely |completely |totally )?"
        r"(?:forbidden|prohibited|not allowed|not permitted|off[- ]limits|out of bounds)"
        r"(?: (?:for|during|in|on|from now on|here)\b[^.;]{0,40})?[.!]*$",
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
        rf"(?=[iu])(?:\bi(?:'d| would) rather{_NOT_SAID} not\b|\bunder no circumstances?\b)",
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
        OPENER + r"(?:always|make sure|be sure|ensure|remember to|"
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
        r"(?=[im])(?:\bi(?: need| want| would like|'d like) you to\b|\bmust always\b)",
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
        "when whenever each every after before once if unless case should",
        _CONDITION + r"(?:sign|tag|mention|include|add|use|write|ping|notify|"
        r"tell|ask|run|check|email|send|label|prefix|end|start|put|keep|update|commit|open|"
        r"close|attach|cc|post|report|log|note|wait|leave|roll back|revert|skip|escalate|flag|"
        r"double-check|reach out|consult|remember to|don't forget to|do not forget to)\b",
    ),
    _cue(
        "obligation",
        "ask ping warn notify tell check consult confirm clear",
        OPENER + r"(?:please\s+)?(?:always\s+)?(?:(?:ask|ping|warn|notify|tell)(?: me| us)?"
        r"(?: first)?,? (?:before|whenever)\b|(?:ask|(?:check|consult|confirm|clear it) with "
        r"(?:me|us))(?: first)?,? (?:before|whenever|if|when|in case)\b)",
    ),
    _cue(
        "prohibition",
        "no",
        OPENER + r"no (?:new |more |extra |additional |external |third-party )?"
        r"(?!problem|worries|worry|thanks|thank|luck|idea|way|clue|doubt|rush|pressure|"
        r"one|longer|matter|need|change|changes|further|other|reservation|i\b|it\b)"
        rf"[a-z][a-z-]*s?(?: (?!{PAST})[a-z][a-z-]*)?(?: (?:please|allowed|permitted))?[.!]?$",
    ),
    _cue(
        "prohibition",
        "should",
        _GENERIC + rf"should (?:not|never)\b(?! {_WOULD_HAVE})",
    ),
    _cue("obligation", "should", _GENERIC + rf"should (?:always )?(?!{_WOULD_HAVE}|{_HEDGED})\w"),
    _cue(
        "obligation",
        "must shall",
        r"(?=[ms])(?<!\bi )(?<!there )(?<!it )(?<!that )\b(?:must|shall)\s+(?!not\b|never\b|have\b|"
        r"be (?:a|an|the|some|that|why|wrong|missing|because|related)\b)\w+",
    ),
    _cue(
        "obligation",
        "keep only stick use limit stay",
        OPENER + r"(?:keep|only|stick to|use only|limit yourself to|stay)\s+"
        r"(?!going|trying|looking|up\b|it up|in mind|me posted|on\b|tuned|calm|with me)\w",
    ),
    _cue(
        "preference",
        "not",
        OPENER + r"(?:use|log|store|keep|put|write|save|host|deploy|send)\b[^,.;]{1,60}, not\b",
    ),
    _cue(
        "preference",
        "like love hate dislike detest loathe despise enjoy stand fan appreciate",
        OPENER + r"(?:(?:honestly|personally|generally|frankly|in general|fwiw)[,]?\s+)?" + _LIKES,
    ),
    _cue(
        "preference",
        "prefer favor favour",
        OPENER + r"(?:prefer|favou?r)\b[^.;?]{1,60}\b(?:over|to)\b",
    ),
    _cue(
        "preference",
        "prefer rather preference use",
        r"(?=[imp])(?:\bi(?: prefer| would prefer|'d prefer| tend to prefer)\b|"
        rf"\bi(?:'d| would) (?:much |far |really )?rather\b{_NOT_SAID}|"
        r"\bmy preference\b|\bplease use\b)",
    ),
    _cue(
        "obligation",
        "use indent format sort lint reply respond answer every each everywhere all",
        OPENER + r"(?:please\s+)?(?:always\s+)?" + _CONVENTION,
    ),
    _cue(
        "preference",
        "instead",
        OPENER + r"(?:use|write|call|run|put|keep|return|choose|pick|pay|"
        r"send|switch to)\b.*\binstead of\b",
    ),
    _cue(
        "correction",
        "actually instead second change correction scratch wait",
        rf"^{INTERJECTION}(?:actually|instead|on second thought|change of plans?|correction|"
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
CUES: Final[tuple[Cue, ...]] = _ENGLISH + FOREIGN_CUES
"""Cues in the order they are tried; the first that matches names the rule's kind."""
