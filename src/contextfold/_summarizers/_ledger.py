"""The embedded summarizer: a deterministic, extractive, bounded state ledger.

Rules:
1. No model, no network, no clock: the same request gives byte-identical text.
2. Anchored merge: `request.previous` is parsed back into entries, the span's entries are
   merged in (the newest entry with a key wins, duplicates collapse), then events from the
   span close goals and fix errors, wherever those came from.
3. The body never exceeds `request.max_tokens` as measured by `count_text`. Over the bound,
   the least valuable entries go first, by the RANKS table and `priorities`: open goals and
   errors; then the span's decisions, identifiers and file edits, with the task and the
   edits carried from before; then older details; then resolved items and tool data. Newest
   first within a rank.
4. Every line ends with the archive refs of the messages it came from, when known. Refs
   that are not archive references are treated as unknown, so the text always parses back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from .._messages import REF_PATTERN
from ._ledger_extract import Extraction, extract
from ._ledger_text import (
    EDIT_ACTIONS,
    FIX_ARROW,
    GROUPED,
    LAST_ACTION,
    TITLES,
    Entry,
    Section,
    parse,
    quote,
    ref_suffix,
    render,
    text_line,
)
from ._protocol import SummaryRequest, SummaryResult

__all__ = ["LedgerSummarizer", "estimate_tokens"]

_PIECES: Final = re.compile(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]|\n|[ \t]{2,}")
_LONG_WORDS: Final = re.compile(r"[A-Za-z]{5,}")
_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")


def estimate_tokens(text: str) -> int:
    """A token count that errs high for BPE tokenizers (cl100k, o200k, Llama, Qwen).

    One token per letter run of up to four letters (plus one per four more), per group
    of up to three digits, per other symbol, newline or run of spaces, and one per UTF-8
    byte past the second of each non-ASCII character.
    """
    pieces = len(_PIECES.findall(text))
    long_words = sum((len(w) - 1) // 4 for w in _LONG_WORDS.findall(text))
    wide = len(text.encode("utf-8")) - len(text) - len(_NON_ASCII.findall(text))
    return pieces + long_words + wide


@dataclass(frozen=True, slots=True)
class LedgerSummarizer:
    """Summarizer that writes an extractive state ledger; no model, no network, no cost."""

    count_text: Callable[[str], int] = estimate_tokens
    """Tokens in a piece of text; should not under-count for the target model."""
    name: str = "ledger"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The ledger for `request.messages`, merged with `request.previous`, within bound."""
        refs = tuple(r if _REF.fullmatch(r) else "" for r in request.refs)
        found = extract(request.messages, refs)
        old = parse(request.previous) if request.previous else []
        text = bound(merge(old, found), request.max_tokens, self.count_text)
        return SummaryResult(text, summarizer=self.name)

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize` (the work is CPU-only and fast)."""
        return self.summarize(request)


_REF: Final = re.compile(REF_PATTERN)
_LONGEST_REF: Final = "r" + "f" * 10


# --- merge ----------------------------------------------------------------------------------


def merge(old: list[Entry], found: Extraction) -> list[Entry]:
    """Old entries, then the span's, one per key (newest wins), with events applied."""
    new_state = any(e.section == "state" for e in found.entries)
    ordered = [e for e in (*old, *found.earlier) if not (new_state and e.section == "state")]
    ordered.extend(found.entries)
    by_key: dict[str, Entry] = {}
    for entry in ordered:
        known = by_key.get(entry.key)
        promoted = known is not None and known.section == "identifiers"
        by_key[entry.key] = replace(entry, section="identifiers") if promoted else entry
    merged = list(by_key.values())
    merged = _close_goals(merged, found.completions)
    return _fix_errors(merged, found)


def _close_goals(entries: list[Entry], completions: list[int]) -> list[Entry]:
    """Each completion closes the latest open goal before it (and its message's others)."""
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


# --- bound ----------------------------------------------------------------------------------

RANKS: Final[dict[str, tuple[int, int]]] = {
    # kind of entry: (rank when from the span, rank when from `previous`); lower is kept first
    "goals open": (0, 0),
    "errors open": (0, 1),
    "state": (1, 2),
    "last action": (1, 3),
    "decisions": (1, 2),
    "identifiers": (1, 2),
    "file edit": (1, 1),
    "notes": (2, 2),
    "command": (3, 4),
    "file view": (3, 4),
    "seen": (3, 4),
    "goals closed": (2, 2),
    "errors closed": (3, 4),
}


def rank(entry: Entry) -> int:
    """Priority of `entry` under the bound; lower is kept first."""
    new, old = RANKS[_kind(entry)]
    return new if entry.new else old


def _kind(entry: Entry) -> str:
    match entry.section:
        case "goals" | "errors":
            return f"{entry.section} {'open' if entry.status == 'open' else 'closed'}"
        case "files":
            edit = entry.text in EDIT_ACTIONS or entry.text.startswith(("def ", "class "))
            return "file edit" if edit else "file view"
        case "identifiers" if entry.group == "command":
            return "command"
        case "state" if entry.text.startswith(LAST_ACTION):
            return "last action"
        case _:
            return entry.section


_TASK_GOALS: Final = 2
"""The oldest goals carried from `previous` state the task: kept at rank 1 even when done."""
_LATEST_OPEN_GOALS: Final = 4
"""Of the other open goals carried from `previous`, the newest keep rank 0; the rest drop to 2."""
_FIRST: Final[frozenset[Section]] = frozenset({"goals", "errors", "files"})
"""Below rank 0, goals, errors and files carried from `previous` (and the span's file
edits) go before other entries of their rank, whatever their age."""


def priorities(entries: list[Entry]) -> list[tuple[int, int, int, int]]:
    """Sort keys for the bound: (rank, section, weight, newest first); lower is kept first."""
    ranks = [rank(e) for e in entries]
    old_goals = sorted(
        (i for i, e in enumerate(entries) if e.section == "goals" and not e.new),
        key=lambda i: entries[i].seq,
    )
    for i in old_goals[:_TASK_GOALS]:
        ranks[i] = min(ranks[i], 1)
    later_open = [i for i in old_goals[_TASK_GOALS:] if entries[i].status == "open"]
    for i in later_open[: max(0, len(later_open) - _LATEST_OPEN_GOALS)]:
        ranks[i] = 2
    return [(r, _section_key(e, r), weight(e), -e.seq) for r, e in zip(ranks, entries, strict=True)]


def _section_key(entry: Entry, rank: int) -> int:
    """0 for entries that go first within their rank (see _FIRST), else 1."""
    if rank == 0:
        return 0
    return 0 if entry.section == "files" or (entry.section in _FIRST and not entry.new) else 1


_NUMERIC: Final = re.compile(r"[$€£]?[\d.,:%]+(?:\s?[A-Za-z]{0,3})?")
_ID_LIKE: Final = re.compile(r"[A-Za-z].*\d|\d.*[A-Za-z]|[_/@.]")


def weight(entry: Entry) -> int:
    """Order inside a rank for tool data: identifiers, then words, then bare numbers."""
    if entry.section != "seen":
        return 0
    if _NUMERIC.fullmatch(entry.text):
        return 2
    return 0 if _ID_LIKE.search(entry.text) else 1


def bound(entries: list[Entry], max_tokens: int, count: Callable[[str], int]) -> str:
    """The rendered ledger of the most valuable entries whose text fits `max_tokens`."""
    whole = render(entries)
    if count(whole) <= max_tokens:
        return whole
    keys = priorities(entries)
    order = sorted(range(len(entries)), key=lambda i: (keys[i], i))
    chosen = _greedy([entries[i] for i in order], max_tokens, count)
    text = render(chosen)
    while chosen and count(text) > max_tokens:
        chosen = chosen[: len(chosen) - max(1, len(chosen) // 8)]
        text = render(chosen)
    return text if count(text) <= max_tokens else ""


def _greedy(ranked: list[Entry], budget: int, count: Callable[[str], int]) -> list[Entry]:
    """Entries in priority order while their estimated cost fits (costs are upper bounds)."""
    chosen: list[Entry] = []
    paid: dict[tuple[Section, str], int] = {}
    used = 0
    for entry in ranked:
        extra = _cost(entry, count)
        overheads = _overheads(entry, count, paid)
        extra += sum(overheads.values())
        if used + extra <= budget:
            chosen.append(entry)
            paid.update(overheads)
            used += extra
    return chosen


def _cost(entry: Entry, count: Callable[[str], int]) -> int:
    if entry.section not in GROUPED:
        return count(text_line(entry) + "\n")
    return count(f", {quote(entry.text)}")


def _overheads(
    entry: Entry, count: Callable[[str], int], paid: dict[tuple[Section, str], int]
) -> dict[tuple[Section, str], int]:
    """Header costs `entry` would add: its section title and, when grouped, its line label
    and the one ref a grouped line shows."""
    out: dict[tuple[Section, str], int] = {}
    if (entry.section, "") not in paid:
        out[(entry.section, "")] = count(f"## {TITLES[entry.section]}\n")
    if entry.section in GROUPED and (entry.section, entry.group) not in paid:
        refs = ref_suffix(entry.refs[-1:]) if entry.refs else ref_suffix([_LONGEST_REF])
        out[(entry.section, entry.group)] = count(f"- {quote(entry.group)}:{refs}\n")
    return out
