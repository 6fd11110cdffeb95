"""What a rule is about: its subject key, which a newer rule must share to supersede it.

Rules:
1. The subject key is what two rules must share for the newer to supersede the older:
   a family, then the sorted content words with values (numbers, money, dates, versions),
   cue words and filler removed. Families: `limit:<unit>` for limits and budgets,
   `deadline` for deadlines (a bare "the deadline is X" too), `note` for notes,
   `pos`/`neg` (do / do not) for the rest. A permission relaxes a prohibition, so it has
   the `neg` key of what it permits. Outside deadlines, no content words left means no
   supersession: the key is then the normalized sentence.
"""

from __future__ import annotations

import re
from typing import Final

from ._cue_table import UNIT, Kind
from ._cues import fold, read_rule
from ._facts import word_set

FILLER: Final = word_set(
    """
    a an the to of for in on at by with from and or but so as if then than that this
    these those it its it's is are was were be been being am i i'm i'd i'll me my mine
    you you're your yours we we're our us they them their he she his her one any all
    some each every please actually just also really only again still now yet very too
    much many more most less least no not never don't dont do does did doesn't didn't
    always ever sure ensure make making made use using used want wants wanted wish need
    needs needed like would could should will can may might must shall have has had get
    got keep include includes go going let let's rather instead prefer preferred
    preference avoid stop remember forget allowed fine ok okay alright free feel
    required able there here what which who when where how thing things way ways
    anything something everything up under below within maximum max limit limited budget
    deadline before after until due later total exceed higher cheaper over at most spend
    spending cost costs price pay paying afford willing go can't cannot mustn't
    shouldn't wouldn't won't isn't aren't also oh well wait correction scratch second
    thought change plan plans thank thanks hi hello yes yeah sorry note without love
    hate dislike detest loathe despise enjoy appreciate fan stand hmm hm um uh erm ah oops
    """
)
VALUE_WORDS: Final = word_set(
    """
    am pm eod eow tomorrow tonight noon midnight today monday tuesday wednesday thursday
    friday saturday sunday january february march april may june july august september
    october november december jan feb mar apr jun jul aug sep sept oct nov dec dollar
    dollars usd eur euro euros percent hour hours hr hrs day days week weeks minute
    minutes min mins line lines word words token tokens character characters char chars
    second seconds sec secs kb mb gb end st nd rd th
    """
)
_WORDS: Final = re.compile(r"[a-z][a-z0-9_'+#.-]*[a-z0-9+#]|[a-z]")
_MONEY: Final = re.compile(r"[$€£]|\b(?:dollars?|usd|eur|euros?)\b")
_UNIT_WORD: Final = re.compile(UNIT.replace(r"[$€£]\s?\d|", ""))


def subject_of(text: str) -> str:
    """The subject key of a rule sentence (see rule 1)."""
    found = read_rule(text)
    kind, folded = found if found is not None else (None, fold(text))
    words = _content_words(folded)
    if kind == "limit":
        return f"limit:{_unit(folded)}:{' '.join(words)}"
    if kind == "deadline":
        return f"deadline:{' '.join(words)}"  # a bare "the deadline is X" is the deadline
    if not words:
        return f"text:{folded}"
    if kind == "note":
        return f"{kind}:{' '.join(words)}"
    return f"{_polarity(kind, folded)}:{' '.join(words)}"


def _content_words(folded: str) -> list[str]:
    out: dict[str, None] = {}
    for word in _WORDS.findall(folded):
        if word in FILLER or word in VALUE_WORDS or any(map(str.isdigit, word)):
            continue
        stem = (
            word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
        )
        out[stem] = None
    return sorted(out)


def _unit(folded: str) -> str:
    if _MONEY.search(folded):
        return "money"
    match = _UNIT_WORD.search(folded)
    if match is None:
        return "count"
    word = re.sub(r"[\d,.\s]", "", match.group())
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _polarity(kind: Kind | None, folded: str) -> str:
    if kind == "prohibition":
        return "neg"
    if kind == "permission":
        relaxes_duty = re.search(
            r"\b(?:don'?t|do not|no longer) (?:have|need) to\b|\bno need to\b", folded
        )
        return "pos" if relaxes_duty else "neg"
    if kind == "correction" and re.search(r"\b(?:don't|do not|never|avoid|not)\b", folded):
        return "neg"
    return "pos"
