"""What a user asks for and what the agent says happens next: the ledger's goals and state.

Rules:
1. A user message's goals, in order: the first line of each document pasted in it
   (`<tag>...</tag>`; a line of at least 12 characters, not a path; not a block the
   agent's harness added, `_HARNESS`), every goal stated
   outright (STATED, at least `_MIN_GOAL_WORDS` words), then its requests that are not
   filler; at most `_GOALS_PER_MESSAGE` of them, but every stated goal is kept.
2. A request asks for something, has at least `_MIN_GOAL_WORDS` words and is not also a
   decision; for a bare "Can you help with that?" (VAGUE), the sentence before it is.
3. What happens next is the agent's last two plans, else its last sentence that is not
   politeness; filler never counts. Read from the end, and only as far as needed.
4. DECISION and STATED are searched in a sentence only when the caller says they find
   something in the text it was split from (`_ledger_extract` rule 8).
"""

from __future__ import annotations

import re
from typing import Final

from .._statements._facts import clip, tagged_blocks
from .._statements._kinds import is_filler
from ._ledger_sentences import BOILERPLATE, DECISION, STATED, VAGUE, is_plan, is_request

_HARNESS: Final = re.compile(r"system|reminder|hook", re.I)
"""Tags an agent harness wraps its own text in, inside the user's turn (Claude Code's
`<system-reminder>`, `<user-prompt-submit-hook>`): no document the user pasted (rule 1)."""
_GOALS_PER_MESSAGE: Final = 3
_MIN_GOAL_WORDS: Final = 4
CLIP: Final = 200
"""How much of a goal, decision, error or next step a ledger entry shows."""


def goals(text: str, own: list[str], decides: bool, states: bool) -> list[str]:
    """A user message's goals: the first line of each pasted document (`<tag>...</tag>`),
    every goal stated outright, then requests, at most _GOALS_PER_MESSAGE but the stated;
    `decides` and `states`: whether DECISION and STATED find anything in the text that
    `own` was split from (rule 4)."""
    pasted: list[str] = []
    for tag, body in tagged_blocks(text):
        if _HARNESS.search(tag) is not None:
            continue  # what the agent's harness put in the user's turn: not their goal
        first = next((s for s in body.splitlines() if len(s.strip()) >= 12), "")
        if first and not first.strip().startswith("/"):
            pasted.append(f"{tag}: {clip(first, CLIP)}")
    stated = [
        clip(s, CLIP)
        for s in (own if states else ())
        if STATED.search(s) and len(s.split()) >= _MIN_GOAL_WORDS
    ]
    asked = [
        g
        for g in (clip(s, CLIP) for s in _requests(own, decides))
        if g not in stated and not is_filler(g)
    ]
    found = [*pasted, *stated, *asked]
    return [g for i, g in enumerate(found) if i < _GOALS_PER_MESSAGE or g in stated]


def _requests(said: list[str], decides: bool) -> list[str]:
    """Sentences asking for something; for a bare "Can you help with that?", the one before."""
    out: list[str] = []
    for index, sentence in enumerate(said):
        if VAGUE.search(sentence) is not None:
            before = said[index - 1] if index else ""
            if len(before.split()) >= _MIN_GOAL_WORDS and before not in out:
                out.append(before)
        elif _asks(sentence, decides):
            out.append(sentence)
    return out


def _asks(sentence: str, decides: bool) -> bool:
    """A request with some content that is not also a decision."""
    return (
        len(sentence.split()) >= _MIN_GOAL_WORDS
        and is_request(sentence)
        and not (decides and DECISION.search(sentence) is not None)
    )


def next_steps(said: list[str]) -> list[str]:
    """What the agent says happens next: its last two plans, else its last sentence that is
    not politeness; filler never counts. Read from the end, and only as far as needed: a
    sentence that is no plan counts only while nothing was chosen, so only then is it tested
    for filler (the costly test)."""
    plans: list[str] = []
    last: list[str] = []
    for sentence in reversed(said):
        if not is_plan(sentence):
            if not (last or plans or BOILERPLATE.search(sentence) or is_filler(sentence)):
                last.append(sentence)
        elif not is_filler(sentence):
            plans.append(sentence)
            if len(plans) == 2:
                break
    return plans[::-1] or last
