"""Exact tiktoken counts of texts that tiktoken's own pre-tokenizer cannot split.

Rules:
1. tiktoken splits a text with fancy-regex before its byte-pair merges. A run of about a
   million white-space characters overflows that regex's backtracking stack (the piece
   `\\s+(?!\\S)` backs off one character at a time), and tiktoken panics: a
   `pyo3_runtime.PanicException`, which derives from BaseException, not Exception
   (openai/tiktoken#15 and #245). A tool that prints a padded file or a blank screen
   dump must not bring down a compaction, so a text holding a run of LONG_RUN or more
   white-space characters (as the patterns' `\\s` reads them) is split here instead.
2. The split is tiktoken's own: the Encoding's pattern (`_pat_str`) run with the `regex`
   module (a dependency of tiktoken, whose educational tokenizer splits the same way),
   each piece of LONG_PIECE characters or more merged alone (`_encode_single_piece`: the
   byte-pair merges without the regex), and the text between such pieces encoded as
   usual. The patterns look neither behind nor at `^`, so a part that starts at a piece
   boundary and ends at one after a character other than white space splits into the
   whole text's pieces: each white-space run in it is followed by a character in it, so
   every lookahead (`\\s+(?!\\S)`, `\\s++$`) reads what it read in the whole text. The
   pieces ending in white space just before a long piece are merged alone too (a run cut
   at the end of a part would no longer back off one character). The counts add up.
3. A text tiktoken cannot encode as UTF-8 (a lone surrogate) is first repaired as
   `Encoding.encode_ordinary` repairs it, so both paths read the same text.
4. A panic from any other text is caught and the text counted by rule 2 with every
   piece merged alone (tiktoken's regex is not run on it again); rule 1 finds every case
   known. An Encoding without a pattern cannot be split: TokenizerError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from .._errors import TokenizerError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["LONG_PIECE", "LONG_RUN", "is_panic", "risky", "split_len"]

LONG_RUN: Final = 65_536
"""White-space runs this long are split here (rule 1; tiktoken fails near 900,000)."""
LONG_PIECE: Final = 8_192
"""Pieces this long are merged alone (rule 2)."""

_SPACE: Final = r"\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The characters `\\s` matches in the Rust regex crate: Unicode White_Space (Python's `\\s`
also matches \\x1c-\\x1f, which are not white space there)."""
_SPACES: Final = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {
    chr(c) for c in range(0x2000, 0x200B)
}
"""The same characters, as a set."""
_LONG: Final = re.compile(f"(?<![{_SPACE}])[{_SPACE}]{{{LONG_RUN}}}")
"""A run of LONG_RUN white-space characters, tried only where a run starts (linear)."""


def risky(text: str) -> bool:
    """Whether `text` holds a white-space run tiktoken's regex may not survive (rule 1)."""
    return len(text) >= LONG_RUN and _LONG.search(text) is not None


def is_panic(exc: BaseException) -> bool:
    """Whether `exc` is a Rust panic surfaced by pyo3 (rule 4)."""
    return type(exc).__name__ == "PanicException"


def split_len(
    encoding: tiktoken.Encoding,
    text: str,
    encode_len: Callable[[str], int],
    long_piece: int = LONG_PIECE,
) -> int:
    """The tokens of `text` under `encoding`, pieces of `long_piece` characters or more
    merged alone (rule 2); `encode_len` counts the text between them."""
    pattern = getattr(encoding, "_pat_str", None)
    if not isinstance(pattern, str):
        raise TokenizerError(
            f"tiktoken could not split a text of {len(text):,} characters and the encoding "
            f"{encoding.name!r} has no pattern to split it with"
        )
    import regex  # noqa: PLC0415 - tiktoken's own dependency, needed on this path only

    text = _repaired(text)
    single = encoding._encode_single_piece
    total = start = 0
    tail: list[tuple[int, int]] = []  # the pieces since the last one ending in a non-space
    for piece in regex.finditer(pattern, text):
        begin, end = piece.span()
        if end - begin < long_piece:
            if text[end - 1] in _SPACES:
                tail.append((begin, end))
            else:
                tail.clear()
            continue
        cut = tail[0][0] if tail else begin
        if cut > start:
            total += encode_len(text[start:cut])
        total += sum(len(single(text[b:e])) for b, e in tail)
        total += len(single(text[begin:end]))
        start = end
        tail.clear()
    if start < len(text):
        total += encode_len(text[start:])
    return total


def _repaired(text: str) -> str:
    """`text` as `Encoding.encode_ordinary` reads it (rule 3)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
