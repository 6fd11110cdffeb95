"""How many pages a base64 PDF has, read from its bytes without a PDF library.

Rules:
1. The text is base64, after a `data:...,` URL prefix if it has one. Bytes with no `%PDF-`
   header in their first 1,024 (where readers look for it) are not a PDF: None.
2. The pages are the larger of two readings: how many dictionaries say `/Type /Page`, and
   the largest `/Count` of a `/Type /Pages` node (the root of the page tree counts every
   page). Old objects an incremental update left in the file can only raise it: it errs
   high, as a budget must.
3. Objects packed in object streams (`/Type /ObjStm`, PDF 1.5 on, where most page
   dictionaries of modern files live) are read too: Flate streams without a predictor are
   inflated, at most INFLATE_LIMIT bytes each and TOTAL_INFLATE_LIMIT in all, so a
   compression bomb costs bounded time and memory.
4. An object stream that cannot be read whole (another filter, a predictor, encrypted
   data, cut at a limit) may hold pages, so the file reads as None rather than as the
   pages seen; so does a file with no page found (not a PDF, broken bytes, malformed
   base64). The caller falls back. Nothing here raises.
5. The file is decoded once per content: counts are cached by the wire text itself (its
   hash is kept on it: a hit is one lookup) up to MEMO_CHARS characters of texts; a text
   longer than BIG is cached by its digest instead (`ContentCache`), so no cache keeps a
   large file alive, and it is still decoded only once while remembered.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from itertools import pairwise
from typing import Final

from .._content_cache import ContentCache, TextMemo, on_clear

__all__ = ["pdf_pages"]

INFLATE_LIMIT: Final = 1 << 24
"""Bytes one object stream may inflate to (16 MiB; real ones hold a few hundred KiB)."""
TOTAL_INFLATE_LIMIT: Final = 1 << 26
"""Bytes all object streams of one file may inflate to (64 MiB)."""
MEMO_CHARS: Final = 1 << 24
"""Characters of base64 texts the memo keeps alive, at most (16 Mi)."""
BIG: Final = 1 << 22
"""Texts longer than this (4 Mi characters, a 3 MB file) are cached by digest (rule 5)."""
_WINDOW: Final = 1 << 16
"""How far from its `/Type` an object's other keys are looked for."""

_TYPE: Final = re.compile(rb"/Type\s*/(Pages|Page|ObjStm)(?![^\s/<>\[\]()%{}])")
_COUNT: Final = re.compile(rb"/Count\s+(\d{1,9})(?!\d)")
_FIRST: Final = re.compile(rb"/First\s+(\d{1,12})(?!\d)")
_LENGTH: Final = re.compile(rb"/Length\s+(\d{1,12})(?!\d|\s+\d+\s+R)")
_INT: Final = re.compile(rb"\d{1,12}")


def pdf_pages(data: str) -> int | None:
    """Pages of the base64 PDF `data` (rule 2), None when they cannot be read (rule 4)."""
    if len(data) > BIG:
        return _BY_DIGEST(data)
    return _BY_TEXT[data]


def _read(data: str) -> int | None:
    if data.startswith("data:"):
        data = data[data.find(",") + 1 :]
    try:
        raw = base64.b64decode(data)
    except (binascii.Error, ValueError):  # ValueError: a non-ASCII character
        return None
    if raw.find(b"%PDF-", 0, 1024) < 0:
        return None
    tally = _Tally()
    streams = tally.scan(raw, 0, len(raw), top=True)
    for at in streams:
        tally.scan_stream(raw, at)
    pages = max(tally.pages, tally.count)
    return None if tally.unread else pages or None


class _Tally:
    """What the scans found so far."""

    __slots__ = ("count", "inflated", "pages", "unread")

    def __init__(self) -> None:
        self.pages = 0
        self.count = 0
        self.inflated = 0
        self.unread = False
        """Some object stream could not be read whole (rule 4)."""

    def scan(self, raw: bytes, start: int, end: int, *, top: bool) -> list[int]:
        """Tally the page dictionaries and page tree counts in raw[start:end]; return where
        the object streams' `/Type` keys are (top level only)."""
        streams: list[int] = []
        for match in _TYPE.finditer(raw, start, end):
            kind = match[1]
            if kind == b"Page":
                self.pages += 1
            elif kind == b"Pages":
                lo, hi = _bounds(raw, match.start(), start, end)
                found = _COUNT.search(raw, lo, hi)
                if found:
                    self.count = max(self.count, int(found[1]))
            elif top:
                streams.append(match.start())
        return streams

    def scan_stream(self, raw: bytes, at: int) -> None:
        """Tally the objects packed in the object stream whose `/Type` is at `at`."""
        inflated = self._inflate(raw, at)
        if inflated is None:
            self.unread = True
            return
        body, first = inflated
        header = [int(n) for n in _INT.findall(body, 0, first)]
        offsets = sorted({first + off for off in header[1::2] if first + off <= len(body)})
        ends = [*offsets, len(body)]
        for lo, hi in pairwise(ends):
            self.scan(body, lo, hi, top=False)

    def _inflate(self, raw: bytes, at: int) -> tuple[bytes, int] | None:
        lo, _ = _bounds(raw, at, 0, len(raw))
        keyword = raw.find(b"stream", at, at + _WINDOW)
        room = min(INFLATE_LIMIT, TOTAL_INFLATE_LIMIT - self.inflated)
        if keyword < 0 or room <= 0:
            return None
        head = raw[lo:keyword]
        first = _FIRST.search(head)
        if first is None or b"/FlateDecode" not in head or b"/Predictor" in head:
            return None
        begin = keyword + 6
        begin += 2 if raw.startswith(b"\r\n", begin) else 1
        length = _LENGTH.search(head)
        end = begin + int(length[1]) if length else raw.find(b"endstream", begin)
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(raw[begin : end if end >= 0 else None], room)
        except zlib.error:
            return None
        if inflater.unconsumed_tail:
            return None  # cut at the limit
        self.inflated += len(body)
        return body, int(first[1])


def _bounds(raw: bytes, at: int, start: int, end: int) -> tuple[int, int]:
    """The stretch around `at` that belongs to its object: from the `obj` before it to the
    `obj` after it (`endobj`, or the next header), within `_WINDOW` and start..end."""
    lo = max(start, at - _WINDOW)
    before = raw.rfind(b"obj", lo, at)
    hi = min(end, at + _WINDOW)
    after = raw.find(b"obj", at, hi)
    return (before + 3 if before >= 0 else lo), (after if after >= 0 else hi)


_BY_TEXT: Final = TextMemo(_read, 256, MEMO_CHARS)
_BY_DIGEST: Final = ContentCache(_read, 16)
on_clear(_BY_TEXT.clear)
