"""Every public entry point raises only ContextFoldError subclasses on any JSON-shaped input.

Hypothesis over arbitrary JSON and over message-shaped JSON, with the hazards that broke
entry points before: nesting 600 deep, 5,000-digit integers, lone surrogates (issue 12,
fault 5). Each entry point gets the same payloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf

DEEP: object = "bottom"
for _ in range(600):
    DEEP = [DEEP]
HUGE = 10**5000
SURROGATE = "bad \ud800 text"

HAZARDS: dict[str, object] = {"<deep>": DEEP, "<huge>": HUGE, "<-huge>": -HUGE}
"""Stand-ins Hypothesis can print; `real` swaps the hazards in after drawing."""
hazards = st.sampled_from([*HAZARDS, SURROGATE, "\udfff", float("nan"), {"k": "<deep>"}])
keys = st.sampled_from(
    ["role", "content", "type", "text", "tool_calls", "tool_call_id", "id", "name", "input"]
) | st.text(max_size=6)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["user", "assistant", "system", "tool", "text", "tool_use", "message"])
    | hazards
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)
roles = st.sampled_from(["user", "assistant", "system", "tool", "developer", "function", 7])
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "image", "input_text", 3])},
    optional={
        "text": json_values,
        "id": json_values,
        "tool_use_id": json_values,
        "name": json_values,
        "input": json_values,
        "content": json_values,
        "source": json_values,
        "extra": json_values,
    },
)
messages = st.fixed_dictionaries(
    {"role": roles},
    optional={
        "content": st.text(max_size=20) | st.lists(blocks, max_size=3) | json_values,
        "tool_calls": st.lists(json_values, max_size=2),
        "tool_call_id": json_values,
        "name": json_values,
        "type": st.sampled_from(["message", "function_call", "function_call_output", "x"]),
    },
)
message_lists = st.lists(messages, max_size=6)
bodies = st.fixed_dictionaries(
    {"messages": message_lists},
    optional={"system": json_values, "tools": json_values, "model": json_values},
) | st.fixed_dictionaries({"input": message_lists | json_values})
payloads = json_values | message_lists | bodies

ROBUST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _manager(payload: object) -> None:
    manager = cf.ContextManager(300, format="openai-chat")
    items = payload if isinstance(payload, list) else [payload]
    for item in items:
        manager.add(item)
    manager.view()


ENTRY_POINTS: dict[str, Callable[[object], object]] = {
    "compact": lambda p: cf.compact(p, 60),
    "compact fits": lambda p: cf.compact(p, 1_000_000),
    "acompact": lambda p: asyncio.run(cf.acompact(p, 60)),
    "count_tokens": lambda p: cf.count_tokens(p, "gpt-4o"),
    "count_tokens anthropic": lambda p: cf.count_tokens(p, "claude-sonnet-4-5"),
    "validate": cf.validate,
    "validate anthropic": lambda p: cf.validate(p, "anthropic"),
    "validate responses": lambda p: cf.validate(p, "openai-responses"),
    "parse": cf.parse,
    "detect": cf.detect,
    "convert anthropic": lambda p: cf.convert(p, "anthropic"),
    "convert responses": lambda p: cf.convert(p, "openai-responses"),
    "convert chat": lambda p: cf.convert(p, "openai-chat", format="anthropic"),
    "manager": _manager,
    "restore": cf.ContextManager.restore,
    "answer_recall": lambda p: cf.answer_recall(cf.Archive(), _dumps(p)),
}


def _dumps(value: object) -> str:
    try:
        return json.dumps(value)
    except (ValueError, RecursionError):
        return "{"


def real(value: object) -> object:
    """`value` with the hazards' stand-ins replaced by the hazards themselves."""
    if isinstance(value, str):
        return HAZARDS.get(value, value)
    if isinstance(value, list):
        return [real(v) for v in value]
    if isinstance(value, dict):
        return {k: real(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
@ROBUST
@given(payload=payloads)
def test_entry_points_raise_only_contextfold_errors(name: str, payload: object) -> None:
    with contextlib.suppress(cf.ContextFoldError):
        ENTRY_POINTS[name](real(payload))


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
@pytest.mark.parametrize(
    "hazard", [DEEP, HUGE, SURROGATE], ids=["nested 600 deep", "5000 digits", "lone surrogate"]
)
def test_each_hazard_inside_a_content_part(name: str, hazard: object) -> None:
    """Fault 5 as reported: the hazard inside a content part of a valid-looking request."""
    payload = [{"role": "user", "content": [{"type": "text", "text": "hi", "meta": hazard}]}]
    if hazard is SURROGATE or name == "answer_recall":
        with contextlib.suppress(cf.ContextFoldError):
            ENTRY_POINTS[name](payload)
    else:
        with pytest.raises(cf.InvalidConversation):
            ENTRY_POINTS[name](payload)
