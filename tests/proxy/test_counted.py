"""What a request costs besides its items is counted by the proxy: a structured-output
schema, and tools that change mid-conversation (the request starts a session counting
them); a cache mark moved within the tools changes nothing."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import openai

from . import agents
from .conftest import WINDOW, ProxyFactory
from .upstream import Upstream

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        f"finding_{i}": {"type": "string", "description": f"What the review found in area {i}."}
        for i in range(80)
    },
}
EXTRA_TOOLS = [
    {
        "name": f"lookup_{i}",
        "description": f"Look up record kind {i} in the inventory service. " * 6,
        "input_schema": {"type": "object", "properties": {"key": {"type": "string"}}},
    }
    for i in range(20)
]


def _sessions(url: str) -> int:
    return int(httpx.get(f"{url}/healthz").json()["sessions"])


def test_a_structured_output_schema_leaves_room(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    """Before, the proxy compacted to the window as if the 2,000-token schema were absent
    and the upstream refused the request as too long."""
    running = make_proxy()
    form = {"type": "json_schema", "json_schema": {"name": "review", "schema": SCHEMA}}
    with openai.OpenAI(base_url=running.url + "/v1", api_key="sk-test", max_retries=0) as client:
        run = agents.chat(client, 20, response_format=form)
    assert len(run.calls) == 20
    assert not upstream.refused, upstream.refused[0].refused
    assert max(s.tokens for s in upstream.seen) > WINDOW // 2  # the room was tight


def test_tools_added_mid_conversation_are_counted(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    """Twenty tools offered from the seventh turn on: the request starts a session that
    counts them (before, the session kept counting one tool and the upstream refused)."""
    running = make_proxy()
    with anthropic.Anthropic(base_url=running.url, api_key="k", max_retries=0) as client:
        run = agents.Run(items=[{"role": "user", "content": agents.TASK}])
        for turn in range(16):
            args = agents._anthropic_args(run)
            if turn >= 6:
                args["tools"] = [*agents.TOOLS_ANTHROPIC, *EXTRA_TOOLS]
            agents._anthropic_turn(run, client.messages.create(**args).content)
    assert len(run.calls) == 16
    assert not upstream.refused, upstream.refused[0].refused
    assert _sessions(running.url) == 2


def test_a_cache_mark_moved_in_the_tools_keeps_the_session(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    mark = {"cache_control": {"type": "ephemeral"}}
    with anthropic.Anthropic(base_url=running.url, api_key="k", max_retries=0) as client:
        run = agents.Run(items=[{"role": "user", "content": agents.TASK}])
        for turn in range(4):
            args = agents._anthropic_args(run)
            if turn % 2:
                args["tools"] = [{**agents.TOOLS_ANTHROPIC[0], **mark}]
            agents._anthropic_turn(run, client.messages.create(**args).content)
    assert _sessions(running.url) == 1
