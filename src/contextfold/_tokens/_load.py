"""Offline tiktoken encodings from the data files shipped inside the package.

Rules:
1. Nothing is downloaded. `o200k_base` and `cl100k_base` come from `data/<name>.ranks.gz`
   (read with `pkgutil.get_data`, through the package's loader, so a zipped install works
   too, without the ~5 ms of imports `importlib.resources` costs every process): the tokens
   of the files tiktoken would fetch, already decoded, in rank order (ranks are 0..n-1): a
   header line `contextfold-ranks 2 <n>`, then the tokens as one list in Python's marshal
   format (written byte by byte here: a list of n byte strings, no references), gzipped.
   No base64 and no per-token Python work at start-up: `marshal.loads` builds the list in
   C, after the sha256 check (rule 2).
   `published(ranks)` gives back tiktoken's file byte for byte; its sha256 is tiktoken's
   `expected_hash` (tested), and scripts/predecode_ranks.py writes the files from it.
2. The sha256 of the decompressed bytes must equal the spec's `ranks_sha256`; anything
   else (missing, corrupt, truncated data) raises TokenizerError.
3. The Encoding is built from data, as `tiktoken.Encoding(name, pat_str=..., mergeable_ranks=...,
   special_tokens=...)`, with pat_str and special tokens exactly as `tiktoken_ext.openai_public`
   defines them. tiktoken itself is the optional `contextfold[tiktoken]` extra, imported lazily.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import marshal
import pkgutil
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from .._errors import TokenizerError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "ENCODINGS",
    "EncodingSpec",
    "encoding",
    "parse_ranks",
    "predecoded",
    "published",
    "read_packaged",
]

# tiktoken_ext.openai_public keeps its special-token names as module constants, but builds
# pat_str inside each constructor; these are copied verbatim (tests compare them with it).
ENDOFTEXT: Final = "<|endoftext|>"
FIM_PREFIX: Final = "<|fim_prefix|>"
FIM_MIDDLE: Final = "<|fim_middle|>"
FIM_SUFFIX: Final = "<|fim_suffix|>"
ENDOFPROMPT: Final = "<|endofprompt|>"

CL100K_PAT: Final = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PAT: Final = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True, slots=True)
class EncodingSpec:
    """Everything needed to build one encoding except its ranks."""

    name: str
    file: str
    """File name under `contextfold/_tokens/data` (rule 1)."""
    sha256: str
    """tiktoken's `expected_hash` for its `.tiktoken` file (what `published` gives back)."""
    pat_str: str
    special_tokens: Mapping[str, int]
    ranks_sha256: str
    """sha256 of the uncompressed pre-decoded file."""

    @property
    def published_file(self) -> str:
        """The name of tiktoken's file: `<name>.tiktoken`."""
        return f"{self.name}.tiktoken"


ENCODINGS: Final[Mapping[str, EncodingSpec]] = {
    "o200k_base": EncodingSpec(
        "o200k_base",
        "o200k_base.ranks.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        O200K_PAT,
        {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        "ad378b0f78e56280555e18221816ba763e202353c75d4fde981dc26873be2839",
    ),
    "cl100k_base": EncodingSpec(
        "cl100k_base",
        "cl100k_base.ranks.gz",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        CL100K_PAT,
        {
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
        "698d1daa357a8a389c7c7a908009d053406fe34c09ee229fd8df44561f57b7db",
    ),
}


def read_packaged(file: str) -> bytes:
    """The gzipped bytes of a data file shipped in the package."""
    try:
        data = pkgutil.get_data(__package__, f"data/{file}")
    except OSError as exc:
        raise _missing(file, exc) from exc
    if data is None:
        raise _missing(file, "the package's loader cannot read data files")
    return data


def _missing(file: str, why: object) -> TokenizerError:
    return TokenizerError(
        f"encoding data file {file!r} is missing from the contextfold package ({why}); "
        "reinstall contextfold"
    )


_HEADER: Final = b"contextfold-ranks 2 "
_LIST: Final = b"["
"""marshal's TYPE_LIST, then the item count (little-endian int32)."""
_BYTES: Final = b"s"
"""marshal's TYPE_STRING (a bytes object), then its length (little-endian int32)."""


def parse_ranks(gzipped: bytes, expected_sha256: str) -> dict[bytes, int]:
    """Mergeable ranks from a gzipped pre-decoded file (rule 1), after checking its sha256."""
    try:
        raw = gzip.decompress(gzipped)
    except (OSError, EOFError, zlib.error) as exc:
        raise TokenizerError(f"encoding data is not valid gzip: {exc}") from exc
    actual = hashlib.sha256(raw).hexdigest()
    if actual != expected_sha256:
        raise TokenizerError(
            f"encoding data has sha256 {actual}, expected {expected_sha256}; "
            "the file is corrupt or not the published one, reinstall contextfold"
        )
    head, _, body = raw.partition(b"\n")
    if not head.startswith(_HEADER):  # pragma: no cover - hash already matched
        raise TokenizerError("encoding data is malformed: no header")
    n = int(head.removeprefix(_HEADER))
    try:
        tokens = marshal.loads(body)
    except (EOFError, ValueError, TypeError) as exc:  # pragma: no cover - hash matched
        raise TokenizerError(f"encoding data is malformed: {exc}") from None
    if type(tokens) is not list or len(tokens) != n:  # pragma: no cover - hash matched
        raise TokenizerError("encoding data is malformed: not a list of n tokens")
    return dict(zip(tokens, range(n), strict=True))


def predecoded(ranks: Mapping[bytes, int]) -> bytes:
    """The pre-decoded file for `ranks` (rule 1; ranks must be 0..n-1)."""
    tokens = sorted(ranks, key=ranks.__getitem__)
    if [ranks[t] for t in tokens] != list(range(len(tokens))):
        raise ValueError("ranks are not 0..n-1")
    header = _HEADER + str(len(tokens)).encode() + b"\n"
    items = b"".join(_BYTES + struct.pack("<i", len(t)) + t for t in tokens)
    return header + _LIST + struct.pack("<i", len(tokens)) + items


def published(ranks: Mapping[bytes, int]) -> bytes:
    """tiktoken's `.tiktoken` file for `ranks`: base64 token, space, rank, one a line."""
    return b"".join(
        base64.b64encode(token) + b" %d\n" % rank
        for token, rank in sorted(ranks.items(), key=lambda item: item[1])
    )


@cache
def encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken Encoding `name`, built offline from packaged data (cached)."""
    spec = ENCODINGS.get(name)
    if spec is None:
        raise TokenizerError(
            f"no packaged data for encoding {name!r}; available: {', '.join(ENCODINGS)}"
        )
    try:
        import tiktoken  # noqa: PLC0415 - optional extra, imported lazily (STYLE 15)
    except ImportError as exc:
        raise TokenizerError(
            "exact OpenAI token counts need tiktoken: pip install 'contextfold[tiktoken]'"
        ) from exc
    ranks = parse_ranks(read_packaged(spec.file), spec.ranks_sha256)
    return tiktoken.Encoding(
        spec.name,
        pat_str=spec.pat_str,
        mergeable_ranks=ranks,
        special_tokens=dict(spec.special_tokens),
    )
