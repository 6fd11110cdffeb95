"""The embedded summarizer: a deterministic, extractive, bounded state ledger.

Rules:
1. No model, no network, no clock: the same request gives byte-identical text.
2. Anchored merge: `request.previous` is parsed back into entries, the span's entries are
   merged in (the newest entry with a key wins, duplicates collapse, a value keeps the
   closest source it ever had: user, agent, tool), then events from the span close goals
   and fix errors, wherever those came from.
3. The body never exceeds `request.max_tokens` as measured by `count_text`. Over the bound,
   the least valuable entries go first (`_ledger_bound`): the task and stated goals and
   open errors are kept first, tool data and resolved items go first.
4. The work is bounded by `max_tokens`, not by the span: each source (the user's text,
   the agent's, tool output) is read newest first up to a character allowance many times
   what the bound can show, the span's first user text first (`_ledger_reading`); a short
   note says how many messages were not read. Values are read newest first until the pool
   holds several times what `max_tokens` can show (`pool_size`).
5. Every line ends with the archive refs of the messages it came from, when known. Refs
   that are not archive references are treated as unknown, so the text always parses back.
6. What the card carries and what the user superseded is left out (`_ledger_carried`), as
   if never extracted; the bound tests only the entries it reaches (`_ledger_bound`).
7. A span read recently (the same messages under the same refs, the same pool) is not
   read again: its extraction is kept (the last few, exact: the messages are compared).
   Nor is it bounded again: the ledger written from that very extraction with the same
   previous text, bound, counter and card statements is kept too (the last few).
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from .._content_cache import on_clear
from .._messages import REF_PATTERN, Message
from .._tokens._counters import _Accounted
from ._ledger_bound import bound
from ._ledger_carried import carried_test
from ._ledger_extract import Extraction, extract
from ._ledger_reading import Reading, reading
from ._ledger_text import FIX_ARROW, ORDER, VALUES, Entry, Section, entry_key, parse
from ._protocol import SummaryRequest, SummaryResult

__all__ = ["LedgerSummarizer", "estimate_tokens"]

_PIECES: Final = re.compile(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]|\n|[ \t]{2,}")
_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")


def estimate_tokens(text: str) -> int:
    """A token count that errs high for BPE tokenizers (cl100k, o200k, Llama, Qwen).

    One token per letter run of up to four letters (plus one per four more), per group
    of up to three digits, per other symbol, newline or run of spaces, and one per UTF-8
    byte past the second of each non-ASCII character.
    """
    pieces = _PIECES.findall(text)
    long_words = sum((len(p) - 1) // 4 for p in pieces if len(p) > 4 and p[0] not in " \t")
    if text.isascii():
        return len(pieces) + long_words
    wide = len(text.encode("utf-8")) - len(text) - len(_NON_ASCII.findall(text))
    return len(pieces) + long_words + wide


@dataclass(frozen=True, slots=True)
class LedgerSummarizer:
    """Summarizer that writes an extractive state ledger; no model, no network, no cost."""

    count_text: Callable[[str], int] = estimate_tokens
    """Tokens in a piece of text; should not under-count for the target model."""
    name: str = "ledger"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The ledger for `request.messages`, merged with `request.previous`, within bound."""
        refs = tuple(request.refs)
        if not all(map(_REF.fullmatch, refs)):  # the engine's refs all are: tested in C
            refs = tuple(r if _REF.fullmatch(r) else "" for r in refs)
        found = _SPANS.read(request.messages, refs, request.max_tokens)
        pure = _pure(self.count_text)
        key: tuple[object, ...] = (request.previous, request.max_tokens)
        key += (_weak(self.count_text) if pure else None, request.carried, request.stale)
        text = _WRITTEN.get(found, key) if pure else None
        if text is None:
            old = parse(request.previous) if request.previous else []
            covered = carried_test(request.carried, request.stale)
            text = bound(merge(old, found), request.max_tokens, self.count_text, covered)
            if pure:
                _WRITTEN.put(found, key, text)
        return SummaryResult(text, summarizer=self.name)

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize` (the work is CPU-only and fast)."""
        return self.summarize(request)


_REF: Final = re.compile(REF_PATTERN)


class _Spans:
    """The last few spans read (rule 7): by refs and bound, checked against the messages."""

    __slots__ = ("_data", "_lock", "size")

    def __init__(self, size: int) -> None:
        self._data: OrderedDict[
            tuple[tuple[str, ...], int, Reading], tuple[Messages, Extraction]
        ] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def read(self, messages: Messages, refs: tuple[str, ...], max_tokens: int) -> Extraction:
        """The extraction for a ledger of `max_tokens`, the same object when this span was
        read for the same pool and reading before."""
        pool, limit = pool_size(max_tokens), reading(max_tokens)
        key = (refs, pool, limit)
        with self._lock:
            found = self._data.get(key)
        if found is not None and found[0] == messages:
            return found[1]
        value = extract(messages, refs, pool, limit)
        with self._lock:
            self._data[key] = (messages, value)
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        """Forget every span."""
        with self._lock:
            self._data.clear()


class _Written:
    """The last few ledgers written (rule 7), by the extraction they were written from (the
    very object, kept alive here) and everything else the text depends on."""

    __slots__ = ("_data", "_lock", "size")

    def __init__(self, size: int) -> None:
        self._data: OrderedDict[tuple[int, tuple[object, ...]], tuple[Extraction, str]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()
        self.size = size

    def get(self, found: Extraction, key: tuple[object, ...]) -> str | None:
        with self._lock:
            kept = self._data.get((id(found), key))
        return kept[1] if kept is not None and kept[0] is found else None

    def put(self, found: Extraction, key: tuple[object, ...], text: str) -> None:
        with self._lock:
            self._data[(id(found), key)] = (found, text)
            self._data.move_to_end((id(found), key))
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        """Forget every ledger."""
        with self._lock:
            self._data.clear()


def _pure(count: Callable[[str], int]) -> bool:
    """Whether `count` gives the same number for the same text whenever it is asked: the
    packaged counters do; a calibrated one learns, and a caller's own is not known to."""
    return count is estimate_tokens or isinstance(getattr(count, "__self__", None), _Accounted)


def _weak(count: Callable[[str], int]) -> object:
    """A pure `count` as a cache key that does not keep its counter (and the counter's
    count cache) alive once the caller lets it go: a dead key never equals a live one."""
    return count if count is estimate_tokens else weakref.WeakMethod(count)


Messages = tuple[Message, ...]
_SPANS: Final = _Spans(8)
"""Extractions are read-only once made: a stateless caller's next request folds mostly the
same chunks (the same messages under the same refs), and reading them is most of the work."""
on_clear(_SPANS.clear)
_WRITTEN: Final = _Written(8)
on_clear(_WRITTEN.clear)
_TOKENS_PER_POOLED_VALUE: Final = 2
_MIN_POOL: Final = 128


def pool_size(max_tokens: int) -> int:
    """Values of each low-priority source worth reading for a ledger of `max_tokens`: a value
    costs at least ~3 tokens and shares the bound with goals and errors, so this is several
    times what can be shown."""
    return max(_MIN_POOL, max_tokens // _TOKENS_PER_POOLED_VALUE)


# --- merge ----------------------------------------------------------------------------------


def merge(old: list[Entry], found: Extraction) -> list[Entry]:
    """Old entries, then the span's, one per key (newest wins), with events applied."""
    ordered = [*old, *found.earlier]
    if ordered and any(e.section == "state" for e in found.entries):
        ordered = [e for e in ordered if e.section != "state"]
    ordered.extend(found.entries)
    by_key: dict[str, Entry] = {}
    for entry in ordered:
        key = entry_key(entry.section, entry.group, entry.text)
        known = by_key.get(key)
        by_key[key] = entry if known is None else _closest_source(known, entry)
    merged = list(by_key.values())
    merged = _close_goals(merged, found.completions)
    return _fix_errors(merged, found)


def _closest_source(known: Entry, entry: Entry) -> Entry:
    """`entry`, moved to the section of the same value said by someone closer to the user
    (the user, then the agent, then tool output) when that is where it was known from."""
    if known.text != entry.text:
        return entry
    if (
        known.section in VALUES
        and entry.section in VALUES
        and _closer(known.section, entry.section)
    ):
        return replace(entry, section=known.section)
    return entry


def _closer(known: Section, new: Section) -> bool:
    return ORDER.index(known) < ORDER.index(new)


def _close_goals(entries: list[Entry], completions: list[int]) -> list[Entry]:
    """Each completion closes the latest open goal before it (and its message's others)."""
    if not completions:
        return entries
    done: set[int] = set()
    goals = sorted(
        (i for i, e in enumerate(entries) if e.section == "goals"), key=lambda i: entries[i].seq
    )
    for seq in completions:
        before = [i for i in goals if entries[i].seq < seq and entries[i].status == "open"]
        before = [i for i in before if i not in done]
        if not before:
            continue
        latest = entries[before[-1]]
        done.update(i for i in before if latest.refs and entries[i].refs == latest.refs)
        done.add(before[-1])
    if not done:
        return entries
    return [replace(e, status="done") if i in done else e for i, e in enumerate(entries)]


def _fix_errors(entries: list[Entry], found: Extraction) -> list[Entry]:
    """Open errors get the span's first action if they had none, and are fixed by success."""
    return [
        _follow_up(e, found) if e.section == "errors" and e.status == "open" else e for e in entries
    ]


def _follow_up(error: Entry, found: Extraction) -> Entry:
    if FIX_ARROW not in error.text and not error.new and found.first_action is not None:
        action, ref = found.first_action
        refs = (*error.refs, ref) if ref else error.refs
        error = replace(error, text=f"{error.text}{FIX_ARROW}{action}", refs=refs)
    tool = error.text.split(": ", 1)[0]
    if tool and any(name == tool and seq > error.seq for name, seq in found.successes):
        return replace(error, status="fixed")
    return error
