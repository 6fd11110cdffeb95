"""Fit a ledger to its bound: the most valuable entries first, by a table of ranks.

Rules:
1. Ranks (RANKS): the task (the oldest goals) and the goals the user stated outright ("my
   goal is", "the objective:") come first whatever their status, then the span's open
   errors and the note naming the messages it did not read; then the values the user gave
   (the first few always, the others while new), the agent's identifiers and file edits;
   then requests, decisions, state and tool data; then resolved and older material.
2. Inside a rank: the user's values, file edits and goals and errors carried from
   `previous` lead (`_section_key`); rank 0 orders the task, stated goals, then errors;
   other ranks order values by shape (identifiers, dates and times, amounts and words,
   bare numbers); then newest first, but the user's first values oldest first.
3. Selection is greedy on upper-bound costs and stops early once the room left cannot
   hold another line, so a pool of thousands of entries costs little; an entry whose new
   title or label alone does not fit is passed over without measuring its text. A value already
   quoted in a chosen line (a goal, an error) is not listed again. The whole pool is
   rendered and measured only when it may fit (`_LIKELY_CHARS_PER_TOKEN`, or every entry
   fitted the selection).
4. The result is measured again with `count`; if it is still over the bound (the cost
   estimate was not an upper bound for a custom counter), entries are dropped from the end.
5. What the card carries (`covered`, `_ledger_carried`) is left out as if never extracted,
   but tested lazily: goals and the user's values first (their ranks depend on one
   another), any other entry only when the selection reaches it. A pool of thousands
   then costs a test per entry considered, not per entry found.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from operator import attrgetter
from typing import Final

from ._ledger_reading import UNREAD
from ._ledger_sentences import STATED
from ._ledger_text import (
    EDIT_ACTIONS,
    GROUPED,
    LAST_ACTION,
    ROLES_PER_LINE,
    TITLES,
    VALUES,
    Entry,
    Section,
    is_setting,
    quote,
    ref_suffix,
    render,
    text_line,
)

RANKS: Final[dict[str, tuple[int, int]]] = {
    # kind of entry: (rank when from the span, rank when from `previous`); lower is kept first
    "goals task": (0, 0),
    "goals stated": (0, 0),
    "errors open": (0, 1),
    "notes unread": (0, 2),
    "user task": (1, 1),
    "user": (1, 2),
    "identifiers": (1, 2),
    "file edit": (1, 1),
    "goals open": (2, 2),
    "last action": (2, 3),
    "state": (2, 3),
    "decisions": (2, 2),
    "notes": (2, 2),
    "seen": (2, 3),
    "goals older": (3, 3),
    "goals closed": (3, 3),
    "command": (3, 4),
    "file view": (3, 4),
    "errors closed": (3, 4),
}

_TASK_GOALS: Final = 2
"""The oldest goal, and the next one when the same message stated it, state the task."""
_TASK_VALUES: Final = 8
"""The oldest values the user gave keep their rank, oldest first; newer ones are newest
first and, once carried from `previous`, rank with other older details."""
_STATED_GOALS: Final = 4
"""The newest goals stated outright keep their place; older ones count as requests."""
_LATEST_OPEN_GOALS: Final = 4
"""Of the other open goals, the newest keep their rank; the rest are `goals older`."""
_FIRST: Final[frozenset[Section]] = frozenset({"goals", "errors", "files"})
"""Sections whose entries carried from `previous` lead their rank (see `_section_key`)."""


def goal_kinds(entries: list[Entry]) -> dict[int, str]:
    """The kind of each goal entry (by index): task, stated, open, older or closed."""
    goals = sorted((i for i, e in enumerate(entries) if e.section == "goals"), key=_seq(entries))
    kinds: dict[int, str] = {}
    first = entries[goals[0]].refs[:1] if goals else ()
    for i in goals[:_TASK_GOALS]:
        if i == goals[0] or entries[i].refs[:1] == first:
            kinds[i] = "goals task"
    rest = [i for i in goals if i not in kinds]
    stated = [i for i in rest if STATED.search(entries[i].text) is not None]
    for i in stated[-_STATED_GOALS:]:
        kinds[i] = "goals stated"
    open_goals = [i for i in rest if i not in kinds and entries[i].status == "open"]
    for i in open_goals:
        kinds[i] = "goals older"
    for i in open_goals[-_LATEST_OPEN_GOALS:]:
        kinds[i] = "goals open"
    for i in rest:
        kinds.setdefault(i, "goals closed")
    return kinds


def _seq(entries: list[Entry]) -> Callable[[int], int]:
    return lambda i: entries[i].seq


def kind(entry: Entry) -> str:
    """The RANKS row of an entry that is not a goal."""
    match entry.section:
        case "errors":
            return "errors open" if entry.status == "open" else "errors closed"
        case "files":
            edit = entry.text in EDIT_ACTIONS or entry.text.startswith(("def ", "class "))
            edit = edit or _EDITING_TOOL.search(entry.text) is not None
            return "file edit" if edit else "file view"
        case "identifiers" if entry.group == "command":
            return "command"
        case "state" if entry.text.startswith(LAST_ACTION):
            return "last action"
        case "notes" if entry.text.startswith(UNREAD):
            return "notes unread"
        case _:
            return entry.section


def priorities(entries: list[Entry]) -> list[tuple[int, int, int, int]]:
    """Sort keys for the bound: (rank, section, order, age); lower is kept first (rule 2)."""
    kinds = goal_kinds(entries) | _task_values(entries)
    keys: list[tuple[int, int, int, int]] = []
    for index, entry in enumerate(entries):
        row = kinds.get(index)
        if entry.section in VALUES:  # most entries: one call, no rank 0 (`_value_key`)
            keys.append(_value_key(entry, row))
            continue
        row = row or kind(entry)
        new, old = RANKS[row]
        rank = new if entry.new else old
        order = _RANK0_ORDER.get(row, 9) if rank == 0 else weight(entry)
        keys.append((rank, _section_key(entry, rank), order, -entry.seq))
    return keys


def _value_key(entry: Entry, row: str | None) -> tuple[int, int, int, int]:
    """`priorities`' key of a value: its row never ranks 0, the user's values lead their
    rank (`_section_key`), alike (`weight`), the task's oldest first."""
    section = entry.section
    if section == "user":
        rank = RANKS[row or "user"][0 if entry.new else 1]
        return (rank, 0, 0, entry.seq if row == "user task" else -entry.seq)
    row = "command" if section == "identifiers" and entry.group == "command" else section
    return (RANKS[row][0 if entry.new else 1], 1, _data_weight(entry), -entry.seq)


