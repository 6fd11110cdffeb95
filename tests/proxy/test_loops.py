"""300-turn agent loops through the proxy with the official SDKs, ~2,500-token tool outputs
in an 8k window: zero upstream refusals, recall rounds answered inside the proxy (the agent
never sees the recall tool), and the upstream sees a stable prefix between compactions."""

from __future__ import annotations

import anthropic
import openai
import pytest

from . import agents
from .checks import assert_healthy_loop
from .conftest import ProxyFactory
from .upstream import Upstream

TURNS = 300

pytestmark = pytest.mark.loop


def _compactions(running: object) -> float:
    proxy = running.proxy  # type: ignore[attr-defined]
    return float(proxy.metrics.compactions._value.get())


def test_openai_chat_300_turns(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    upstream.recall_every = 5
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="sk-test", max_retries=0) as client:
        run = agents.chat(client, TURNS)
    assert len(run.calls) == TURNS
    assert_healthy_loop(upstream, _compactions(running), TURNS)


def test_anthropic_streaming_300_turns(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    upstream.recall_every = 5
    running = make_proxy()
    with anthropic.Anthropic(base_url=running.url, api_key="sk-ant-test", max_retries=0) as client:
        run = agents.claude(client, TURNS, stream=True)
    assert len(run.calls) == TURNS
    assert_healthy_loop(upstream, _compactions(running), TURNS)
