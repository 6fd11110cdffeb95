"""The integrations bench in a tiny mode: every framework and setup runs against the strict
server, the defaults are refused, contextfold finishes, and the section renders."""

from __future__ import annotations

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from bench import integrations_agents as bench


def test_a_short_loop_per_setup() -> None:
    outcomes = bench.run_all(turns=8, window=8_192)
    by_setup = {(o.framework, o.setup): o for o in outcomes}
    assert len(by_setup) == 7
    for framework in ("OpenAI Agents SDK", "pydantic-ai"):
        ours = [o for o in outcomes if o.framework == framework and "contextfold" in o.setup]
        assert [o.finished for o in ours] == [True]
        assert ours[0].first_refusal == "-"
        assert (ours[0].no_system, ours[0].no_rules) == (0, 0)
    default = by_setup[("OpenAI Agents SDK", "no filter (default)")]
    assert not default.finished
    assert default.first_refusal.endswith("(context_length_exceeded)")
    text = bench.section(outcomes, 8, 8_192, "python -m bench.integrations_agents --turns 8")
    assert text.startswith("## Integrations: OpenAI Agents SDK and pydantic-ai\n")
    assert text.count("\n| OpenAI Agents SDK |") == 3
