"""`json_leaves` reads what the plain recursive walk reads (`_json_leaves` rule 1), in the same
order, within the same leaf and depth limits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._statements import _json_leaves
from contextfold._statements._json_leaves import json_leaves, scalar_text

from ..strategies import json_data


def plain_leaves(data: object) -> list[tuple[str, object]]:
    """The plain form: one call per node, the whole path carried."""
    out: list[tuple[str, object]] = []
    _plain_walk(data, (), out)
    return out


def _plain_walk(
    data: object, path: tuple[str, ...], out: list[tuple[str, object]], depth: int = 0
) -> None:
    if len(out) >= _json_leaves._MAX_LEAVES or depth > _json_leaves._MAX_DEPTH:
        return
    if isinstance(data, dict):
        for key, child in data.items():
            _plain_key(str(key), child, path, out, depth)
    elif isinstance(data, list):
        for child in data:
            _plain_walk(child, _json_leaves._many(path), out, depth + 1)
    elif data is not None and path:
        out.append((_json_leaves._role(path), data))


def _plain_key(
    key: str, child: object, path: tuple[str, ...], out: list[tuple[str, object]], depth: int
) -> None:
    if _json_leaves._FIELD.fullmatch(key) is not None:
        _plain_walk(child, (*path, key), out, depth + 1)
    elif isinstance(child, dict | list):
        _plain_walk(child, _json_leaves._many(path), out, depth + 1)
    elif child is not None:
        many = _json_leaves._many(path or ("entries",))
        out.append((_json_leaves._role(many), f"{key}={scalar_text(child)}"))


_KEYS = ["id", "user_id", "flights", "date", "X1", "SFO", "a", "b_c", "9", ""]
_SCALARS = st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats() | st.text(max_size=4)
_DATA = json_data(_KEYS, _SCALARS, width=40, max_leaves=900)


@settings(max_examples=400)
@given(_DATA)
def test_json_leaves_is_the_plain_walk(data: object) -> None:
    assert repr(json_leaves(data)) == repr(plain_leaves(data))


def test_many_leaves_and_data_keys_past_the_limit() -> None:
    data = {"rows": [{"id": i, "x": i} for i in range(300)], "ids": {f"K{i}": i for i in range(9)}}
    assert json_leaves(data) == plain_leaves(data)
    assert len(json_leaves(data)) == _json_leaves._MAX_LEAVES
    late = [{"n": list(range(_json_leaves._MAX_LEAVES))}, {"SFO": 1, "JFK": [2], "LAX": 3}]
    assert json_leaves(late) == plain_leaves(late)


def test_depth_limits_are_the_plain_walks() -> None:
    for depth in (30, 31, 32, 33, 34):
        nested: object = {"SFO": 1, "k": "leaf", "l": [1, {"CODE": 2}]}
        for _ in range(depth):
            nested = {"k": nested, "ABC": [nested]} if depth < 32 else {"k": nested}
        assert json_leaves(nested) == plain_leaves(nested)
        listed: object = ["leaf", {"SFO": 1}]
        for _ in range(depth):
            listed = [listed]
        assert json_leaves({"k": listed}) == plain_leaves({"k": listed})
