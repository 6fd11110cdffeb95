"""Hypothesis strategies for OpenAI Responses payloads: valid inputs and targeted breakage.

Valid inputs are built turn by turn: a user message, then model steps, each an optional
reasoning item directly followed by what it produced (parallel function calls with all
their outputs, a custom tool call and its output, an assistant message, or a built-in /
unknown model item). Call ids are unique within a payload.
"""

from __future__ import annotations

import itertools
import json
import string
from typing import Any

from hypothesis import strategies as st

Item = dict[str, Any]

ARTIFACT_TEXTS = (
    "[cf:r0123456789 tool output masked, 812 tokens]",
    "[cf:summary]\nGoal: fix the build. Decisions: pin numpy.",
    "[cf:rules]\n- never push to main",
)
texts = st.text(max_size=40) | st.sampled_from(ARTIFACT_TEXTS)
ids = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=10)
names = st.sampled_from(["get_weather", "search", "apply_patch", "run"])
_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
json_values = (
    _scalars
    | st.lists(_scalars, max_size=2)
    | st.dictionaries(st.text(max_size=4), _scalars, max_size=2)
)
arguments = st.dictionaries(st.sampled_from(["city", "q", "n"]), json_values, max_size=2).map(
    json.dumps
)
# Unknown extra fields, spelled so that no item or part maps them.
EXTRA_KEYS = ("x_trace", "metadata", "zz_future")
extras = {key: json_values for key in EXTRA_KEYS[:2]}


def _prefixed(prefix: str) -> st.SearchStrategy[str]:
    return ids.map(lambda suffix: prefix + suffix)


# --- content parts -------------------------------------------------------------------------

input_text = st.fixed_dictionaries(
    {"type": st.just("input_text"), "text": texts}, optional={"zz_future": json_values}
)
urls = st.sampled_from(["https://example.com/cat.png", "data:image/png;base64,iVBORw0KGgo="])
input_image = st.fixed_dictionaries(
    {"type": st.just("input_image"), "image_url": urls},
    optional={"detail": st.sampled_from(["auto", "low", "high", "original"])},
)
image_by_file = st.fixed_dictionaries(
    {"type": st.just("input_image"), "file_id": _prefixed("file-"), "detail": st.just("auto")}
)
input_file = st.fixed_dictionaries(
    {"type": st.just("input_file"), "file_id": _prefixed("file-")},
    optional={"filename": st.just("report.pdf")},
)
unknown_part = st.fixed_dictionaries({"type": st.just("future_part"), "data": json_values})
input_parts = st.lists(
    input_text | input_image | image_by_file | input_file | unknown_part, max_size=3
)
url_citation = st.fixed_dictionaries(
    {
        "type": st.just("url_citation"),
        "url": st.just("https://example.com"),
        "title": st.just("Example"),
        "start_index": st.just(0),
        "end_index": st.just(3),
    }
)
output_text: st.SearchStrategy[Item] = st.fixed_dictionaries(
    {
        "type": st.just("output_text"),
        "text": texts,
        "annotations": st.lists(url_citation, max_size=1),
    },
    optional={"logprobs": st.just([])},
)
refusal = st.fixed_dictionaries({"type": st.just("refusal"), "refusal": texts})

# --- items ---------------------------------------------------------------------------------

user_messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "system", "developer"]), "content": texts | input_parts},
    optional={"type": st.just("message"), **extras},
)
input_messages = st.fixed_dictionaries(
    {
        "type": st.just("message"),
        "role": st.sampled_from(["user", "developer"]),
        "content": input_parts,
    },
    optional={"id": _prefixed("msg_"), "status": st.just("completed")},
)
assistant_messages = st.fixed_dictionaries(
    {
        "type": st.just("message"),
        "id": _prefixed("msg_"),
        "role": st.just("assistant"),
        "status": st.just("completed"),
        "content": st.lists(output_text | refusal, min_size=1, max_size=2),
    },
    optional={"phase": st.sampled_from(["commentary", "final_answer"])},
) | st.fixed_dictionaries({"role": st.just("assistant"), "content": texts})
summary_text = st.fixed_dictionaries({"type": st.just("summary_text"), "text": texts})
reasonings = st.fixed_dictionaries(
    {
        "type": st.just("reasoning"),
        "id": _prefixed("rs_"),
        "summary": st.lists(summary_text, max_size=2),
    },
    optional={
        "encrypted_content": st.text(alphabet=string.ascii_letters + "+/=", max_size=30),
        "status": st.just("completed"),
        "content": st.lists(
            st.fixed_dictionaries({"type": st.just("reasoning_text"), "text": texts}),
            max_size=1,
        ),
        **extras,
    },
)
model_items = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("web_search_call"),
            "id": _prefixed("ws_"),
            "status": st.just("completed"),
            "action": st.fixed_dictionaries({"type": st.just("search"), "query": texts}),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("image_generation_call"),
            "id": _prefixed("ig_"),
            "status": st.just("completed"),
            "result": st.none() | st.just("iVBORw0KGgo="),
        }
    ),
    st.fixed_dictionaries({"type": st.just("future_model_item"), "payload": json_values}),
    st.fixed_dictionaries({"type": st.just("item_reference"), "id": _prefixed("msg_")}),
    st.fixed_dictionaries({"id": _prefixed("msg_")}),
)
tool_side_items = st.fixed_dictionaries(
    {
        "type": st.just("local_shell_call_output"),
        "id": _prefixed("lsh_"),
        "output": texts,
    }
) | st.fixed_dictionaries({"type": st.just("future_tool_output"), "payload": json_values})