def _task_values(entries: list[Entry]) -> dict[int, str]:
    """The oldest values the user gave (by index): they state the task (rule 2)."""
    ordered = sorted((i for i, e in enumerate(entries) if e.section == "user"), key=_seq(entries))
    return {i: "user task" for i in ordered[:_TASK_VALUES]}


_RANK0_ORDER: Final = {"goals task": 0, "goals stated": 1, "errors open": 2, "notes unread": 3}
"""Inside rank 0: the task, then the stated goals, then open errors, then the note on the
messages not read (rule 1)."""


def _section_key(entry: Entry, rank: int) -> int:
    """0 for entries that go first within their rank (see _FIRST), else 1."""
    if rank == 0 or entry.section in ("files", "user"):
        return 0
    return 0 if entry.section in _FIRST and not entry.new else 1


_EDITING_TOOL: Final = re.compile(
    r"edit|write|creat|replac|insert|patch|append|modif|delet|remov|renam", re.I
)
"""A tool whose name says it changes the file it names (`edit_file`, `apply_patch`)."""
_NUMERIC: Final = re.compile(r"[$€£]?[\d.,:%]+(?:\s?[A-Za-z]{0,3})?")
_TIME_OR_DATE: Final = re.compile(r"\d{1,4}[-:/]\d{1,2}(?:[-:/]\d{1,4})?\b.*")
_ID_LIKE: Final = re.compile(r"[A-Za-z].*\d|\d.*[A-Za-z]|[_/@.]")
_LETTER: Final = re.compile(r"[A-Za-z]")
_DIGIT: Final = re.compile(r"\d")
"""`_ID_LIKE` in a one-line text: one of `_/@.` (substring tests), or a letter and a digit
anywhere (two plain searches, without trying every letter against every later digit)."""


