"""The zero-dependency token count: o200k_base's own split and merges, in pure Python.

Rules:
1. A text is split by o200k's pre-tokenizer (`_pretokenize`, standard `re`) and each piece
   is byte-pair merged over o200k's packaged vocabulary (`_bpe`); the count is the sum over
   pieces. Nothing outside the standard library runs, and nothing is downloaded.
2. The merges are tiktoken's, so wherever the stdlib split agrees with tiktoken's (every
   text of the shared corpus, every assigned character the tests generate) the count is
   exactly tiktoken's `o200k_base` count; the split can differ only around characters newer
   than this Python's Unicode tables (`_pretokenize` rule 4). No margin is added: an exact
   count needs none, and other tokenizers are the profiles' and CalibratedCounter's job.
3. Why not character-class rules: how many tokens a word costs is a fact of the vocabulary
   (`/special` is 2 tokens, `/sympy` 3, `/functions` 1), tool output repeats the same few
   words, and their errors add up instead of averaging out. BENCHMARKS.md has the numbers.
4. First use loads the vocabulary and builds the pattern (about 0.3 s, 25 MB), once per
   process; piece counts are cached, and the counters cache whole texts on top.
"""

from __future__ import annotations

from functools import cache

from ._bpe import PieceCounts, o200k_ranks
from ._classes import CLASSES, ContentClass, content_class
from ._pretokenize import pieces

__all__ = ["CLASSES", "ContentClass", "content_class", "count_text", "piece_counts"]


@cache
def piece_counts() -> PieceCounts:
    """The process-wide table of o200k counts per piece (loads the vocabulary once)."""
    return PieceCounts(o200k_ranks())


def count_text(text: str) -> int:
    """Tokens `text` costs in o200k_base (rule 2 says when this can differ)."""
    if not text:
        return 0
    try:
        return sum(map(piece_counts().__getitem__, pieces(text)))
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8: count them as U+FFFD, as tiktoken does.
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return sum(map(piece_counts().__getitem__, pieces(fixed)))