def function_calls(call_id: str) -> st.SearchStrategy[Item]:
    """A function_call item with this call id."""
    return st.fixed_dictionaries(
        {
            "type": st.just("function_call"),
            "call_id": st.just(call_id),
            "name": names,
            "arguments": arguments,
        },
        optional={"id": _prefixed("fc_"), "status": st.just("completed"), **extras},
    )


def function_outputs(call_id: str) -> st.SearchStrategy[Item]:
    """A function_call_output item answering `call_id`."""
    return st.fixed_dictionaries(
        {
            "type": st.just("function_call_output"),
            "call_id": st.just(call_id),
            "output": texts | st.lists(input_text | input_image, max_size=2),
        },
        optional={"id": _prefixed("fco_"), "status": st.just("completed"), **extras},
    )


def custom_calls(call_id: str) -> st.SearchStrategy[Item]:
    """A custom_tool_call item with this call id."""
    return st.fixed_dictionaries(
        {
            "type": st.just("custom_tool_call"),
            "call_id": st.just(call_id),
            "name": st.just("apply_patch"),
            "input": texts,
        },
        optional={"id": _prefixed("ctc_")},
    )


def custom_outputs(call_id: str) -> st.SearchStrategy[Item]:
    """A custom_tool_call_output item answering `call_id`."""
    return st.fixed_dictionaries(
        {
            "type": st.just("custom_tool_call_output"),
            "call_id": st.just(call_id),
            "output": texts | st.lists(input_text, max_size=2),
        }
    )


# --- whole inputs --------------------------------------------------------------------------


@st.composite
def _step(draw: st.DrawFn, counter: itertools.count[int]) -> list[Item]:
    """One model step: optional reasoning directly before what it produced, then outputs."""
    step: list[Item] = [draw(reasonings)] if draw(st.booleans()) else []
    kind = draw(st.sampled_from(["calls", "custom", "message", "model_item"]))
    if kind == "calls":
        call_ids = [f"call_{next(counter)}" for _ in range(draw(st.integers(1, 3)))]
        calls = [draw(function_calls(call_id)) for call_id in call_ids]
        outputs = [draw(function_outputs(call_id)) for call_id in call_ids]
        if draw(st.booleans()):
            step += [*calls, *draw(st.permutations(outputs))]
        else:
            step += [item for pair in zip(calls, outputs, strict=True) for item in pair]
    elif kind == "custom":
        call_id = f"call_{next(counter)}"
        step += [draw(custom_calls(call_id)), draw(custom_outputs(call_id))]
    elif kind == "message":
        step.append(draw(assistant_messages))
    else:
        step.append(draw(model_items))
    if draw(st.integers(0, 5)) == 0:
        step.append(draw(tool_side_items))
    return step


@st.composite
def input_items(draw: st.DrawFn, max_turns: int = 3) -> list[Item]:
    """A valid list of input items."""
    counter = itertools.count()
    items: list[Item] = []
    for _ in range(draw(st.integers(0, max_turns))):
        items.append(draw(user_messages | input_messages))
        for _ in range(draw(st.integers(0, 2))):
            items += draw(_step(counter))
    return items


