"""The values in a tool call's arguments and in a tool's output, as facts.

Rules:
1. Arguments: a path is a `path`; a shell command is kept whole (`command`) and read for
   values; code and notes (`new_str`, `content`, ...) are read for values only; every
   other argument is read as data, named after its key.
2. Output: JSON is read leaf by leaf (ids and codes first, at most `_PER_DATA` leaves);
   text is read at its head and tail, the most telling values first, at most
   `_PER_RESULT` of them.
3. What is read from a text is cached by content (`_content_cache`): the facts, never the
   parsed arguments. A call's arguments are parsed at most twice per read (its action,
   then its values when the facts cache misses): json.loads is quick, and a cache of the
   parsed objects held a second copy of every argument value (about 40 KB of a 150 KB
   conversation's 396 KB peak).
"""

from __future__ import annotations

import re
from typing import Final

from .._content_cache import ContentCache, Memo
from .._messages import ToolCall
from .._statements._facts import (
    FACTS_CACHE,
    Fact,
    clip,
    text_facts,
    word_order,
)
from .._statements._json_leaves import json_leaves, load_json, scalar_text

PATH_KEYS: Final = frozenset({"path", "file", "file_path", "filepath", "filename", "target_file"})
_PROSE_KEYS: Final = frozenset(
    {"old_str", "new_str", "file_text", "content", "thought", "summary", "text", "code"}
)
_PER_RESULT: Final = 24
_PER_DATA: Final = 150
_MAX_VALUE: Final = 160


def _arguments(raw: str) -> dict[str, object]:
    data = load_json(raw)
    return data if isinstance(data, dict) else {}


def call_arguments(call: ToolCall) -> dict[str, object]:
    """The call's JSON arguments as a dict ({} when they are not a JSON object), parsed anew
    (rule 3)."""
    return _arguments(call.arguments)


def data_facts(call: ToolCall) -> tuple[Fact, ...]:
    """The values in a tool call's arguments (rule 1; shared, read-only)."""
    return _DATA_FACTS(call.arguments)


def _read_data_facts(arguments: str) -> tuple[Fact, ...]:
    out: list[Fact] = []
    for key, value in _arguments(arguments).items():
        if key in PATH_KEYS and isinstance(value, str):
            out.append(Fact("path", value))
        elif key in _PROSE_KEYS and isinstance(value, str):
            out.extend(text_facts(value, prose=False))
        elif key == "command" and isinstance(value, str):
            if " " in value.strip():
                out.append(Fact("command", clip(value, _MAX_VALUE), True))
                out.extend(text_facts(value))
        else:
            out.extend(_leaf_facts({key: value}))
    return tuple(out)


_DATA_FACTS: Final = ContentCache(_read_data_facts, FACTS_CACHE)
"""`data_facts` per arguments text, across calls: a re-sent history is read once."""


def tool_facts(text: str) -> tuple[Fact, ...]:
    """The values in a tool's output (rule 2; shared, read-only)."""
    return _TOOL_FACTS(text)


def _read_tool_facts(text: str) -> tuple[Fact, ...]:
    data = load_json(text)
    if data is not None:
        return _ranked_leaves(data)
    return tuple(most_telling(text_facts(text, prose=False))[:_PER_RESULT])


_TOOL_FACTS: Final = ContentCache(_read_tool_facts, FACTS_CACHE)
"""`tool_facts` per output text, across calls: a re-sent history is read once."""


def _ranked_leaves(data: object) -> tuple[Fact, ...]:
    """`sorted(_leaf_facts(data), key=data_rank)[:_PER_DATA]`, bucketed by rank (the sort is
    stable), each distinct leaf ranked once (`_ranked_leaf`)."""
    buckets: tuple[list[Fact], ...] = ([], [], [])
    for role, value in json_leaves(data):
        ranked = _ranked_leaf((role, value if type(value) is str else scalar_text(value)))
        if ranked is not None:
            buckets[ranked[0]].append(ranked[1])
    return tuple([*buckets[0], *buckets[1], *buckets[2]][:_PER_DATA])


def _read_ranked_leaf(leaf: tuple[str, str]) -> tuple[int, Fact] | None:
    """(`data_rank`, Fact) of a (role, text) leaf, or None when the text is no value (too
    long, several lines, blank)."""
    role, text = leaf
    if len(text) > _MAX_VALUE or "\n" in text or not text.strip():
        return None
    return (0 if _id_key(role) else _value_rank(text)), Fact(role, text, True)


_ranked_leaf: Final = Memo(_read_ranked_leaf, FACTS_CACHE).__getitem__
"""A leaf's rank and Fact, shared (read-only): outputs repeat their leaves (a re-read
reservation, the same cabin and status), and a text is keyed with its role, never a
number or a bool that equals it (`True == 1`)."""


def _leaf_facts(data: object) -> list[Fact]:
    return [
        Fact(role, text, True)
        for role, value in json_leaves(data)
        if (text := scalar_text(value)).strip() and len(text) <= _MAX_VALUE and "\n" not in text
    ]


_SHAPE_ORDER: Final = word_order(
    "error test path file url email slug code hash date money symbol class identifier "
    "version quantity time number"
)
_ID_KEY: Final = re.compile(r"(?:^|[._\[])(?:id|ids|number|code|email|reservations?)\]?$|_id\]?$")


def _read_id_key(role: str) -> bool:
    return _ID_KEY.search(role) is not None


_id_key: Final = Memo(_read_id_key, 1 << 12).__getitem__
"""Whether a role names an id or code (cached: roles recur across outputs)."""


def most_telling(facts: list[Fact]) -> list[Fact]:
    """Distinct facts, named ones and the most telling shapes first, then by position."""
    unique = list({f.value: f for f in reversed(facts)}.values())[::-1]
    return sorted(unique, key=lambda f: 0 if f.named else 1 + _SHAPE_ORDER.get(f.role, 20))


def data_rank(fact: Fact) -> int:
    """Order of data leaves under a cap: ids and codes, then words, then bare numbers."""
    return 0 if _id_key(fact.role) else _value_rank(fact.value)


def _value_rank(value: str) -> int:
    """`data_rank` of a leaf whose key is not an id's: letters and digits, other words, bare
    numbers."""
    if value.isalpha():
        return 1  # the common word: no digit
    if any(map(str.isalpha, value)) and any(map(str.isdigit, value)):
        return 0
    return 1 if not value.replace(".", "").isdigit() else 2
