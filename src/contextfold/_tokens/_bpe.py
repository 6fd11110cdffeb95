"""Byte-pair merges over o200k_base's vocabulary in pure Python, counted per piece.

Rules:
1. A piece's count is the number of tokens tiktoken's `_byte_pair_merge` leaves: start from
   single bytes and repeatedly merge the adjacent pair whose joined bytes have the lowest
   rank (the leftmost on ties) until no adjacent pair is in the vocabulary.
2. Pairs wait in a heap keyed by (rank, offset), so the leftmost lowest-rank pair comes out
   first; an entry whose parts have changed since it was pushed is skipped (ranks are
   unique, so a stale entry's bytes no longer have its rank). Long runs of dashes or spaces
   cost O(n log n), not the O(n^2) of rescanning every pair.
3. The ranks are the packaged `o200k_base.ranks.gz`, read and sha256-checked by `_load`
   on first use (about 0.25 s and 25 MB, once per process); no third-party code runs.
4. Counts are cached per piece in a plain dict (`PieceCounts`, looked up at C speed),
   cleared when it reaches MAX_PIECES entries, so a long-running process stays bounded.
5. A piece of NATIVE_BYTES or more (a run of a million blanks or of one letter, which
   takes seconds here) is merged by tiktoken's own `_encode_single_piece` over the same
   ranks when tiktoken is installed: the same merges (rule 1; the tests compare the two),
   in native code. Without tiktoken it is merged here, as every other piece.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from heapq import heapify, heappop, heappush
from typing import Final

from ._load import ENCODINGS, parse_ranks, read_packaged

__all__ = ["MAX_PIECES", "NATIVE_BYTES", "PieceCounts", "merged_length", "o200k_ranks"]

MAX_PIECES: Final = 1 << 16
NATIVE_BYTES: Final = 1 << 16
"""Pieces this long are merged by tiktoken when it is installed (rule 5)."""
_DEAD: Final = -2


@cache
def o200k_ranks() -> Mapping[bytes, int]:
    """o200k_base's mergeable ranks, from the data shipped in the package (rule 3)."""
    spec = ENCODINGS["o200k_base"]
    return parse_ranks(read_packaged(spec.file), spec.ranks_sha256)


def merged_length(data: bytes, ranks: Mapping[bytes, int]) -> int:
    """Tokens left after byte-pair merging `data` (rules 1 and 2)."""
    if data in ranks:
        return 1
    size = len(data)
    after = list(range(1, size + 1))  # offset where the part starting here ends
    before = list(range(-1, size - 1))  # offset of the part before; _DEAD once merged away
    heap = [(r, i) for i in range(size - 1) if (r := ranks.get(data[i : i + 2])) is not None]
    heapify(heap)
    count = size
    while heap:
        rank, left = heappop(heap)
        right = after[left]
        if right >= size or before[right] != left:
            continue  # `left` was merged away, or is the last part
        end = after[right]
        if ranks.get(data[left:end]) != rank:
            continue  # one of the two parts has grown since this entry was pushed
        after[left] = end
        if end < size:
            before[end] = left
        before[right] = _DEAD
        count -= 1
        first = before[left]
        if first >= 0 and (r := ranks.get(data[first:end])) is not None:
            heappush(heap, (r, first))
        if end < size and (r := ranks.get(data[left : after[end]])) is not None:
            heappush(heap, (r, left))
    return count


class PieceCounts(dict[str, int]):
    """Token count per pre-tokenizer piece, merged on first lookup (rule 4)."""

    __slots__ = ("ranks",)

    def __init__(self, ranks: Mapping[bytes, int]) -> None:
        super().__init__()
        self.ranks = ranks

    def __missing__(self, piece: str) -> int:
        if len(self) >= MAX_PIECES:
            self.clear()
        data = piece.encode("utf-8")
        native = _native(self.ranks) if len(data) >= NATIVE_BYTES else None
        count = merged_length(data, self.ranks) if native is None else native(data)
        self[piece] = count
        return count


def _native(ranks: Mapping[bytes, int]) -> Callable[[bytes], int] | None:
    """tiktoken's merge of one piece, for o200k's ranks; None without tiktoken (rule 5)."""
    return _o200k_merger() if ranks is o200k_ranks() else None


@cache
def _o200k_merger() -> Callable[[bytes], int] | None:
    try:
        import tiktoken  # noqa: PLC0415 - optional extra, imported lazily (STYLE 15)
    except ImportError:
        return None
    spec = ENCODINGS["o200k_base"]
    ranks = o200k_ranks()
    encoding = tiktoken.Encoding(
        spec.name,
        pat_str=spec.pat_str,
        mergeable_ranks=ranks if isinstance(ranks, dict) else dict(ranks),
        special_tokens={},
    )
    return lambda data: len(encoding._encode_single_piece(data))
