"""Outputs answering calls behind an item_reference stay with it (`_units` rule 5).

A Responses input may name earlier items by id (`item_reference`) and then send the
outputs of the calls they stand for. The outputs were ORPHAN units: folding removed the
references and kept the outputs, and compact raised InvalidConversation ("... has no
earlier unanswered function_call") for a valid input at every budget but the largest.
They are one exchange with the references now: kept or folded together.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf

LOG = "".join(f"line {n}: wrote build/out_{n}.o\n" for n in range(120))


def _turn(n: int, refs: int, typed: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {"type": "item_reference", "id": f"fc_{n}_{k}"} if typed else {"id": f"fc_{n}_{k}"}
        for k in range(refs)
    ]
    items += [
        {"type": "function_call_output", "call_id": f"call_{n}_{k}", "output": LOG}
        for k in range(refs)
    ]
    items.append({"role": "assistant", "content": [{"type": "output_text", "text": "Done."}]})
    items.append({"role": "user", "content": f"Now step {n + 1}."})
    return items


def _input(turns: list[tuple[int, bool]]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"role": "user", "content": "Run the build."}]
    for n, (refs, typed) in enumerate(turns):
        items += _turn(n, refs, typed)
    return items


def test_issue_reproduction_outputs_behind_item_references() -> None:
    items = _input([(2, True), (1, False)])
    assert cf.validate(items) == []
    total = cf.count_tokens(items, "gpt-5")
    for budget in range(1, total, 40):
        result = cf.compact(items, budget, "gpt-5")  # raised InvalidConversation before
        assert cf.validate(result.payload) == []


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    turns=st.lists(st.tuples(st.integers(1, 3), st.booleans()), min_size=1, max_size=4),
    share=st.floats(0.0, 1.0),
    body=st.booleans(),
)
def test_outputs_never_part_from_their_item_references(
    turns: list[tuple[int, bool]], share: float, body: bool
) -> None:
    items = _input(turns)
    payload: Any = {"model": "gpt-5", "input": items} if body else items
    budget = max(1, int(cf.count_tokens(payload, "gpt-5") * share))
    result = cf.compact(payload, budget, "gpt-5")
    out = result.payload["input"] if body else result.payload
    assert cf.validate(result.payload) == []
    for k, item in enumerate(out):  # each output right after its turn's references
        if item.get("type") == "function_call_output":
            before = out[k - 1]
            assert before.get("type") in ("item_reference", "function_call_output") or (
                "role" not in before and "id" in before
            )
