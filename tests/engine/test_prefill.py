"""An Anthropic request ending with an assistant message asks the model to continue it.

That final message (a prefill: "Here is the JSON: {..." ) is part of the request, not of
the history: masked, the model continued a marker, and folded, the request ended with
the user's turn and asked for something else, both reported as fitting. It stays
verbatim with the system prompt and the latest user turn (the floor); when they do not
fit together the report says so (`_shape` rule 6). OpenAI chat has no prefill: there a
final assistant message is history and yields as before.
"""

from __future__ import annotations

import json

import pytest

import contextfold as cf

MODEL = "claude-sonnet-4-5"
FILLER = "Lorem ipsum dolor sit amet. " * 200
PREFILL = 'Here is the JSON:\n```json\n{"items": [' + "1, " * 400 + "2"


def _body(prefill: str) -> dict[str, object]:
    messages: list[dict[str, object]] = []
    for k in range(5):
        messages.append({"role": "user", "content": f"Question {k}: {FILLER}"})
        messages.append({"role": "assistant", "content": f"Answer {k}: {FILLER}"})
    messages.append({"role": "user", "content": "Give me the JSON now. Never add comments."})
    messages.append({"role": "assistant", "content": prefill})
    return {"model": MODEL, "max_tokens": 100, "messages": messages}


@pytest.mark.parametrize("budget", [150, 400, 800, 1_200, 2_000])
@pytest.mark.parametrize("prefill", [PREFILL, "{"])
def test_an_anthropic_prefill_stays_verbatim(budget: int, prefill: str) -> None:
    body = _body(prefill)
    result = cf.compact(body, budget, MODEL, format="anthropic")
    out = result.payload["messages"]
    assert cf.validate(result.payload, format="anthropic") == []
    assert out[-1] == body["messages"][-1]  # type: ignore[index]
    assert out[-2] == body["messages"][-2]  # type: ignore[index]
    report = result.report
    if report.fits:
        assert cf.count_tokens(result.payload, MODEL, format="anthropic") <= budget
    else:
        assert report.protected_tokens > budget


def test_a_final_assistant_message_in_openai_chat_still_yields() -> None:
    messages = _body(PREFILL)["messages"]
    assert isinstance(messages, list)
    result = cf.compact(messages, 400, MODEL, format="openai-chat")
    assert result.report.fits
    assert PREFILL not in json.dumps(result.payload)


def test_the_reported_floor_is_what_must_stay_and_no_more() -> None:
    """The latest user turn and the prefill alternate already: the floor needs no bridge
    (it used to add one whether needed or not, 19 tokens too many), and a budget that
    holds the floor gets an output within it."""
    body = _body("{")
    floor = {**body, "messages": body["messages"][-2:]}  # type: ignore[index]
    need = cf.count_tokens(floor, MODEL, format="anthropic")
    result = cf.compact(body, need, MODEL, format="anthropic")
    assert result.report.protected_tokens == need
    assert result.report.fits
    assert cf.count_tokens(result.payload, MODEL, format="anthropic") <= need
    over = cf.compact(body, need - 1, MODEL, format="anthropic").report
    assert not over.fits
    assert over.protected_tokens == need
