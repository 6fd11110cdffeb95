"""Outputs answering a stored response's calls yield like any tool output (`_costs` rule 3).

A Responses body that continues a stored response (`previous_response_id`) sends the
outputs of calls the input cannot show. Those outputs must stay (the provider pairs them
with its stored calls), so they were kept as they were: a 20,000-character output
beside "be brief" and "and now?" made the body 5,222 tokens, reported as "does not fit"
at a budget of 200, though the instructions and the latest user message needed 20.
They stay now, but their text is pruned or masked as the room requires, and recalled
whole from the marker.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf

LOG = "".join(f"line {n}: collected 12 items, 3 failed in tests/test_api.py\n" for n in range(400))


def _continuing(outputs: list[str], *, user: bool, stored: str = "previous_response_id") -> Any:
    items: list[dict[str, Any]] = [
        {"type": "function_call_output", "call_id": f"call_{n}", "output": text}
        for n, text in enumerate(outputs)
    ]
    if user:
        items.append({"role": "user", "content": "and now?"})
    body: dict[str, Any] = {"model": "gpt-5", stored: "resp_0123", "input": items}
    return {**body, "instructions": "Be brief."}


def _floor(body: Any) -> int:
    kept = [i for i in body["input"] if i.get("role") == "user"]
    return cf.count_tokens({**body, "input": kept}, "gpt-5", format="openai-responses")


def test_a_stored_calls_output_is_pruned_to_fit() -> None:
    body = _continuing([LOG], user=True)
    result = cf.compact(body, 200, "gpt-5")
    report = result.report
    assert report.fits, report
    assert report.tokens_after <= 200
    assert cf.validate(result.payload) == []
    output, user = result.payload["input"]
    assert output["call_id"] == "call_0"
    assert user == body["input"][-1]
    (ref,) = re.findall(r"\[cf:(r[0-9a-f]{10})", json.dumps(output))
    assert LOG in result.archive.recall_text(ref)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    sizes=st.lists(st.integers(0, 400), min_size=1, max_size=4),
    user=st.booleans(),
    room=st.integers(0, 400),
    stored=st.sampled_from(["previous_response_id", "conversation"]),
)
def test_outputs_of_stored_calls_stay_and_yield(
    sizes: list[int], user: bool, room: int, stored: str
) -> None:
    body = _continuing([LOG[: 52 * n] for n in sizes], user=user, stored=stored)
    budget = _floor(body) + 40 * len(sizes) + room  # a marker's room per output
    result = cf.compact(body, budget, "gpt-5")
    assert result.report.fits, result.report
    assert cf.count_tokens(result.payload, "gpt-5") <= budget
    assert cf.validate(result.payload) == []
    sent = [i.get("call_id") for i in result.payload["input"] if "call_id" in i]
    assert sent == [f"call_{n}" for n in range(len(sizes))]  # every output stays, in order
