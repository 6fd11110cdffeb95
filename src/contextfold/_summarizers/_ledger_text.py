"""The ledger's entries and their text form: render and parse invert each other.

Rules:
1. A ledger body is sections (`## Title`) of `- ` lines. Text sections hold one entry per
   line: `- [status] text (r0123456789, r...)`; in goals and errors a line without a
   status is open. The files section holds one line per file: `- path: action, action (r)`.
   Value sections hold their values grouped by role, many roles to a line, each line
   citing its newest source: `- role: value, value; role: value (r)`.
2. A value or label that would be ambiguous (contains `, `, `; ` or `: `, starts with a
   quote, ends with `)`, has outer spaces) is written as a JSON string, so parsing splits
   it back exactly.
3. An entry's merge key is a pure function of (section, group, text), so an entry read
   back from text merges exactly like the one that was written.
4. Lines the parser does not recognise (a body written by another summarizer) become
   `notes` entries: nothing in `previous` is silently lost before the bound applies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass, fields
from itertools import chain
from operator import attrgetter
from typing import Final, Literal

from .._content_cache import Memo
from .._messages import REF_PATTERN
from .._statements._facts import normalize, word_set

Section = Literal[
    "goals", "user", "decisions", "identifiers", "seen", "errors", "files", "state", "notes"
]
Status = Literal["", "open", "done", "fixed"]

TITLES: Final[dict[Section, str]] = {
    "goals": "Goals and requests",
    "user": "Values the user gave",
    "decisions": "Decisions",
    "identifiers": "Identifiers and values",
    "seen": "Seen in tool output",
    "errors": "Errors and fixes",
    "files": "Files and code state",
    "state": "Current state and next steps",
    "notes": "Earlier notes",
}
ORDER: Final[tuple[Section, ...]] = tuple(TITLES)
GROUPED: Final[frozenset[Section]] = frozenset({"user", "identifiers", "seen", "files"})
VALUES: Final[frozenset[Section]] = frozenset({"user", "identifiers", "seen"})
"""Grouped sections whose lines are `role: values`."""
SHAPE_ROLES: Final = word_set(
    """
    url email test date time money path error file symbol quantity identifier class hash
    code number command value slug version
    """
)
EDIT_ACTIONS: Final = frozenset({"created", "edited", "inserted", "undone"})
FIX_ARROW: Final = " => next: "
LAST_ACTION: Final = "last action: "


@dataclass(frozen=True, slots=True)
class Entry:
    """One ledger fact: a line of a text section or one value of a grouped line."""

    section: Section
    text: str
    _: KW_ONLY
    group: str = ""
    """The line label in grouped sections: a role (`reservation_id`) or a file path."""
    status: Status = ""
    refs: tuple[str, ...] = ()
    seq: int = 0
    """Recency: larger is newer. Entries parsed from `previous` are negative."""
    new: bool = True
    """True for entries from the span being folded, False for those from `previous`."""

    @property
    def key(self) -> str:
        """Merge identity: the newest entry with the same key wins."""
        return entry_key(self.section, self.group, self.text)


_SET_SECTION, _SET_TEXT, _SET_GROUP, _SET_STATUS, _SET_REFS, _SET_SEQ, _SET_NEW = (
    getattr(Entry, f.name).__set__ for f in fields(Entry)
)
"""Each field's slot setter, in field order (see `value_entry`)."""


def value_entry(section: Section, text: str, group: str, refs: tuple[str, ...], seq: int) -> Entry:
    """`Entry(section, text, group=group, refs=refs, seq=seq)`, for the many values of a
    pool: each slot set once, without the frozen keyword `__init__` (which sets every field
    through `object.__setattr__` by name, twice the cost)."""
    entry: Entry = object.__new__(Entry)
    _SET_SECTION(entry, section)
    _SET_TEXT(entry, text)
    _SET_GROUP(entry, group)
    _SET_STATUS(entry, "")
    _SET_REFS(entry, refs)
    _SET_SEQ(entry, seq)
    _SET_NEW(entry, True)
    return entry


_PLAIN: Final = re.compile(r"[a-z]+(?:[ _-][a-z]+)*")


