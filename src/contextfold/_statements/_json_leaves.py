"""JSON read leaf by leaf: each scalar of an object or array, named after its keys.

Rules:
1. A walk reads each leaf where it lies, with no call per leaf: a path keeps only the
   last two keys (all a role reads), and what a key means under a path is worked out once
   (kept across walks); tests/statements/test_json_leaves.py checks it against the plain
   recursion.
2. Everything is a pure function of its input: no clock, no randomness, no set order.
"""

from __future__ import annotations

import json
import re
from typing import Final

from .._content_cache import on_clear

_MAX_LEAVES: Final = 400
_MAX_DEPTH: Final = 32
_FIELD: Final = re.compile(r"[a-z_][a-z_]*|[a-z]+(?:[A-Z][a-z]*)+")


def load_json(text: str) -> object | None:
    """`text` parsed as a JSON object or array, or None when it is not one."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        loaded: object = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return loaded


_CONTAINERS: Final = (dict, list)
"""What a walk goes into (a tuple: `dict | list` would be built at each test)."""
_Key = tuple[tuple[str, ...] | None, tuple[str, ...], str]
"""What a key means under a path: (the path of a field's value, or None for a data key;
the path of a container under it; the role of a scalar under it)."""
_MEANINGS: Final[dict[tuple[str, ...], dict[str, _Key]]] = {}
"""What each key means under each path, across walks (outputs share their keys); at most
_MAX_MEANINGS paths and as many keys under each, forgotten all at once when over."""
_MAX_MEANINGS: Final = 1 << 12
on_clear(_MEANINGS.clear)


def json_leaves(data: object) -> list[tuple[str, object]]:
    """(role, scalar) for the scalar leaves of `data`, roles named after their keys.

    A role is the leaf key qualified by its parent key (`prices.economy`, `user_id`); keys
    that hold many items (lists, and dicts keyed by ids) are marked `[]`, so
    `flights[].date` reads as one of several. A key that is data rather than a field name
    (`credit_card_4421486`, `SFO`) is skipped in roles; a scalar under it reads `key=value`.
    At most `_MAX_LEAVES` leaves (a data key's scalars past them too, if in a dict begun
    before), `_MAX_DEPTH` containers deep.
    """
    out: list[tuple[str, object]] = []
    if isinstance(data, _CONTAINERS):
        if len(_MEANINGS) >= _MAX_MEANINGS:
            _MEANINGS.clear()
        _walk(data, (), out, 0, _MEANINGS)
    return out


def _walk(
    data: dict[object, object] | list[object],
    path: tuple[str, ...],
    out: list[tuple[str, object]],
    depth: int,
    known: dict[tuple[str, ...], dict[str, _Key]],
) -> None:
    """The leaves of a container at `depth`, each read where it lies (rule 6)."""
    if isinstance(data, dict):
        _walk_dict(data, path, out, depth, known)
        return
    many = _many(path)
    role = _role(many) if many else ""
    deeper = depth < _MAX_DEPTH
    for child in data:
        if not deeper or len(out) >= _MAX_LEAVES:
            return
        if isinstance(child, _CONTAINERS):
            _walk(child, many, out, depth + 1, known)
        elif child is not None and role:
            out.append((role, child))


def _walk_dict(
    data: dict[object, object],
    path: tuple[str, ...],
    out: list[tuple[str, object]],
    depth: int,
    known: dict[tuple[str, ...], dict[str, _Key]],
) -> None:
    """A path keeps its last two keys (all a role reads); what a key means under a path is
    worked out once (`known`)."""
    keys = known.get(path)
    if keys is None or len(keys) >= _MAX_MEANINGS:
        keys = known[path] = {}
    deeper = depth < _MAX_DEPTH
    for key, child in data.items():
        name = key if type(key) is str else str(key)
        meaning = keys.get(name)
        if meaning is None:
            meaning = keys[name] = _meaning(name, path)
        if isinstance(child, _CONTAINERS):
            if deeper and len(out) < _MAX_LEAVES:
                _walk(child, meaning[1], out, depth + 1, known)
        elif child is None:
            continue
        elif meaning[0] is None:
            out.append((meaning[2], f"{name}={scalar_text(child)}"))
        elif deeper and len(out) < _MAX_LEAVES:
            out.append((meaning[2], child))


def _meaning(key: str, path: tuple[str, ...]) -> _Key:
    """A field name extends the path; a key that is data (an id, a code) is kept as data."""
    if _FIELD.fullmatch(key) is not None:
        field = (*path[-1:], key)
        return field, field, _role(field)
    return None, _many(path), _role(_many(path or ("entries",)))


def _many(path: tuple[str, ...]) -> tuple[str, ...]:
    """`path` with its last key marked as holding many items."""
    if not path or path[-1].endswith("[]"):
        return path
    return (*path[:-1], path[-1] + "[]")


def _role(path: tuple[str, ...]) -> str:
    """The leaf key, qualified by its parent key unless the parent is a list and the leaf
    names itself (`flight_number`, not `flights[].flight_number`)."""
    if len(path) > 1 and path[-2].endswith("[]") and "_" in path[-1].strip("_"):
        return path[-1]
    return ".".join(path[-2:])


def scalar_text(value: object) -> str:
    """A JSON scalar as the agent would write it."""
    if type(value) is str:
        return value
    if type(value) is int:
        return int.__repr__(value)  # what `json.dumps` writes, without its encoder
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value)
