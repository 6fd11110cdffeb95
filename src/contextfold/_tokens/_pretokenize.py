"""o200k_base's pre-tokenizer, rebuilt for the standard `re` module.

Rules:
1. tiktoken splits text with `O200K_PAT` (in `_load`) before any byte-pair merge, and merges
   never cross the pieces, so a text's token count is the sum of its pieces' counts.
2. `re` has no Unicode property classes (\\p{Lu}, \\p{L}, \\p{N}, \\p{M}), so the same pattern
   is rebuilt from explicit classes of the Basic Multilingual Plane, computed from
   `unicodedata` general categories on first use (about 50 ms); `\\s` is the White_Space
   property, as in tiktoken's regex engine.
3. `re` would test a class's code points above U+FFFF one range at a time, which is slow, so
   each such character (emoji, rare CJK) is split as a BMP stand-in of its own group
   (STAND_INS) and the pieces are cut from the original text at the same offsets.
4. Left out: characters this Python's Unicode tables do not assign yet are punctuation
   here, whatever a newer table says; such text can split differently.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from itertools import groupby
from typing import Final

__all__ = ["STAND_INS", "pieces"]

BMP_END: Final = 0x10000

GROUPS: Final = {
    "Lu": "upper", "Lt": "upper", "Ll": "lower", "Lm": "letter", "Lo": "letter",
    "Mn": "mark", "Mc": "mark", "Me": "mark", "Nd": "number", "Nl": "number", "No": "number",
}  # fmt: skip
"""General categories by the role they play in the pattern; everything else is `other`."""

STAND_INS: Final = {
    "upper": "\u00c0", "lower": "\u00df", "letter": "\u00aa", "mark": "\u0300",
    "number": "\u00b2", "other": "\u00a6",
}  # fmt: skip
"""A BMP character of each group (À ß ª, a combining grave, ², ¦) that the pattern treats
like any other member: none is a space, a line break, `/`, `'` or a contraction letter."""

WHITE_SPACE: Final = r"\t\n\x0b\x0c\r\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The White_Space property (what `\\s` means to tiktoken's regex engine)."""

_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")

Ranges = list[tuple[int, int]]


@cache
def _ranges_by_group() -> dict[str, Ranges]:
    """Inclusive BMP code point ranges of each group in GROUPS (rule 2)."""
    found: dict[str, Ranges] = {group: [] for group in GROUPS.values()}
    start = 0
    categories = map(unicodedata.category, map(chr, range(BMP_END)))
    for group, run in groupby(categories, key=GROUPS.get):
        size = sum(1 for _ in run)
        if group is not None:
            found[group].append((start, start + size - 1))
        start += size
    return found


def _class_body(groups: Iterable[str]) -> str:
    """The inside of a `[...]` class holding the BMP code points of `groups`."""
    table = _ranges_by_group()
    merged: Ranges = []
    for low, high in sorted(r for group in groups for r in table[group]):
        if merged and low == merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], high)
        else:
            merged.append((low, high))
    return "".join(
        f"\\u{low:04x}" if low == high else f"\\u{low:04x}-\\u{high:04x}" for low, high in merged
    )


@cache
def _pattern() -> re.Pattern[str]:
    """O200K_PAT with explicit classes (rule 2)."""
    upper = _class_body(("upper", "letter", "mark"))
    lower = _class_body(("lower", "letter", "mark"))
    letter = _class_body(("upper", "lower", "letter"))
    number = _class_body(("number",))
    space = WHITE_SPACE
    contraction = "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    lead = rf"[^\r\n{letter}{number}]?"
    alternatives = (
        f"{lead}[{upper}]*[{lower}]+{contraction}",
        f"{lead}[{upper}]+[{lower}]*{contraction}",
        f"[{number}]{{1,3}}",
        rf" ?[^{space}{letter}{number}]+[\r\n/]*",
        rf"[{space}]*[\r\n]+",
        f"[{space}]+(?![^{space}])",
        f"[{space}]+",
    )
    return re.compile("|".join(alternatives))


def _stand_in(match: re.Match[str]) -> str:
    return STAND_INS[GROUPS.get(unicodedata.category(match.group()), "other")]


def pieces(text: str) -> list[str]:
    """`text` split as o200k_base's pre-tokenizer splits it."""
    pattern = _pattern()
    if text.isascii() or _ASTRAL.search(text) is None:
        return pattern.findall(text)
    found = []
    start = 0
    for piece in pattern.findall(_ASTRAL.sub(_stand_in, text)):
        end = start + len(piece)
        found.append(text[start:end])
        start = end
    return found