def is_setting(group: str, value: str) -> bool:
    """A single-valued field (`cabin: economy`) whose newest value replaces the older; a
    number is never one (two cards' last digits are two values, not an update)."""
    return group not in SHAPE_ROLES and "[]" not in group and _PLAIN.fullmatch(value) is not None


def entry_key(section: Section, group: str, text: str) -> str:
    """The merge key of an entry (see rule 3)."""
    if section in VALUES:
        return f"id:{group}" if is_setting(group, text) else f"v:{text}"
    if section == "files":
        return f"f:{group}\n{text}"
    if section == "errors":
        return f"e:{normalize(text.split(FIX_ARROW, 1)[0])}"
    return f"{section}:{normalize(text)}"


# --- render ---------------------------------------------------------------------------------

_MAX_LINE_REFS: Final = 1
_IMPLICIT_OPEN: Final[frozenset[Section]] = frozenset({"goals", "errors"})
"""Sections where an open entry is written without a status (rule 1)."""


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False) if _needs_quotes(value) else value


quote: Final = Memo(_quote, 1 << 14).__getitem__
"""`value` as written in a grouped line (see rule 2); cached: the bound measures a value's
text before it writes it, and labels recur."""


def _needs_quotes(value: str) -> bool:
    """`re.search(r', |: |; |^"|\\)$|^\\s|\\s$|^$|\\n', value)`: substring and end tests, no
    regex (with no newline, `$` is the end)."""
    return (
        not value
        or "\n" in value
        or ", " in value
        or ": " in value
        or "; " in value
        or value[0] == '"'
        or value[-1] == ")"
        or value[0].isspace()
        or value[-1].isspace()
    )


def ref_suffix(refs: Iterable[str]) -> str:
    """` (r1, r2)` for the non-empty refs, or the empty string."""
    kept = [r for r in dict.fromkeys(refs) if r]
    return f" ({', '.join(kept)})" if kept else ""


def text_line(entry: Entry) -> str:
    """The line of a text-section entry."""
    implicit = entry.status == "open" and entry.section in _IMPLICIT_OPEN
    status = f"[{entry.status}] " if entry.status and not implicit else ""
    return f"- {status}{entry.text}{ref_suffix(entry.refs)}"


def group_line(group: str, values: list[Entry]) -> str:
    """The line of one file: its actions in order and the newest ref among them."""
    newest = sorted(values, key=lambda e: e.seq, reverse=True)
    refs = [r for e in newest for r in e.refs if r]
    kept = list(dict.fromkeys(refs))[:_MAX_LINE_REFS]
    joined = ", ".join(quote(e.text) for e in values)
    return f"- {quote(group)}: {joined}{ref_suffix(reversed(kept))}"


ROLES_PER_LINE: Final = 24
"""A value section writes at most this many roles on one line (rule 1)."""


def values_lines(items: list[Entry]) -> list[str]:
    """The lines of a value section: `role: value, value; role: value (newest ref)`."""
    roles: dict[str, list[Entry]] = {}
    for entry in items:
        roles.setdefault(entry.group, []).append(entry)
    groups = list(roles.items())
    lines: list[str] = []
    for start in range(0, len(groups), ROLES_PER_LINE):
        chunk = groups[start : start + ROLES_PER_LINE]
        newest = max(chain.from_iterable(values for _, values in chunk), key=_SEQ)
        joined = "; ".join(
            f"{quote(role)}: {', '.join(map(quote, map(_TEXT, values)))}" for role, values in chunk
        )
        lines.append(f"- {joined}{ref_suffix(newest.refs[-1:])}")
    return lines


_SEQ: Final = attrgetter("seq")
_TEXT: Final = attrgetter("text")


def render(entries: Iterable[Entry]) -> str:
    """The ledger body for `entries`: sections in ORDER, entries by recency inside each."""
    by_section: dict[Section, list[Entry]] = {}
    for entry in sorted(entries, key=_SEQ):
        by_section.setdefault(entry.section, []).append(entry)
    blocks: list[str] = []
    for section in ORDER:
        items = by_section.get(section)
        if items:
            blocks.append("\n".join([f"## {TITLES[section]}", *_section_lines(section, items)]))
    return "\n".join(blocks)


