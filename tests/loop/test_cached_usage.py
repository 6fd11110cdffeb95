"""Calibrating from a provider's usage when most of the prompt was read from its cache.

Anthropic's `usage.input_tokens` counts only the prompt after the last cache breakpoint;
what the cache served is in `cache_read_input_tokens` (and what it stored in
`cache_creation_input_tokens`). Given `input_tokens` alone, the manager learned that the
provider bills a quarter of its estimate (the ratio's floor) and let the view grow to
about four times the budget before compacting. `observe_usage` takes the usage object
(or its dict) and counts every part of the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import contextfold as cf

MODEL = "claude-sonnet-4-5"
BUDGET = 6_000


@dataclass
class Usage:
    """The fields of `anthropic.types.Usage` that say how big the prompt was."""

    input_tokens: int
    cache_creation_input_tokens: int | None
    cache_read_input_tokens: int | None
    output_tokens: int = 20


def _turns(n: int) -> list[list[dict[str, object]]]:
    body = "\n".join(f"line {k}: value {k * 7} in src/app_{k}.py" for k in range(120))
    turns: list[list[dict[str, object]]] = []
    for i in range(n):
        use: dict[str, object] = {"type": "tool_use", "id": f"t{i}", "name": "read"}
        use["input"] = {"path": f"f{i}"}
        result: dict[str, object] = {"type": "tool_result", "tool_use_id": f"t{i}", "content": body}
        turns.append(
            [
                {"role": "assistant", "content": [use]},
                {"role": "user", "content": [result]},
            ]
        )
    return turns


def _billed(manager: cf.ContextManager, view: list[object]) -> int:
    body: dict[str, object] = {"messages": view}
    if (system := manager.system_prompt()) is not None:
        body["system"] = system
    return cf.count_tokens(body, MODEL, format="anthropic")


@pytest.mark.parametrize("as_dict", [False, True])
def test_a_loop_calibrated_from_cached_usage_stays_within_budget(as_dict: bool) -> None:
    manager = cf.ContextManager(BUDGET, MODEL, format="anthropic", system="You are careful.")
    manager.add({"role": "user", "content": "Read every file and report."})
    for turn in _turns(30):
        view = manager.view()
        billed = _billed(manager, view)
        assert billed <= BUDGET
        cached = int(billed * 0.9)  # everything before the newest turn came from the cache
        usage = Usage(billed - cached, 0, cached)
        manager.observe_usage(vars(usage) if as_dict else usage)
        manager.extend(turn)
    assert 0.9 <= manager.counter.ratio <= 1.1


def test_a_number_is_still_the_prompt_tokens() -> None:
    manager = cf.ContextManager(BUDGET, MODEL, format="anthropic")
    manager.add({"role": "user", "content": "Hello there."})
    sent = _billed(manager, manager.view())
    manager.observe_usage(sent * 2)
    assert manager.counter.ratio == pytest.approx(2.0, rel=0.05)


@pytest.mark.parametrize("usage", [{"output_tokens": 5}, object(), -3, True])
def test_usage_without_a_prompt_count_is_refused(usage: object) -> None:
    manager = cf.ContextManager(BUDGET, MODEL, format="anthropic")
    manager.add({"role": "user", "content": "Hello there."})
    manager.view()
    with pytest.raises(cf.ConfigurationError, match="prompt"):
        manager.observe_usage(usage)
