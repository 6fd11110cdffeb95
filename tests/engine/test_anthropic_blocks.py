"""Anthropic payloads with the blocks agents really send, compacted (Hypothesis).

The neutral generator behind the other properties has no server tools, documents,
redacted thinking, cache breakpoints or errors in results. Here a wire conversation is
drawn block by block: thinking or redacted_thinking opening a step, a web search the
server ran (`server_tool_use` + `web_search_tool_result`) before the step's text,
parallel tool calls, results that are errors, hold images or carry a `cache_control`,
user turns with images and documents, text with accents and emoji. For every budget:
the output is valid for the API (I1), keeps surviving calls in order and once each (I2),
fits whenever it says so and says it does not only when its floor is over the budget
(I3), and every reference the report lists is reachable from the output (I5). The same
conversation run through a ContextManager (views at each request point) gives valid
views within the budget.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._engine._artifacts import bridge_text

from .test_flow_properties import POINTER
from .test_reachability import no_room_for_a_pointer, reachable

Wire = dict[str, Any]
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)
WORDS = ("résultat", "naïve", "日本語", "🚀", "value", "path", "Zürich", "ok", "=", "{}", "✓")
MODEL = "claude-sonnet-4-5"
TOOLS = [{"name": "bash", "input_schema": {"type": "object"}}]


@st.composite
def _text(draw: st.DrawFn, lines: int = 3) -> str:
    n = draw(st.integers(1, lines))
    row = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)
    return "\n".join(f"{i}: {draw(row)}" for i in range(n))


def _image() -> Wire:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}


@st.composite
def _user_turn(draw: st.DrawFn, k: int) -> Wire:
    said = draw(
        st.sampled_from(
            (
                "Never push to main. 🚫",
                "Use the Zürich region.",
                "Keep answers short.",
                "Actually, use Python 3.13.",
                "Go on.",
            )
        )
    )
    blocks: list[Wire] = [{"type": "text", "text": f"{said} (turn {k})"}]
    if draw(st.booleans()):
        blocks.append(_image())
    if draw(st.booleans()):
        source = {"type": "text", "media_type": "text/plain", "data": draw(_text(40))}
        blocks.append({"type": "document", "source": source, "title": f"notes{k}.txt"})
    return {"role": "user", "content": blocks}


@st.composite
def _step(draw: st.DrawFn, k: int, cached: list[int], first: bool) -> list[Wire]:
    """One assistant response with its tool calls, and the user message answering them;
    the `first` of a turn opens with thinking (the API wants it, thinking being enabled)."""
    blocks: list[Wire] = []
    opening = draw(st.sampled_from(("thinking", "redacted", *(() if first else ("none",)))))
    if opening == "thinking":
        blocks.append({"type": "thinking", "thinking": draw(_text()), "signature": f"sig{k}=="})
    elif opening == "redacted":
        blocks.append({"type": "redacted_thinking", "data": f"RED{k}" + "x" * 40})
    if draw(st.booleans()):
        search = f"srvtoolu_{k}"
        found = [
            {
                "type": "web_search_result",
                "url": f"https://example.com/{k}/{j}",
                "title": "Example",
                "encrypted_content": "E" * draw(st.integers(10, 3000)),
                "page_age": None,
            }
            for j in range(draw(st.integers(1, 3)))
        ]
        blocks += [
            {"type": "server_tool_use", "id": search, "name": "web_search", "input": {"q": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": search, "content": found},
        ]
    if draw(st.booleans()):
        blocks.append({"type": "text", "text": draw(_text())})
    ids = [f"toolu_{k}_{j}" for j in range(draw(st.integers(1, 4)))]
    blocks += [{"type": "tool_use", "id": i, "name": "bash", "input": {"cmd": i}} for i in ids]
    results: list[Wire] = []
    for i in ids:
        result: Wire = {"type": "tool_result", "tool_use_id": i, "content": draw(_text(120))}
        if draw(st.booleans()):
            result["is_error"] = True
        if draw(st.booleans()):
            result["content"] = [{"type": "text", "text": result["content"]}, _image()]
        if len(cached) < 3 and draw(st.integers(0, 5)) == 0:
            result["cache_control"] = {"type": "ephemeral"}
            cached.append(k)
        results.append(result)
    return [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]


@st.composite
def conversations(draw: st.DrawFn) -> list[Wire]:
    """Turns of a user message, some tool steps, and a closing answer; the last turn may be
    in progress (ending with tool results)."""
    messages: list[Wire] = []
    cached: list[int] = []
    turns = draw(st.integers(1, 4))
    for t in range(turns):
        messages.append(draw(_user_turn(t)))
        for s in range(draw(st.integers(0 if t < turns - 1 else 1, 3))):
            messages += draw(_step(t * 10 + s, cached, s == 0))
        if t < turns - 1:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


def _body(messages: list[Wire], system: object = "You are a coding agent. 🤖") -> Wire:
    return {
        "model": MODEL,
        "max_tokens": 256,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "system": system,
        "tools": TOOLS,
        "messages": messages,
    }


def _call_ids(payload: Wire) -> list[str]:
    return [
        b["id"]
        for m in payload["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") in ("tool_use", "server_tool_use")
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(conversations(), st.floats(0.02, 1.2))
def test_compacted_payloads_with_every_block_kind_stay_valid_and_fit(
    messages: list[Wire], share: float
) -> None:
    body = _body(messages)
    assert cf.validate(body) == []
    budget = max(50, int(cf.count_tokens(body, MODEL) * share))
    result = cf.compact(body, budget, MODEL)
    out, report = result.payload, result.report
    assert cf.validate(out) == [], report
    ids = _call_ids(out)
    assert len(ids) == len(set(ids))
    order = {i: n for n, i in enumerate(_call_ids(body))}
    assert [order[i] for i in ids] == sorted(order[i] for i in ids)
    tokens = cf.count_tokens(out, MODEL)
    assert tokens == report.tokens_after
    if report.fits:
        assert tokens <= budget
    else:
        assert report.protected_tokens > budget, report
    pointer = cf.count_tokens(
        [
            {"role": "assistant", "content": bridge_text()},
            {"role": "user", "content": POINTER},
            {"role": "assistant", "content": bridge_text()},
        ],
        MODEL,
        format="anthropic",
    )
    if not no_room_for_a_pointer(report, pointer):  # else the budget wins (I3 over I5)
        assert set(report.refs) <= reachable([json.dumps(out)], result.archive)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(conversations(), st.floats(0.05, 0.8))
def test_agent_loops_with_every_block_kind_send_valid_views_within_budget(
    messages: list[Wire], share: float
) -> None:
    total = cf.count_tokens(_body(messages), MODEL)
    budget = max(200, int(total * share))
    manager: cf.ContextManager[Wire] = cf.ContextManager(
        budget, MODEL, format="anthropic", system="You are a coding agent. 🤖", tools=TOOLS
    )
    for k, message in enumerate(messages):
        manager.add(message)
        after = messages[k + 1] if k + 1 < len(messages) else None
        if after is not None and after["role"] != "assistant":
            continue
        body = _body(manager.view(), manager.system_prompt())
        assert cf.validate(body) == [], manager.last_report
        report = manager.last_report
        if report is None or report.fits:
            assert cf.count_tokens(body, MODEL) <= budget, report
        else:
            assert report.protected_tokens > budget, report