def weight(entry: Entry) -> int:
    """Order of values inside a rank: identifiers, dates and times, amounts and words, bare
    numbers; the user's values are all alike; other entries come after identifiers."""
    if entry.section not in VALUES:
        return 1
    if entry.section == "user":
        return 0
    return _data_weight(entry)


def _data_weight(entry: Entry) -> int:
    """`weight` of a value the agent or a tool gave."""
    text = entry.text
    first = text[:1]
    digit = first.isdecimal()  # what both patterns below need first, bar `.,:%` (`\d`)
    if digit and text.isdecimal():
        return 3  # bare digits: `_NUMERIC` whole, and no `-:/` for `_TIME_OR_DATE`
    if digit and _TIME_OR_DATE.match(text) is not None:
        return 1
    if first in ("$", "€", "£"):
        return 2
    if (digit or first in ".,:%") and _NUMERIC.fullmatch(text) is not None:
        return 3
    return 2 if is_setting(entry.group, text) or not _id_like(text) else 0


def _id_like(text: str) -> bool:
    """Letters and digits, or one of `_/@.`: what identifiers have."""
    if "\n" in text:
        return _ID_LIKE.search(text) is not None
    if "_" in text or "/" in text or "@" in text or "." in text:
        return True
    return _LETTER.search(text) is not None and _DIGIT.search(text) is not None


