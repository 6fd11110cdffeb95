"""The encoder made once for extras and payloads writes what `json.dumps` writes."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._serialize_json import JSON_OPTIONS, _encode

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(codec=None, exclude_categories=())),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4).map(MappingProxyType)
    ),
    max_leaves=20,
)


@given(_json)
def test_values_are_written_as_json_dumps_writes_them(value: object) -> None:
    assert _encode(value) == json.dumps(value, **JSON_OPTIONS)


def test_a_cycle_is_reported_as_json_dumps_reports_it() -> None:
    loop: dict[str, object] = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="Circular reference detected"):
        _encode({"extras": [loop]})
    assert _encode({"after": [1, 2.5, None]}) == '{"after":[1,2.5,null]}'  # still usable


def test_what_json_refuses_it_refuses() -> None:
    with pytest.raises(TypeError, match="set is not JSON-serializable"):
        _encode({"a": {1}})
