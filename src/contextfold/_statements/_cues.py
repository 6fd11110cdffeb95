"""Which user sentences are rules, and of which kind (what each is about: `_subjects`).

Rules:
1. Precision before recall: a wrong rule is carried forever. A sentence is a rule only
   when a cue in CUES matches it, it is not a question (a request to do something is no
   question when it sets a limit or a deadline: "Could you rewrite it, keeping it under 120
   lines?"), and it is the user's own prose
   (pasted documents, code and quotes are removed first, see `_facts.outside_quotes`;
   a cue inside quotes in the sentence does not count, nor does a sentence that relays
   what a document or a tool says: "The README says: ...").
   A short lead-in that ends with a colon or a spaced dash ("Important:", "Rule:", "One
   more thing:", "My boss says:", "Rule from legal -", "Important rule for the rest of
   this session:", numbered: "Rule 2:", "Rule 2 -") is read past: what follows it must be
   a rule on its own, and the rule is still the whole sentence. What the user says the
   assistant said ("You told me to ...", "Earlier you wrote: ...") is not their rule.
2. The cues, their kinds and which of them only replace a rule (OVERRIDE_ONLY) are the
   table in `_cue_table`.
3. Each cue names the words (`needs`: maximal runs of a-z in the folded sentence, and CJK
   for a text with a Han or kana character, `_foreign_cues` rule 2) of which
   every match contains one; a sentence is searched only with the cues it has a word for,
   so most sentences cost one split into words. `needs` only skips searches that would
   fail: it never changes what is detected.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

from .._content_cache import Memo, on_clear
from ._cue_table import CUES, OPENER, PERSONAL, Kind
from ._facts import normalize
from ._foreign_cues import CJK, CJK_CHARS

_MIN_CHARS: Final = 8
_MAX_CHARS: Final = 300


_LEAD_IN: Final = re.compile(
    r"^(?:(?:(?:one|another|a|an|the|my|our|just a|quick)\s+)?"
    r"(?:(?:more|last|final|other|quick|very|really|super|general|ground|house|golden|hard|"
    r"company|team|project|repo|security|legal|client|"
    r"strict|key|big|main|critical|crucial|absolute|important|standing)\s+){0,3}"
    r"(?:important|rule|rules|note|nb|reminder|thing|warning|caution|constraint|"
    r"constraints|requirement|requirements|policy|instruction|instructions|ps|p\.s\.|fyi|"
    r"btw|heads[- ]up|remember|also|and)"
    r"(?:\s*#?\d{1,3}[a-z]?\b)?"
    r"(?:(?:\s+(?:for|from|during|throughout|going|in|on)\b[^:]{0,40})?\s*:|\s+[-\u2013\u2014])"
    r"\s+(?=\S)"
    r"|(?=[^:\u2013\u2014-]{0,60}+[:\u2013\u2014-])"  # a colon or dash soon: read no further
    r"(?!(?:[\w'-]+\s+){0,4}?(?:you|assistant|agent|model|bot|ai|error|warning|exception|"
    r"traceback|output|stdout|stderr|log|result|response|question|q)\b)"
    r"(?!change of plans?|correction|update|actually|scratch that|sorry|wait|on second thought|"
    r"small change|quick change|new info)"
    r"(?:(?>[a-z'-]+)\s+){0,4}(?>[a-z'-]+)(?:\s*:|\s+[-\u2013\u2014])\s+(?=\S)"
    r"(?!no\b|actually|instead|on second thought|change of plans?|correction|scratch that|wait))"
)
"""A lead-in before the rule itself (rule 1): a few words and a number ("Rule 2", "Company
policy"), or at most five words ("My boss says:", "Rule from legal -"), then a colon or a
spaced dash. Five words are never the assistant's or a tool's ("You wrote:", "Error:") nor
an update's own lead-in ("Change of plan:", `_kinds.UPDATE_LEAD`), hold no digit ("Test
4:") and never lead into a correction ("Let's go with option 1:
Change of plan.") or a bare "no ..." ("Good news - no errors!")."""


QUESTION: Final = ("?", "\uff1f")
"""How a question ends (the full-width mark too: "触らないでくれる？" asks)."""
fold: Final = normalize
"""The sentence as cues read it: lowercase, straight quotes, single spaces (`normalize`
itself: a hit is one lookup in C, with no call around it)."""


def read_rule(sentence: str) -> tuple[Kind, str] | None:
    """(kind, folded text the cue matched) of a rule sentence, or None (rule 1)."""
    if not _MIN_CHARS <= len(sentence) <= _MAX_CHARS:
        return None
    folded = fold(sentence)
    asks = sentence.rstrip().endswith(QUESTION)
    if asks and not _asks_to_do(folded):
        return None
    cues = candidates(folded)
    if asks:
        cues = tuple((kind, cue) for kind, cue in cues if kind in _ASKED_KINDS)
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


_ASKS: Final = re.compile(
    r"(?:(?:hi|hey|ok|okay|so|and|also)[,!]?\s+)?(?:can|could|would|will) you (?:please )?"
    r"(?!(?:tell|explain|check|confirm|let|show|see|look|find out|verify|clarify|remind)\b)\w"
)
"""A question that asks for work done a certain way ("Could you rewrite it in Rust,
keeping it under 120 lines?"): its conditions are rules as an imperative's are."""
_ASKED_KINDS: Final = frozenset({"limit", "deadline"})
"""The rules a request may carry: a value's bound ("Could you do it without changing the
dates?" is a request of the moment, not a standing rule)."""
_WONDERS: Final = re.compile(r"\b(?:whether|if|what|which|how|why|when|where|who)\b")


def _asks_to_do(folded: str) -> bool:
    """Whether a question is a request to do something (`_ASKS`), not one for an answer."""
    return _ASKS.match(folded) is not None and _WONDERS.search(folded) is None


_QUOTED_SPAN: Final = re.compile(
    r"\"[^\"\n]{1,200}\"|(?<![a-z0-9])'[^'\n]{2,200}'(?![a-z0-9])|「[^」\n]{1,200}」|『[^』\n]{1,200}』"
)
"""Words in quotes ("...", '...', 「...」; an apostrophe inside a word opens none): someone else's
words or a literal, never the cue of the user's rule (rule 1)."""
_REPORTED: Final = re.compile(
    r"^(?:the|this|that|my|our|their|his|her|a|an)\s+(?:[\w-]+\s+){0,2}?(?:readme|docs?|"
    r"documentation|wiki|tool|output|log|logs|error|linter|page|file|email|e-mail|ticket|"
    r"spec|website|site|vendor|manual|comment|message|article|post|guide|faq|changelog|"
    r"result|results|response|reply)\s+"
    r"(?:says?|said|states?|stated|reads?|claims?|claimed|mentions?|mentioned|suggests?|"
    r"suggested|recommends?|recommended)\b"
    r"|^(?:(?:earlier|before|previously|yesterday|last time|but|and|so|also)[,]?\s+)*"
    r"(?:you|the (?:assistant|agent|model|bot|ai))\s+(?:\w+\s+)?(?:said|wrote|told|"
    r"mentioned|suggested|claimed|stated|proposed|recommended|promised)\b"
)
"""A sentence that relays what a document, a tool or the assistant said ("The README
says: ...", "You told me to ...")."""


def unquoted(folded: str) -> str:
    """`folded` with its quoted words blanked (only when it has a quote mark)."""
    if '"' not in folded and "'" not in folded and "「" not in folded and "『" not in folded:
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
    if folded.isascii():  # the runs of a-z: every other byte a space, then split in C
        runs = folded.encode("ascii").translate(_NOT_LETTERS).decode("ascii").split()
    else:
        runs = _LETTERS.findall(folded)
        if _CJK_CHAR.search(folded) is not None:
            runs.append(CJK)  # the gate of cues for scripts without spaces (`_foreign_cues`)
    found = _GATE_WORDS[0].intersection(runs)
    shared = _SHARED.get(found)
    if shared is not None:
        return shared
    words = frozenset(map(_GATED.__getitem__, found))  # the gates' strings, not the text's
    if len(_SHARED) >= _MAX_SHARED:
        _SHARED.clear()
    return _SHARED.setdefault(words, words)


_LETTERS: Final = re.compile(r"[a-z]+")
_CJK_CHAR: Final = re.compile(CJK_CHARS)
_NOT_LETTERS: Final = bytes(b if 0x61 <= b <= 0x7A else 0x20 for b in range(256))
"""A byte table that keeps a-z and makes every other byte a space (`_LETTERS` in ASCII)."""
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
        asked = (
            _IMPERATIVE.match(folded) is not None
            or _BARE_LIMIT.match(folded) is not None
            or re.search(PERSONAL, folded) is not None
        )
        return asked and _NARRATION.search(folded) is None
    if kind == "deadline":
        return _IMPERATIVE.match(folded) is not None or _ASKED.search(folded) is not None
    return True


_IMPERATIVE: Final = re.compile(
    OPENER + r"(?:finish|submit|send|deliver|complete|book|get|have|make|fix|do|ship|deploy|"
    r"respond|reply|return|arrive|be|reach|call|email|notify|merge|release|publish|use|write|"
    r"spend|show|add|run|limit|cap|stay|choose|pick|find)\b"
)
_BARE_LIMIT: Final = re.compile(
    OPENER + r"(?:at most|no more than|not more than|up to|a maximum of|max(?:imum)?|under|"
    r"below|less than|within)\s+(?:a |an |the )?(?:total of )?\d"
)
"""A limit said alone, the rule's own words first ("No more than 3 retries.")."""
_NARRATION: Final = re.compile(r"\b(?:ago|since|it's been|has been|have been|was|were|did)\b")
_ASKED: Final = re.compile(
    r"\b(?:need|must|have to|has to|want|should|prefer|please|deadline|due|make sure|"
    r"would like|i'd like|don't|do not|can't|cannot|no later)\b"
)
