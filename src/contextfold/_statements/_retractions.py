"""Retractions: a user sentence that lifts an earlier statement without a new value.

Rules:
1. A retraction names itself first ("Forget what I said about X", "Drop the rule about
   Y", "Never mind the deadline") or says its subject no longer holds ("The X rule no
   longer applies", "X is no longer needed"). It is a correction (`_cue_table`), tried
   before every other cue.
2. `is_retraction` answers in linear time what RETRACTION's search would.
"""

from __future__ import annotations

import re
from typing import Final

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
_LEAD_SEARCH: Final = re.compile(RETRACT_LEAD)
_NO_LONGER_SEARCH: Final = re.compile(_NO_LONGER)


def is_retraction(folded: str) -> bool:
    """Whether RETRACTION matches `folded` (a folded text), in linear time: its second
    branch matches exactly where `_NO_LONGER` does (the lazy run before it may be empty),
    but `search` retries that run from every position, quadratic in a long text."""
    if _LEAD_SEARCH.match(folded) is not None:
        return True
    return "no longer" in folded and _NO_LONGER_SEARCH.search(folded) is not None


RETRACT_WORDS: Final = re.compile(
    rf"{RETRACT_LEAD}|{_RULE_ABOUT}|{_NO_LONGER}|\b{_RULE_NOUN}\b", re.IGNORECASE
)
"""The words of a retraction that say it retracts, not what it is about ("The approval rule
no longer applies" is about approval)."""