def bound(
    entries: list[Entry],
    max_tokens: int,
    count: Callable[[str], int],
    covered: Callable[[Entry], bool] | None = None,
) -> str:
    """The rendered ledger of the most valuable entries whose text fits `max_tokens`;
    the entries `covered` says are left out count as absent (rule 5)."""
    if covered is not None:
        entries = [e for e in entries if e.section not in _KEYED or not covered(e)]
    gone = _Gone(covered)
    likely = sum(map(len, map(_TEXT, entries))) <= _LIKELY_CHARS_PER_TOKEN * max_tokens
    whole = _whole(entries, gone, max_tokens, count) if likely else None
    if whole is not None:
        return whole
    keys = priorities(entries)
    order = sorted(range(len(entries)), key=keys.__getitem__)  # stable: ties by index
    ranked = [entries[i] for i in order]
    chosen, complete = _greedy(ranked, max_tokens, count, gone)
    if complete and not likely and _fits_whole(ranked, gone, _CHARS_PER_TOKEN * max_tokens):
        whole = _whole(entries, gone, max_tokens, count)
        if whole is not None:
            return whole
    text = render(chosen)
    fits = count(text) <= max_tokens
    while chosen and not fits:
        chosen = chosen[: len(chosen) - max(1, len(chosen) // 8)]
        text = render(chosen)
        fits = count(text) <= max_tokens
    return text if fits else ""


_TEXT: Final = attrgetter("text")
_KEYED: Final[frozenset[Section]] = frozenset({"goals", "user"})
"""Sections whose entries' priorities depend on one another (`goal_kinds`, `_task_values`):
the entries left out of them are taken out before ranking; any other entry's priority is
its own, so it is tested only when the selection reaches it (rule 5)."""


class _Gone:
    """Whether an entry is left out (`covered`), each entry tested at most once."""

    __slots__ = ("_covered", "_seen")

    def __init__(self, covered: Callable[[Entry], bool] | None) -> None:
        self._covered = covered
        self._seen: dict[int, bool] = {}  # by id(): the entries outlive this object

    def __call__(self, entry: Entry) -> bool:
        if self._covered is None:
            return False
        found = self._seen.get(id(entry))
        if found is None:
            found = self._seen[id(entry)] = self._covered(entry)
        return found


def _whole(
    entries: list[Entry], gone: _Gone, max_tokens: int, count: Callable[[str], int]
) -> str | None:
    """The ledger of every entry not gone, if it fits."""
    text = render([e for e in entries if not gone(e)])
    return text if count(text) <= max_tokens else None


def _fits_whole(ranked: list[Entry], gone: _Gone, chars: int) -> bool:
    """Whether the entries not gone hold at most `chars` characters, tested in rank order
    while unsure: the selection then finds the entries it reaches already tested."""
    total = 0
    for entry in ranked:
        if not gone(entry):
            total += len(entry.text)
            if total > chars:
                return False
    return True


_LIKELY_CHARS_PER_TOKEN: Final = 3
"""A pool whose texts hold at most this many characters per token of the bound may fit
whole (a rendered ledger packs about 2.5 per token): it is rendered and measured first. A
larger one is ranked and selected first, and rendered whole only when every entry fitted:
measuring a pool far over the bound is wasted work."""
_CHARS_PER_TOKEN: Final = 8
"""More characters than any tokenizer packs in a token: a pool whose texts are longer
than this many times the bound cannot fit whole, so it is not rendered to check (and, when
longer before leaving anything out, is tested in rank order, see `_fits_whole`)."""
_MIN_COST: Final = 3
"""No entry costs less than this many tokens (`, x` plus a little)."""
_MISSES: Final = 256
"""Stop trying after this many entries in a row did not fit."""
_LONGEST_REFS: Final = ref_suffix(["r" + "f" * 10])
"""The refs of a line whose ref is not known yet, at their longest."""
_TITLE_LINES: Final = {section: f"## {title}\n" for section, title in TITLES.items()}


class _Fill:
    """What the greedy selection has paid for so far: sections, lines, labels."""

    def __init__(self, budget: int, count: Callable[[str], int]) -> None:
        self.budget = budget
        self.count = count
        self.used = 0
        self.titles: set[Section] = set()
        self.labels: set[tuple[Section, str]] = set()
        self.roles: dict[Section, int] = {}
        self.said = ""
        """Text of the chosen text lines: values quoted there need no listing."""

    def take(self, entry: Entry) -> bool:
        """Add `entry` if its cost fits; True when it was added."""
        section = entry.section
        grouped = section in GROUPED
        label = (section, entry.group)
        new_label = grouped and label not in self.labels
        extra = 0 if section in self.titles else self.count(_TITLE_LINES[section])
        if new_label:
            extra += self._label_cost(entry)
        if self.used + extra > self.budget:
            return False  # its own text costs more on top: not measured (counts are >= 0)
        extra += (
            self.count(f", {quote(entry.text)}") if grouped else self.count(text_line(entry) + "\n")
        )
        if self.used + extra > self.budget:
            return False
        self.used += extra
        self.titles.add(section)
        if new_label:
            self.labels.add(label)
            self.roles[section] = self.roles.get(section, 0) + 1
        if not grouped:
            self.said = f"{self.said}\n{entry.text}"
        return True

    def _label_cost(self, entry: Entry) -> int:
        """A new role on a value line (and the line itself every ROLES_PER_LINE roles), or a
        new file line with its ref."""
        if entry.section in VALUES:
            line = self.roles.get(entry.section, 0) % ROLES_PER_LINE == 0
            start = self.count(f"- {_LONGEST_REFS}\n") if line else 0
            return start + self.count(f"; {quote(entry.group)}: ")
        refs = ref_suffix(entry.refs[-1:]) if entry.refs else _LONGEST_REFS
        return self.count(f"- {quote(entry.group)}:{refs}\n")


def _greedy(
    ranked: list[Entry], budget: int, count: Callable[[str], int], gone: _Gone
) -> tuple[list[Entry], bool]:
    """Entries in priority order while their estimated cost fits (costs are upper bounds),
    and whether every entry fitted (so the whole may)."""
    fill = _Fill(budget, count)
    chosen: list[Entry] = []
    misses = 0
    complete = True
    for entry in ranked:
        if fill.budget - fill.used < _MIN_COST or misses >= _MISSES:
            return chosen, False
        if gone(entry):
            continue
        if entry.section in VALUES and entry.text in fill.said:
            continue
        if fill.take(entry):
            chosen.append(entry)
            misses = 0
        else:
            misses += 1
            complete = False
    return chosen, complete
