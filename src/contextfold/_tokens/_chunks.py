"""Long texts cut into chunks whose token counts add up to the whole text's count.

Rules:
1. tiktoken returns a text's tokens as a Python list (about 36 bytes a token), so counting a
   long text in one call allocates several times the text's size at once. A text longer
   than CHUNK_CHARS is counted in chunks of at least CHUNK_CHARS characters instead; a
   shorter one takes one call, as before.
2. A chunk ends only at a cut: right after a "\\n" followed by `c`, a printable ASCII
   character other than space and "/". Under the o200k_base and cl100k_base patterns
   (SPLITS_AT_CUTS) a cut always falls between two pieces of the pre-tokenizer, and each
   side alone splits into the pieces it has inside the whole text; merges never cross
   pieces, so the counts add up:
   - every part of the patterns that can consume a "\\n" is a class of whitespace or of
     [\\r\\n/], and `c` is in neither: no piece holds "\\n" then `c`, and a path that
     reaches the cut from the left consumes nothing more there, in the whole text as alone;
   - the lookahead of `\\s+(?!\\S)` and cl100k's anchor in `\\s++$`, which pass at the end of
     the left side but not before `c`, are reached only by a whitespace run holding the
     "\\n", which o200k's `\\s*[\\r\\n]+` (tried first) matches anyway, and which cl100k's
     `\\s++$` then matches just as its `\\s*[\\r\\n]` does in the whole text;
   - the right side starts a piece, and the patterns look neither behind nor at `^`.
3. Other patterns (p50k, r50k and gpt2's `\\s+(?!\\S)` backs off the "\\n", so a run of
   spaces and "\\n" splits differently at the end of a text) and unknown encodings are
   counted whole. The pattern is read from the Encoding (`_pat_str`, as
   tiktoken builds its CoreBPE from it); an Encoding without one is counted whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from ._load import CL100K_PAT, O200K_PAT

if TYPE_CHECKING:
    import tiktoken

__all__ = ["CHUNK_CHARS", "SPLITS_AT_CUTS", "chunks", "splits_at_cuts"]

CHUNK_CHARS: Final = 2048
"""Texts up to this length are counted in one call; longer ones in chunks at least this long."""

SPLITS_AT_CUTS: Final = frozenset({O200K_PAT, CL100K_PAT})
"""Pre-tokenizer patterns under which every cut is a piece boundary (rule 2)."""

_CUT: Final = re.compile(r"\n(?=[!-.0-~])")
"""A cut (rule 2): the "\\n" before a printable ASCII character other than space and "/"."""


def splits_at_cuts(encoding: tiktoken.Encoding) -> bool:
    """Whether `encoding`'s counts add up over chunks (rules 2 and 3)."""
    return getattr(encoding, "_pat_str", None) in SPLITS_AT_CUTS


def chunks(text: str, size: int = CHUNK_CHARS) -> Iterator[str]:
    """`text` in consecutive chunks, each ending at the first cut at least `size` characters
    past its start (the last one at the text's end)."""
    start = 0
    while (cut := _CUT.search(text, start + size)) is not None:
        end = cut.end()
        yield text[start:end]
        start = end
    yield text[start:]