function_tools = st.fixed_dictionaries(
    {
        "type": st.just("function"),
        "name": names,
        "parameters": st.just({"type": "object", "properties": {}}),
    },
    optional={"description": texts, "strict": st.booleans()},
)
builtin_tools = st.sampled_from(
    [
        {"type": "web_search"},
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
        {"type": "custom", "name": "apply_patch", "description": "Apply a patch"},
        {"type": "custom", "name": "grammar", "format": {"type": "text"}},
    ]
)


@st.composite
def bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A valid request body (string or list input, instructions, tools, other fields)."""
    body: dict[str, Any] = {"model": draw(st.sampled_from(["gpt-5", "o4-mini"]))}
    if draw(st.booleans()):
        body["instructions"] = draw(texts)
    body["input"] = draw(texts) if draw(st.integers(0, 3)) == 0 else draw(input_items())
    if draw(st.booleans()):
        body["tools"] = draw(st.lists(function_tools | builtin_tools, max_size=3))
    optional = {
        "reasoning": st.just({"effort": "low", "summary": "auto"}),
        "store": st.booleans(),
        "include": st.just(["reasoning.encrypted_content"]),
        "previous_response_id": _prefixed("resp_"),
        "temperature": st.just(1),
        "zz_future": json_values,
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            body[key] = draw(values)
    if body.get("store") is False and isinstance(body["input"], list):
        for item in body["input"]:  # nothing is looked up: reasoning comes readable
            if item.get("type") == "reasoning" and not item.get("encrypted_content"):
                item["encrypted_content"] = "gAAAAB"
    return body


payloads: st.SearchStrategy[Any] = input_items() | bodies()
"""Valid Responses payloads in both shapes."""


# --- breakage ------------------------------------------------------------------------------

_CALL_OF = {"function_call_output": "function_call", "custom_tool_call_output": "custom_tool_call"}


@st.composite
def broken_inputs(draw: st.DrawFn) -> tuple[list[Item], int, str]:
    """A valid input with one mutation: (items, index of the problem, word in its reason)."""
    items = draw(input_items())
    outputs = [i for i, item in enumerate(items) if item.get("type") in _CALL_OF]
    reasoning = [i for i, item in enumerate(items) if item.get("type") == "reasoning"]
    choices = ["orphan", "reasoning_last"]
    choices += ["drop_output"] if outputs else []
    choices += ["separate", "truncate"] if reasoning else []
    mutation = draw(st.sampled_from(choices))
    if mutation == "drop_output":
        dropped = items.pop(draw(st.sampled_from(outputs)))
        call = _CALL_OF[dropped["type"]]
        found = [i for i, it in enumerate(items) if it.get("type") == call]
        at = next(i for i in found if items[i]["call_id"] == dropped["call_id"])
        return items, at, "No tool output found"
    if mutation == "orphan":  # before any item_reference, which may stand for its call
        refs = [i for i, item in enumerate(items) if _is_reference(item)]
        at = draw(st.integers(0, refs[0] if refs else len(items)))
        items.insert(at, draw(function_outputs("call_orphan")))
        return items, at, "no earlier unanswered"
    if mutation == "reasoning_last":
        items.append(draw(reasonings))
        return items, len(items) - 1, "required following item"
    at = draw(st.sampled_from(reasoning))
    if mutation == "truncate":
        return items[: at + 1], at, "required following item"
    items.insert(at + 1, draw(user_messages))
    return items, at, "required following item"


@st.composite
def near_valid_inputs(draw: st.DrawFn) -> list[Any]:
    """A valid input with a few fields deleted or replaced by arbitrary JSON, at any depth."""
    items: list[Any] = draw(input_items())
    for _ in range(draw(st.integers(1, 3))):
        if not items:
            break
        target: Any = items
        while isinstance(target, list | dict) and target and draw(st.booleans()):
            keys = list(range(len(target))) if isinstance(target, list) else list(target)
            child = target[draw(st.sampled_from(keys))]
            if not isinstance(child, list | dict) or not child:
                break
            target = child
        keys = list(range(len(target))) if isinstance(target, list) else list(target)
        if keys:
            key = draw(st.sampled_from(keys))
            if isinstance(target, dict) and draw(st.booleans()):
                del target[key]
            else:
                target[key] = draw(json_values | st.sampled_from(["message", "reasoning"]))
    return items


def _is_reference(item: dict[str, Any]) -> bool:
    """An item_reference, whose `type` may be left out (an `id` and no `role`): the
    validator's own reading (`_openai_responses_validate`)."""
    kind = item.get("type")
    return kind == "item_reference" or (kind is None and "role" not in item and "id" in item)
