"""A request's structured-output schema is prompt text: counted, so compaction leaves room."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold._tokens._accounting import output_schema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        f"field_{i}": {"type": "string", "description": f"The {i}th finding of the review."}
        for i in range(60)
    },
    "required": [f"field_{i}" for i in range(60)],
}
FORMAT = {"type": "json_schema", "name": "review", "schema": SCHEMA}


def history(n: int) -> list[dict[str, Any]]:
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Step {i}: " + "word " * 80}
        for i in range(n)
    ]
    return [*turns[:-1], {"role": "user", "content": "Report the findings."}]


def bodies() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Per format: a body with the schema, and what its schema object is."""
    spec: dict[str, Any] = {"name": "review", "schema": SCHEMA}
    chat = {"type": "json_schema", "json_schema": spec}
    return {
        "openai-chat": (
            {"model": "gpt-4o", "messages": history(40), "response_format": chat},
            spec,
        ),
        "openai-responses": (
            {"model": "gpt-4o", "input": history(40), "text": {"format": FORMAT}},
            FORMAT,
        ),
        "anthropic": (
            {
                "model": "claude-sonnet-4-5",
                "max_tokens": 1024,
                "messages": history(40),
                "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
            },
            {"type": "json_schema", "schema": SCHEMA},
        ),
    }


def total(body: dict[str, Any], counter: cf.HeuristicCounter) -> int:
    """The request's tokens, fixed overhead included."""
    _, conversation = cf.parse(body)
    return counter.fixed_overhead(conversation) + sum(map(counter.count, conversation.messages))


def without(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in ("response_format", "text", "output_config")}


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
def test_the_schema_costs_its_json_text(fmt: str) -> None:
    body, schema = bodies()[fmt]
    counter = cf.HeuristicCounter(format=fmt)
    extra = total(body, counter) - total(without(body), counter)
    assert extra == counter.count_text(json.dumps(schema, ensure_ascii=False, sort_keys=True))
    assert extra > 1_000


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic"])
def test_a_compacted_request_with_a_schema_fits_its_budget(fmt: str) -> None:
    """Before, the schema was not counted: the request sent was over the budget by it."""
    body, schema = bodies()[fmt]
    counter = cf.HeuristicCounter(format=fmt)
    cost = counter.count_text(json.dumps(schema, ensure_ascii=False, sort_keys=True))
    budget = (total(without(body), counter) + cost) // 2  # room beside the schema
    result = cf.compact(body, budget, counter=counter, format=fmt)
    assert result.report.fits
    assert total(without(result.payload), counter) + cost <= budget  # what is sent
    assert result.payload.get("model") == body["model"]  # the body around the messages stays
    assert output_schema(result.payload) == output_schema(body)


def test_other_formats_cost_nothing_extra() -> None:
    assert output_schema({"response_format": {"type": "json_object"}}) is None
    assert output_schema({"text": {"format": {"type": "text"}}}) is None
    assert output_schema({"output_config": {"effort": "high"}}) is None
    assert output_schema({"output_format": {"type": "json_schema", "schema": {}}}) == {
        "type": "json_schema",
        "schema": {},
    }
    assert output_schema({"text": "not a mapping"}) is None


@given(st.dictionaries(st.text(max_size=8), st.text(max_size=20), max_size=5))
def test_hyp_fixed_overhead_adds_the_schema(properties: dict[str, str]) -> None:
    fields = {k: {"description": v} for k, v in properties.items()}
    schema = {"type": "object", "properties": fields}
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    messages = [{"role": "user", "content": "hi"}]
    counter = cf.HeuristicCounter()
    plain = total({"model": "m", "messages": messages}, counter)
    with_schema = total({"model": "m", "messages": messages, "response_format": fmt}, counter)
    text = json.dumps(fmt["json_schema"], ensure_ascii=False, sort_keys=True)
    assert with_schema == plain + counter.count_text(text)
