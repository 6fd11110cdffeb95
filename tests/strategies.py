"""Shared Hypothesis strategies for the neutral model."""

from __future__ import annotations

from hypothesis import strategies as st

from contextfold import (
    Image,
    Message,
    Opaque,
    Part,
    Reasoning,
    Text,
    ToolCall,
    ToolResult,
)

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
