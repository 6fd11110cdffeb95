"""A recall round the upstream refuses after the client's stream began ends that stream with
the provider's own error event carrying the upstream's error (`_failures` rule 4), as the
official SDKs read it: Chat's `data: {"error": ...}` (raised as APIError), Responses'
`error` event (yielded as ResponseErrorEvent), Anthropic's `event: error` with its error
body (raised as APIStatusError)."""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest

import contextfold as cf

from .conftest import ProxyFactory
from .histories import long_session
from .upstream import Upstream

RATE: dict[str, Any] = {
    "openai": {
        "error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}
    },
    "anthropic": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
}


@pytest.fixture
def refusing(upstream: Upstream) -> list[tuple[int, Any]]:
    """The upstream recalls on every answer; its second answer (the first round) is the
    refusal put in the list (status, body), when there is one."""
    upstream.recall_every = 1
    refusal: list[tuple[int, Any]] = []
    handle, seen = upstream.handle, []

    def refuse_the_round(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        seen.append(path)
        if len(seen) == 2 and refusal:
            return refusal[0]
        return handle(path, headers, raw)

    upstream.handle = refuse_the_round  # type: ignore[method-assign]
    return refusal


def _body(format: cf.Format) -> dict[str, Any]:
    model = "claude-sonnet-4-6" if format == "anthropic" else "gpt-4o"
    body = long_session(model)
    wire: Any = body if format == "openai-chat" else cf.convert(body, format)
    return {**wire, "stream": True}


def test_chat(refusing: list[tuple[int, Any]], make_proxy: ProxyFactory) -> None:
    refusing.append((429, RATE["openai"]))
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="k", max_retries=0) as client:
        stream = client.chat.completions.create(**_body("openai-chat"))
        with pytest.raises(openai.APIError, match="slow down") as caught:
            list(stream)
    assert caught.value.body == RATE["openai"]["error"]


def test_responses(refusing: list[tuple[int, Any]], make_proxy: ProxyFactory) -> None:
    """Before, the event was Chat's `data: {"error": ...}`, which no Responses stream
    sends: the SDK raised it instead of yielding Responses' error event."""
    refusing.append((429, RATE["openai"]))
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="k", max_retries=0) as client:
        events = list(client.responses.create(**_body("openai-responses")))
    (event,) = events
    assert event.type == "error"
    assert (event.code, event.message, event.sequence_number) == (
        "rate_limit_exceeded",
        "slow down",
        0,
    )


@pytest.mark.parametrize(
    ("refusal", "kind", "said"),
    [
        ((429, RATE["anthropic"]), "rate_limit_error", "slow down"),
        ((502, "<html>Bad gateway</html>"), "api_error", "Bad gateway"),
    ],
)
def test_anthropic(
    refusing: list[tuple[int, Any]],
    make_proxy: ProxyFactory,
    refusal: tuple[int, Any],
    kind: str,
    said: str,
) -> None:
    """Before, a body that was not JSON became `{"error": ...}` without Anthropic's
    `"type": "error"`."""
    refusing.append(refusal)
    running = make_proxy()
    with anthropic.Anthropic(base_url=running.url, api_key="k", max_retries=0) as client:
        stream = client.messages.create(**_body("anthropic"))
        with pytest.raises(anthropic.APIStatusError, match=kind) as caught:
            list(stream)
    body: Any = caught.value.body
    assert body["type"] == "error"
    assert body["error"]["type"] == kind
    assert said in body["error"]["message"]
