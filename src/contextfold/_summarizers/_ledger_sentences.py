"""What a sentence of the user or the agent says to the ledger: a request, a stated goal, a
decision, a plan, a completion, or only politeness.

Rules:
1. Each test reads one sentence (or one lowercased message, `_LOW`) and answers yes or no;
   every pattern is matched case-insensitively, words at word boundaries.
2. Speed never changes an answer (as `_statements._facts` rule 5 says). A pattern of words
   that would start with a word boundary starts with its first letter instead (in both
   cases, with the letters that match one of them case-insensitively: U+0130 and U+0131
   for i, U+017F for s), so the regex engine skips to where one can start, and checks the
   boundary behind it (`(?<!\\w.)`) and the rest of the word (`(?<=x)`) after. A request
   is three tests: those words, a question mark at the end, a command word first.
   tests/summarizers/test_ledger_fast.py holds each to its plain form.
"""

from __future__ import annotations

import re
from typing import Final

_I: Final = "\u0130\u0131"
"""The letters other than i and I that match i case-insensitively (İ, ı)."""
_S: Final = "\u017f"
"""The letter other than s and S that matches s case-insensitively (ſ)."""

_REQUEST_WORDS: Final = re.compile(
    rf"[ilcwphytgILCWPHYTG{_I}](?<!\w.)(?i:(?<=i)'?d like|(?<=i) would like|(?<=i) want|"
    r"(?<=i) need|(?<=i)'?m looking|(?<=i) am looking|(?<=l)ooking for|(?<=c)an you|"
    r"(?<=c)ould you|(?<=w)ould you|(?<=w)ill you|(?<=p)lease|(?<=h)elp me|(?<=i)'?m trying|"
    r"(?<=y)our task|(?<=t)he task is|(?<=g)oal is|(?<=h)ow (?:do|can|to))\b"
)
_COMMAND: Final = re.compile(
    r"(?:fix|implement|add|remove|change|update|cancel|book|create|write|make|find|check|run|"
    r"refactor|rename|delete|modify|move|upgrade|install)\b",
    re.I,
)


def is_request(sentence: str) -> bool:
    """Whether `sentence` asks for something: "I'd like", "can you", "please", a question,
    or a command word first (rule 2)."""
    return (
        _REQUEST_WORDS.search(sentence) is not None
        or sentence.endswith(("?", "?\n"))  # `\?$`
        or _COMMAND.match(sentence) is not None
    )


STATED: Final = re.compile(
    rf"[motywiMOTYWI{_I}](?<!\w.)(?i:(?:(?<=m)y|(?<=o)ur|(?<=t)he|(?<=y)our)\s+"
    r"(?:[a-z-]+\s+){0,2}?(?:goal|objective|aim|mission|purpose|task)s?\b[^.?!]{0,24}?"
    r"(?:\bis\b|\bare\b|:|\bwill be\b)|(?:(?<=i)'?m|(?<=i) am|(?<=w)e'?re|(?<=w)e are) "
    r"trying to|(?<=w)e need to|(?<=w)hat i (?:want|need) is)"
)
"""An explicitly stated goal ("my goal here is", "the objective:", "we need to")."""
_DECIDED: Final = (
    r"(?<=g)o(?:ing)? with|(?<=d)ecided|(?<=d)ecide to|(?<=c)hose|(?<=c)hoose|"
    r"(?<=o)pt(?:ed)? for|(?<=s)witch(?:ed)? to|(?<=i)nstead of|(?<=r)ather than|"
    r"(?<=t)he fix (?:is|was|will be)|(?<=r)oot cause|(?<=i)s caused by|"
    r"(?<=t)(?:he|his) (?:issue|problem|bug|error) (?:is|was|occurs|happens|arises|comes)|"
    r"(?<=i)'ll use|(?<=w)e'll use|(?<=l)et's use|(?<=w)e should use"
)
DECISION: Final = re.compile(rf"[gdcoistrlwGDCOISTRLW{_I}{_S}](?<!\w.)(?i:{_DECIDED})\b")
DECISION_LOW: Final = re.compile(
    r"(?=[gdcoistrlw])\b(?:go(?:ing)? with|decided|decide to|chose|choose|opt(?:ed)? for|"
    r"switch(?:ed)? to|instead of|rather than|the fix (?:is|was|will be)|root cause|"
    r"is caused by|(?:the|this) (?:issue|problem|bug|error) (?:is|was|occurs|happens|arises|"
    r"comes)|i'll use|we'll use|let's use|we should use)\b"
)
"""`DECISION` for lowercased text (a fast first look at a whole message; over lowercase
letters, this plain form is the faster)."""
_PLAN_START: Final = re.compile(
    r"(?:now,? |next,? |then,? |first,? |finally,? )?(?:let's|let me|i'll|i will|i need to|"
    r"we need to|we should|i should|next step)",
    re.I,
)
_PLAN_WORDS: Final = re.compile(
    r"[npwgNPWG](?<!\w.)(?i:(?<=n)ext step|(?<=p)lan is|(?<=w)ill now|(?<=g)oing to)\b"
)


def is_plan(sentence: str) -> bool:
    """Whether `sentence` says what comes next: "let me", "next step", "going to" (rule 2)."""
    return _PLAN_START.match(sentence) is not None or _PLAN_WORDS.search(sentence) is not None


_DONE_WORDS: Final = (
    r"(?:booked|cancell?ed|updated|changed|modified|processed|completed|implemented|fixed|"
    r"resolved|submitted|refunded|upgraded|added|removed|applied)\b"
)
DONE: Final = re.compile(
    rf"[hsiatHSIAT{_I}{_S}](?<!\w.)(?i:(?:(?<=h)(?:as|ave) been (?:successfully )?|"
    rf"(?<=s)uccessfully |(?<=i)s now ){_DONE_WORDS}|(?<=a)ll tests pass|(?<=t)ask is complete)"
)
"""A statement that something was done ("has been booked", "all tests pass")."""
DONE_LOW: Final = re.compile(
    rf"\b(?:(?:has|have) been (?:successfully )?|successfully |is now ){_DONE_WORDS}"
    r"|\ball tests pass|\btask is complete"
)
"""`DONE` for lowercased text (in its plain form, as `DECISION_LOW`)."""
_DONE_NEEDS: Final = ("been ", "successfully ", "is now ", "all tests pass", "task is complete")
"""What every `DONE_LOW` match holds: most messages hold none, and a substring test is a
fraction of the search (rule 2)."""


def says_done(low: str) -> bool:
    """`DONE_LOW.search(low) is not None`, searched only when `low` holds a _DONE_NEEDS."""
    return any(need in low for need in _DONE_NEEDS) and DONE_LOW.search(low) is not None


BOILERPLATE: Final = re.compile(
    r"[lfahgLFAHG](?<!\w.)(?i:(?<=l)et me know|(?<=f)eel free|"
    r"(?<=a)ny (?:other|further|more) (?:questions|assistance)|(?<=a)nything else|"
    r"(?<=h)appy to help|(?<=g)lad to help|(?<=h)ave a (?:great|nice|good))\b"
)
VAGUE: Final = re.compile(
    r"^(?:\w+,? )?(?:can|could|would) you (?:please )?(?:help|assist)(?: me)?"
    r"(?: with (?:that|this|it))?\W*$",
    re.I,
)
"""A bare "Can you help with that?": the request is the sentence before."""
GREETING: Final = re.compile(
    r"^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))(?: there)?[,!.]?\s+(?=\S)",
    re.I,
)