def _section_lines(section: Section, items: list[Entry]) -> list[str]:
    if section not in GROUPED:
        return [text_line(e) for e in items]
    if section in VALUES:
        return values_lines(items)
    groups: dict[str, list[Entry]] = {}
    for entry in items:
        groups.setdefault(entry.group, []).append(entry)
    return [group_line(group, values) for group, values in groups.items()]


# --- parse ----------------------------------------------------------------------------------

_REFS: Final = re.compile(rf" \(({REF_PATTERN}(?:, {REF_PATTERN})*)\)$")
_STATUS: Final = re.compile(r"^\[(open|done|fixed)\] ")
_SECTIONS: Final[dict[str, Section]] = {title: section for section, title in TITLES.items()}
_DECODER: Final = json.JSONDecoder()


def parse(body: str) -> list[Entry]:
    """Entries of a ledger body, marked old, with negative `seq` in line order."""
    out: list[Entry] = []
    section: Section | None = None
    for raw in body.splitlines():
        line = raw.rstrip()
        if line.startswith("## ") and line[3:] in _SECTIONS:
            section = _SECTIONS[line[3:]]
        elif line.strip():
            out.extend(_parse_line(section, line))
    count = len(out)
    return [
        Entry(e.section, e.text, group=e.group, status=e.status, refs=e.refs, seq=i, new=False)
        for i, e in enumerate(out, -count)
    ]


def _parse_line(section: Section | None, line: str) -> list[Entry]:
    if section is None or not line.startswith("- "):
        return [Entry("notes", line.strip())]
    body, refs = split_refs(line[2:])
    if section in GROUPED:
        parsed = _parse_groups(body) if section in VALUES else _parse_group(body)
        if parsed is None:
            return [Entry("notes", line[2:])]
        return [
            Entry(section, v, group=group, refs=refs) for group, values in parsed for v in values
        ]
    status_match = _STATUS.match(body)
    status: Status = "open" if section in _IMPLICIT_OPEN else ""
    if status_match is not None:
        status = _status(status_match.group(1))
        body = body[status_match.end() :]
    return [Entry(section, body, status=status, refs=refs)]


def split_refs(text: str) -> tuple[str, tuple[str, ...]]:
    """(`text` without a trailing ref list, the refs in it)."""
    match = _REFS.search(text)
    if match is None:
        return text, ()
    return text[: match.start()], tuple(match.group(1).split(", "))


def _status(word: str) -> Status:
    match word:
        case "open":
            return "open"
        case "done":
            return "done"
        case _:
            return "fixed"


def _parse_group(body: str) -> list[tuple[str, list[str]]] | None:
    """`group: value, value` as [(group, values)], or None."""
    parsed = _parse_groups(body)
    return parsed if parsed is not None and len(parsed) == 1 else None


def _parse_groups(body: str) -> list[tuple[str, list[str]]] | None:
    """`group: value, value; group: value` as [(group, values)], or None."""
    out: list[tuple[str, list[str]]] = []
    rest = body
    while True:
        group, rest = _take_value(rest, (": ",))
        if group is None or not rest.startswith(": "):
            return None
        values: list[str] = []
        rest = rest[2:]
        while True:
            value, rest = _take_value(rest, (", ", "; "))
            if value is None:
                return None
            values.append(value)
            if not rest.startswith(", "):
                break
            rest = rest[2:]
        out.append((group, values))
        if not rest:
            return out
        if not rest.startswith("; "):
            return None
        rest = rest[2:]


def _take_value(text: str, stops: tuple[str, ...]) -> tuple[str | None, str]:
    """One (possibly JSON-quoted) value from the start of `text`, and what follows it."""
    if text.startswith('"'):
        try:
            value, end = _DECODER.raw_decode(text)
        except ValueError:
            return None, text
        return (value, text[end:]) if isinstance(value, str) else (None, text)
    cuts = [i for i in (text.find(stop) for stop in stops) if i >= 0]
    cut = min(cuts, default=-1)
    return (text, "") if cut < 0 else (text[:cut], text[cut:])
