"""A compaction runs off the event loop (`_app` rule 7): while one request's turn is being
taken (a long history can take seconds), the proxy still answers others and relays the
streams in flight; turns themselves take turns."""

from __future__ import annotations

import threading
from typing import Any

import httpx

from .conftest import ProxyFactory
from .histories import long_session
from .upstream import Upstream


def test_the_proxy_answers_while_a_turn_is_being_taken(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    """Before, the turn ran on the event loop: nothing else was answered until it ended
    (`/healthz` waited 1.8 s behind a 10 MB history, here it would time out)."""
    running = make_proxy()
    sessions = running.proxy.sessions
    entered, gate, inside = threading.Event(), threading.Event(), []
    take = sessions.turn

    def slow_turn(*args: Any, **kwargs: Any) -> Any:
        inside.append(1)
        entered.set()
        gate.wait(20)  # a compaction that takes its time
        return take(*args, **kwargs)

    sessions.turn = slow_turn  # type: ignore[method-assign]
    answers: list[httpx.Response] = []

    def post(n: int) -> None:
        body = long_session("gpt-4o")  # two conversations: each takes a turn
        body["messages"][1] = {"role": "user", "content": f"Fix the failing tests, part {n}."}
        answers.append(httpx.post(running.url + "/v1/chat/completions", json=body, timeout=30))

    posting = [threading.Thread(target=post, args=(n,)) for n in range(2)]
    for thread in posting:
        thread.start()
    try:
        assert entered.wait(10)
        health = httpx.get(running.url + "/healthz", timeout=5)
        assert health.status_code == 200
        counted = httpx.post(
            running.url + "/v1/messages/count_tokens",
            json={"model": "claude-sonnet-4-6", "messages": [{"role": "user", "content": "hi"}]},
            timeout=5,
        )
        assert counted.status_code == 200
        assert len(inside) == 1  # the second request waits for the first one's turn
    finally:
        gate.set()
        for thread in posting:
            thread.join(30)
    assert [a.status_code for a in answers] == [200, 200]
    assert len(inside) == 2
