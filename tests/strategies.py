"""Shared Hypothesis strategies for the neutral model."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import strategies as st

from contextfold import (
    Card,
    Image,
    Marker,
    Message,
    Opaque,
    Part,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
)
from contextfold._messages import DETAILS, EMPTY, ROLES

texts = st.text(max_size=200)
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=24)
json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
extras = st.dictionaries(st.text(min_size=1, max_size=10), json_scalars, max_size=3)

text_parts = st.builds(Text, texts, extras=extras)
images = st.builds(
    Image,
    st.sampled_from(["https://example.com/a.png", "data:image/png;base64,iVBORw0KGgo="]),
    detail=st.sampled_from([None, "auto", "low", "high", "original"]),
)
tool_calls = st.builds(ToolCall, ids, ids, st.just("{}") | texts)
reasonings = st.builds(Reasoning, texts, signature=st.none() | ids, encrypted=st.none() | ids)
opaques = st.builds(Opaque, st.dictionaries(st.text(max_size=8), json_scalars, max_size=3))
leaf_parts: st.SearchStrategy[Part] = text_parts | images | tool_calls | reasonings | opaques
tool_results = st.builds(
    ToolResult,
    ids,
    st.lists(text_parts | images, max_size=3).map(tuple),
    is_error=st.booleans(),
)
parts: st.SearchStrategy[Part] = leaf_parts | tool_results

messages = st.builds(
    Message,
    st.sampled_from(["system", "developer", "user", "assistant", "tool"]),
    st.lists(parts, max_size=4).map(tuple),
    name=st.none() | ids,
    extras=extras,
)


# --- the model at its widest: what serializing and archiving must take -------------------------

_awkward = st.sampled_from(
    ["\ud800", "\udfff", "\x00", "\x1f", "\x7f", '"', "\\", "\n", "\t", "é", "\u2028", "😀"]
)
wide_texts = st.text(st.characters(exclude_categories=()) | _awkward, max_size=40)
"""Any text: lone surrogates, control characters, quotes, non-ASCII and astral characters."""
wide_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | wide_texts,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(wide_texts, inner, max_size=3)
        | st.dictionaries(wide_texts, inner, max_size=3).map(MappingProxyType)
    ),
    max_leaves=8,
)
"""JSON values as callers hold them: lists, tuples, dicts and read-only mappings, nested."""
wide_extras = st.just(EMPTY) | st.dictionaries(st.text(max_size=10), wide_json, max_size=3)
_wide = {"extras": wide_extras}
wide_leaf_parts: st.SearchStrategy[Part] = st.one_of(
    st.builds(Text, wide_texts, **_wide),
    st.builds(Image, wide_texts, detail=st.sampled_from([None, *DETAILS]), **_wide),
    st.builds(ToolCall, wide_texts, wide_texts, wide_texts, **_wide),
    st.builds(
        Reasoning,
        wide_texts,
        signature=st.none() | wide_texts,
        encrypted=st.none() | wide_texts,
        **_wide,
    ),
    st.builds(Opaque, st.dictionaries(wide_texts, wide_json, max_size=3), **_wide),
    st.builds(Marker, wide_texts, wide_texts, **_wide),
    st.builds(Summary, wide_texts, **_wide),
    st.builds(Card, wide_texts, **_wide),
)
wide_parts: st.SearchStrategy[Part] = wide_leaf_parts | st.builds(
    ToolResult,
    wide_texts,
    st.lists(wide_leaf_parts, max_size=3).map(tuple),
    is_error=st.booleans(),
    **_wide,
)
"""Every part kind, with any field values and extras."""
wide_messages = st.builds(
    Message,
    st.sampled_from(ROLES),
    st.lists(wide_parts, max_size=4).map(tuple),
    name=st.none() | wide_texts,
    extras=wide_extras,
)


def glued(
    pieces: list[str], glue: tuple[str, ...], *, piece_size: int, max_size: int
) -> st.SearchStrategy[str]:
    """Texts made of `pieces` (or short random text) each followed by one of `glue`: the
    words and separators a fast pattern must treat as its plain form does."""
    parts = st.lists(st.sampled_from(pieces) | st.text(max_size=piece_size), max_size=max_size)
    return parts.flatmap(
        lambda ps: st.lists(st.sampled_from(glue), min_size=len(ps), max_size=len(ps)).map(
            lambda gs: "".join(p + g for p, g in zip(ps, gs, strict=True))
        )
    )


def json_data(
    keys: list[str], leaves: st.SearchStrategy[object], *, width: int, max_leaves: int
) -> st.SearchStrategy[object]:
    """JSON values: `leaves` nested in lists (up to `width` items) and objects keyed by `keys`."""
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=width)
            | st.dictionaries(st.sampled_from(keys), inner, max_size=max(1, width // 5))
        ),
        max_leaves=max_leaves,
    )
