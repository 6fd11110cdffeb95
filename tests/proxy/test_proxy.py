"""The proxy's contract, request by request: byte-for-byte forwarding of what fits, the
paths it does not compact, local token counts, upstream errors passed through, access
token and size limit, failures that forward instead of dropping, and streaming that is
relayed as it arrives."""

from __future__ import annotations

import gzip
import json
import logging
import time

import httpx
import openai
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import contextfold as cf

from . import agents
from .conftest import ProxyFactory
from .upstream import COOKIES, Upstream


def test_a_request_that_fits_goes_upstream_byte_for_byte(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    raw = b'{"messages":[{"content":"hi",   "role":"user"}], "model":"gpt-4o","max_tokens":9}'
    answer = httpx.post(f"{running.url}/v1/chat/completions", content=raw)
    assert answer.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert answer.json()["choices"][0]["message"]["tool_calls"]


def test_other_paths_are_forwarded_unchanged(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    running = make_proxy()
    answer = httpx.get(f"{running.url}/v1/models")
    assert answer.status_code == 200
    assert answer.headers["x-upstream"] == "test"
    assert answer.json()["data"][0]["id"] == "gpt-4o"
    missing = httpx.post(f"{running.url}/v1/embeddings", json={"input": "x"})
    assert missing.status_code == 404


@pytest.mark.parametrize("folded", [False, True])
def test_repeated_answer_headers_all_reach_the_client(
    folded: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="k", max_retries=0) as client:
        run = agents.chat(client, 4 if folded else 1)
    assert bool(running.proxy.metrics.compactions._value.get()) is folded
    url = f"{running.url}/v1/chat/completions"
    answers = [httpx.get(f"{running.url}/v1/models"), httpx.post(url, json=_chat_args(run.items))]
    with httpx.stream("POST", url, json={**_chat_args(run.items), "stream": True}) as streamed:
        streamed.read()
    for answer in [*answers, streamed]:
        assert answer.status_code == 200
        assert answer.headers.get_list("set-cookie") == list(COOKIES)


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages", "/v1/models"])
def test_a_cors_preflight_is_forwarded(
    path: str, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy(token="proxy-s3cret")  # a browser's preflight never carries it
    asked = {"origin": "https://app.example", "access-control-request-method": "POST"}
    answer = httpx.options(f"{running.url}{path}", headers=asked)
    assert answer.status_code == 204
    assert answer.headers["access-control-allow-origin"] == "https://app.example"


def test_count_tokens_is_answered_here(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    running = make_proxy()
    body = {"model": "claude-sonnet-4-6", "system": "Be brief.", "messages": [agents_user()]}
    answer = httpx.post(f"{running.url}/v1/messages/count_tokens", json=body)
    expected = cf.count_tokens(body, "claude-sonnet-4-6", format="anthropic")
    assert answer.json() == {"input_tokens": expected}
    assert upstream.seen == []


_NUMBERS = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
_JSON = st.recursive(
    st.none() | st.booleans() | _NUMBERS | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
_BODIES = st.fixed_dictionaries(
    {"messages": _JSON | st.lists(st.fixed_dictionaries({"role": _JSON, "content": _JSON}))},
    optional={"model": _JSON | st.just("claude-sonnet-4-6"), "system": _JSON, "tools": _JSON},
)


def test_count_tokens_answers_any_body_with_a_count_or_a_400(make_proxy: ProxyFactory) -> None:
    running = make_proxy()

    @settings(max_examples=60, deadline=None)
    @given(body=_BODIES)
    @example(body={"model": 5, "messages": []})
    def check(body: dict[str, object]) -> None:
        answer = httpx.post(f"{running.url}/v1/messages/count_tokens", json=body)
        if answer.status_code == 200:
            assert isinstance(answer.json()["input_tokens"], int)
        else:
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"]["type"] == "invalid_request_error"

    check()


def agents_user() -> dict[str, str]:
    return {"role": "user", "content": agents.TASK}


def test_upstream_errors_come_back_unchanged(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    upstream.windows["mystery-model"] = 200  # the proxy knows no window for it
    running = make_proxy()
    client = openai.OpenAI(base_url=running.url + "/v1", api_key="sk-test", max_retries=0)
    with client, pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="mystery-model",
            messages=[{"role": "user", "content": agents.file_text("big")}],
        )
    assert caught.value.status_code == 400
    assert caught.value.code == "context_length_exceeded"
    direct = httpx.post(f"{upstream.url}/chat/completions", content=upstream.seen[-1].raw)
    assert caught.value.response.content == direct.content


def test_the_access_token_is_required_and_never_forwarded(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy(token="proxy-s3cret")
    body = {"model": "gpt-4o", "messages": [agents_user()]}
    refused = httpx.post(f"{running.url}/v1/chat/completions", json=body)
    assert refused.status_code == 401
    assert refused.json()["error"]["type"] == "authentication_error"
    claude = {"model": "claude-sonnet-4-6", "max_tokens": 9, "messages": [agents_user()]}
    wrong = {"x-contextfold-token": "nope"}
    refused = httpx.post(f"{running.url}/v1/messages", json=claude, headers=wrong)
    assert refused.json()["type"] == "error"
    assert upstream.seen == []
    ok = {"x-contextfold-token": "proxy-s3cret", "authorization": "Bearer sk-client"}
    assert httpx.post(f"{running.url}/v1/chat/completions", json=body, headers=ok).is_success
    assert upstream.seen[-1].headers["authorization"] == "Bearer sk-client"
    assert not any(k.startswith("x-contextfold") for k in upstream.seen[-1].headers)


def test_a_body_over_the_limit_is_refused(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    running = make_proxy(max_body=2_000)
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "x" * 5_000}]}
    answer = httpx.post(f"{running.url}/v1/chat/completions", json=body)
    assert answer.status_code == 413
    assert "2,000 bytes" in answer.json()["error"]["message"]
    assert upstream.seen == []


def test_a_failed_compaction_forwards_the_request_as_sent(
    upstream: Upstream, make_proxy: ProxyFactory, caplog: pytest.LogCaptureFixture
) -> None:
    running = make_proxy()
    running.proxy.sessions.store.close()  # every store call now fails
    raw = json.dumps({"model": "gpt-4o", "messages": [agents_user()]}).encode()
    headers = {"authorization": "Bearer sk-hidden-123"}
    with caplog.at_level(logging.WARNING, logger="contextfold.proxy"):
        answer = httpx.post(f"{running.url}/v1/chat/completions", content=raw, headers=headers)
    assert answer.status_code == 200
    assert upstream.seen[-1].raw == raw
    assert "compaction failed, forwarding as sent" in caplog.text
    assert "sk-hidden-123" not in caplog.text


def test_a_request_the_proxy_cannot_read_is_forwarded(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    raw = b'{"model": "gpt-4o", "messages": [{"role": "tool", "content": "orphan"'
    answer = httpx.post(f"{running.url}/v1/chat/completions", content=raw)
    assert upstream.seen[-1].raw == raw
    assert answer.status_code == 400  # the upstream's own verdict on broken JSON
    assert "not JSON" in answer.json()["error"]["message"]


def test_an_unreachable_upstream_is_a_502_in_the_provider_shape(make_proxy: ProxyFactory) -> None:
    running = make_proxy(
        openai_upstream="http://127.0.0.1:9/v1", anthropic_upstream="http://127.0.0.1:9/v1"
    )
    body = {"model": "gpt-4o", "messages": [agents_user()]}
    answer = httpx.post(f"{running.url}/v1/chat/completions", json=body)
    assert answer.status_code == 502
    assert "upstream" in answer.json()["error"]["message"]
    claude = {"model": "claude-sonnet-4-6", "max_tokens": 9, "messages": [agents_user()]}
    answer = httpx.post(f"{running.url}/v1/messages", json=claude)
    assert answer.status_code == 502
    assert answer.json()["type"] == "error"


def test_errors_on_forwarded_anthropic_paths_are_in_anthropic_shape(
    make_proxy: ProxyFactory,
) -> None:
    running = make_proxy(
        token="proxy-s3cret",
        openai_upstream="http://127.0.0.1:9/v1",
        anthropic_upstream="http://127.0.0.1:9/v1",
    )
    refused = httpx.get(f"{running.url}/v1/messages/batches")  # no proxy token
    assert refused.status_code == 401
    assert refused.json()["error"]["type"] == "authentication_error"
    assert refused.json()["type"] == "error"
    headers = {"x-contextfold-token": "proxy-s3cret", "anthropic-version": "2023-06-01"}
    unreachable = httpx.get(f"{running.url}/v1/models", headers=headers)
    assert unreachable.status_code == 502
    assert unreachable.json()["type"] == "error"


def test_health_and_metrics(upstream: Upstream, make_proxy: ProxyFactory) -> None:
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="k", max_retries=0) as client:
        agents.chat(client, 6)
    assert httpx.get(f"{running.url}/healthz").json() == {"status": "ok", "sessions": 1}
    text = httpx.get(f"{running.url}/metrics").text
    for name in (
        'contextfold_requests_total{endpoint="/v1/chat/completions",outcome="compacted"}',
        "contextfold_compactions_total",
        "contextfold_tokens_saved_total",
        "contextfold_added_latency_seconds_bucket",
        "contextfold_live_sessions 1.0",
    ):
        assert name in text
    saved = [line for line in text.splitlines() if line.startswith("contextfold_tokens_saved")]
    assert float(saved[0].split()[-1]) > 0


@pytest.mark.parametrize("folded", [False, True])
def test_streams_are_relayed_as_they_arrive(
    folded: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="k", max_retries=0) as client:
        run = agents.chat(client, 4 if folded else 1)  # warm: counters loaded, session known
    assert bool(running.proxy.metrics.compactions._value.get()) is folded
    upstream.delay, upstream.text_every = 0.25, 1
    body = {**_chat_args(run.items), "stream": True}
    started = time.perf_counter()
    arrivals = []
    with httpx.stream("POST", f"{running.url}/v1/chat/completions", json=body) as answer:
        for line in answer.iter_lines():
            if line.startswith("data:"):
                arrivals.append(time.perf_counter() - started)
    assert len(arrivals) == 6  # role, three pieces of text, finish, [DONE]
    assert arrivals[-1] - arrivals[0] > 0.7, arrivals  # a quarter second apart: not buffered


def test_a_gzip_request_body_is_compacted_like_any_other(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    run = agents.Run(items=[{"role": "system", "content": agents.SYSTEM}, agents_user()])
    for turn in range(6):  # ~15,000 tokens: over the 8,192-token window
        function = {"name": "read_file", "arguments": json.dumps({"path": f"f{turn}.py"})}
        call = {"id": f"call_{turn}", "type": "function", "function": function}
        run.items.append({"role": "assistant", "content": None, "tool_calls": [call]})
        text = agents.file_text(f"f{turn}.py")
        run.items.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    raw = gzip.compress(json.dumps(_chat_args(run.items)).encode())
    headers = {"content-encoding": "gzip", "content-type": "application/json"}
    answer = httpx.post(f"{running.url}/v1/chat/completions", content=raw, headers=headers)
    assert answer.status_code == 200, answer.text
    assert running.proxy.metrics.compactions._value.get() == 1
    assert upstream.refused == []


def test_a_stream_on_a_forwarded_path_is_relayed_as_it_arrives(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    upstream.delay = 0.25
    started = time.perf_counter()
    arrivals = []
    url = f"{running.url}/v1/responses/resp_1?stream=true"  # a background response, again
    with httpx.stream("GET", url) as answer:
        for line in answer.iter_lines():
            if line.startswith("data:"):
                arrivals.append(time.perf_counter() - started)
    assert len(arrivals) == 3
    assert arrivals[-1] - arrivals[0] > 0.4, arrivals  # a quarter second apart: not buffered


def _chat_args(items: list[object]) -> dict[str, object]:
    return {"model": "gpt-4o", "messages": items, "tools": agents.TOOLS_CHAT, "max_tokens": 512}


def test_a_request_the_session_refuses_midway_leaves_no_trace_in_it(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    with openai.OpenAI(base_url=running.url + "/v1", api_key="k", max_retries=0) as client:
        run = agents.chat(client, 4)
    assert running.proxy.metrics.compactions._value.get() > 0  # the view is what goes up
    function = {"name": "read_file", "arguments": '{"path": "x.py"}'}
    calls = [{"id": "call_x", "type": "function", "function": function}]
    call = {"role": "assistant", "tool_calls": calls}
    bad = [*run.items, call, {"role": "narrator", "content": "?"}]  # read up to the bad role
    httpx.post(f"{running.url}/v1/chat/completions", json=_chat_args(bad))
    good = [*run.items, call, {"role": "tool", "tool_call_id": "call_x", "content": "x = 1"}]
    answer = httpx.post(f"{running.url}/v1/chat/completions", json=_chat_args(good))
    assert answer.status_code == 200, answer.text
    sent = upstream.seen[-1].body["messages"]
    assert [m.get("tool_call_id") for m in sent].count("call_x") == 1
    assert [m for m in sent if m.get("tool_calls") == calls] == [call]
