"""LiteLLM with `ContextFold`: the SDK wrapper, the callback hook and the proxy hook."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("litellm", reason="the litellm extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

import litellm

import contextfold as cf
from contextfold.integrations.litellm import ContextFold, session_key
from contextfold.testing import FixedCounter

from ..servers.chat_model import (
    FINAL,
    READ_FILE,
    AgentScript,
    ChatModelServer,
    rules_everywhere,
    source_file,
)
from .test_langchain import LINES, SYSTEM, TASK

# LiteLLM's own TypedDicts make pydantic warn when it builds their schemas (not ours to fix)
pytestmark = pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")


@pytest.fixture(autouse=True)
def _close_the_loop_litellm_leaves() -> Iterator[None]:
    """LiteLLM's sync `completion` leaves an event loop set on the main thread; the next
    `asyncio.run` would orphan it (an unclosed-loop ResourceWarning). Close it after each test."""
    yield
    policy = asyncio.get_event_loop_policy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = policy.get_event_loop()
        except RuntimeError:  # none set: nothing left behind
            return
    if not loop.is_running():
        loop.close()
    policy.set_event_loop(None)


@pytest.fixture(autouse=True)
def _close_the_clients_litellm_caches() -> Iterator[None]:
    """LiteLLM keeps an SDK client per endpoint in `in_memory_llm_clients_cache`, each with
    its connection pool open to a server the test has already stopped: close them all after
    each test (their sockets would otherwise raise ResourceWarnings at exit)."""
    yield
    cache = litellm.in_memory_llm_clients_cache
    clients = list(cache.cache_dict.values())
    cache.flush_cache()  # type: ignore[no-untyped-call]  # LiteLLM leaves it untyped
    for client in clients:
        close = getattr(client, "close", None)
        if close is None:
            continue
        if asyncio.iscoroutinefunction(close):
            asyncio.run(close())
        else:
            close()


def request(server: ChatModelServer, history: list[Any], session: str) -> dict[str, Any]:
    return {
        "model": "openai/gpt-4o",
        "api_base": server.base_url,
        "api_key": "test-key",
        "messages": history,
        "tools": [READ_FILE],
        "metadata": {"contextfold_session": session},
    }


def run_tools(fold: ContextFold, message: Any) -> list[dict[str, Any]]:
    """The caller's own tool runner: files, and recall calls answered by `fold`."""
    results: list[dict[str, Any]] = []
    for call in message.tool_calls or []:
        answer = fold.answer(call)
        if answer is None:
            path = json.loads(call.function.arguments)["path"]
            answer = {"role": "tool", "tool_call_id": call.id, "content": source_file(path, LINES)}
        results.append(answer)
    return results


def test_a_150_turn_completion_loop_is_never_refused() -> None:
    script = AgentScript(turns=150)
    fold = ContextFold(8_192, "gpt-4o", recall=True)
    history: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    with ChatModelServer(script, window=8_192) as server:
        for _ in range(200):
            message = fold.completion(**request(server, history, "s1")).choices[0].message
            history.append(message)  # LiteLLM's own message object, as users append it
            if not message.tool_calls:
                break
            history.extend(run_tools(fold, message))
    log = server.log
    assert history[-1].content == FINAL
    assert log.refusals == []
    assert len(log.accepted) == 152  # 150 reads, one recall, the final answer
    assert max(log.tokens) <= 8_192
    assert all(body["messages"][0] == history[0] for body in log.accepted)
    assert rules_everywhere(log, "Never push to main", "2027-03-14")
    assert all(cf.RECALL_TOOL_NAME in json.dumps(body["tools"]) for body in log.accepted)
    (ref,) = script.recalled
    assert any(
        m.get("role") == "tool" and str(m["content"]).startswith(f"[cf:{ref} recalled")
        for body in log.accepted
        for m in body["messages"]
    )
    report = fold.report("s1")
    assert report is not None
    assert report.fits


def test_as_a_callback_every_acompletion_is_compacted() -> None:
    fold = ContextFold(8_192, "gpt-4o")
    history: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]

    async def loop(server: ChatModelServer) -> None:
        for _ in range(30):
            response = await litellm.acompletion(**request(server, history, "cb"))
            message = response.choices[0].message
            history.append(message)
            if not message.tool_calls:
                return
            history.extend(run_tools(fold, message))

    litellm.callbacks = [fold]
    try:
        with ChatModelServer(AgentScript(turns=12), window=8_192) as server:
            asyncio.run(loop(server))
    finally:
        litellm.callbacks = []
    assert history[-1].content == FINAL
    assert server.log.refusals == []
    assert len(server.log.accepted) == 13
    assert fold.report("cb") is not None  # 12 reads of 2.5k tokens cannot fit unfolded
    assert rules_everywhere(server.log, "Never push to main")


def test_the_proxy_hook_compacts_the_request_it_is_given() -> None:
    fold = ContextFold(4_000, "gpt-4o")
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    for i in range(6):
        function = {"name": "read_file", "arguments": json.dumps({"path": f"f{i}.py"})}
        call = {"id": f"c{i}", "type": "function", "function": function}
        history.append({"role": "assistant", "content": None, "tool_calls": [call]})
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": source_file(f"f{i}")})
    data = {"model": "gpt-4o", "messages": history, "tools": [READ_FILE]}
    with ChatModelServer(AgentScript(turns=7), window=4_000) as server:
        out = asyncio.run(fold.async_pre_call_hook(None, None, dict(data), "acompletion"))
        assert isinstance(out, dict)
        assert out["messages"] != history
        response = litellm.completion(**out, api_base=server.base_url, api_key="k")
    assert response.choices[0].message.tool_calls  # accepted, and the agent goes on
    assert server.log.refusals == []
    assert server.log.accepted[0]["messages"][0] == history[0]
    assert cf.validate(out["messages"]) == []
    assert out["tools"] == [READ_FILE]
    # the proxy then runs the deployment hook on the same request: it passes unchanged
    again = asyncio.run(fold.async_pre_call_deployment_hook(dict(out), "acompletion"))
    assert again is not None
    assert again["messages"] == out["messages"]
    manager = fold.manager(session_key(data))
    assert manager is not None
    assert len(manager.messages()) == len(out["messages"])  # the view was not fed back in
    embedding = {"model": "text-embedding-3-small", "input": ["x"]}
    assert asyncio.run(fold.async_pre_call_hook(None, None, embedding, "aembedding")) == embedding


def test_sessions_are_named_by_metadata_then_session_id_then_their_opening() -> None:
    opening = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert session_key({"metadata": {"contextfold_session": 7}, "messages": opening}) == "7"
    assert session_key({"litellm_session_id": "abc", "messages": opening}) == "abc"
    one = session_key({"messages": [*opening, {"role": "assistant", "content": "a"}]})
    assert one == session_key({"messages": opening}) != session_key({"messages": opening[1:]})


def test_bad_input_is_a_typed_error() -> None:
    fold = ContextFold(4_000)
    with pytest.raises(cf.InvalidConversation):
        fold.compact({"model": "gpt-4o", "messages": "hello"})
    with pytest.raises(cf.InvalidConversation):
        fold.compact({"model": "gpt-4o", "messages": [42]})
    with pytest.raises(cf.ConfigurationError):
        ContextFold(-1)
    not_recall = {"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    assert fold.answer(not_recall) is None


def test_tools_given_as_a_tuple_are_kept_and_counted() -> None:
    fold = ContextFold(4_000, "gpt-4o", recall=True)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    out = fold.compact({"model": "gpt-4o", "messages": messages, "tools": (READ_FILE,)})
    assert out["tools"] == [READ_FILE, fold.recall_tool]
    manager = fold.manager(session_key({"messages": messages}))
    assert manager is not None
    both = cf.count_tokens({"messages": messages, "tools": out["tools"]}, "gpt-4o")
    assert manager.tokens() == both


def test_the_callers_counter_counts() -> None:
    counter = FixedCounter(per_message=10, chars_per_token=2)
    fold = ContextFold(4_000, "gpt-4o", counter=counter)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    fold.compact({"model": "gpt-4o", "messages": messages})
    manager = fold.manager(session_key({"messages": messages}))
    assert manager is not None
    assert manager.counter.inner is counter


def test_more_conversations_in_flight_than_32_keep_their_managers_warm() -> None:
    """The proxy runs the pre-call hook, awaits routing, then runs the deployment hook on
    the view: with 40 conversations between the two, a view remembered only among the
    last 32 was compacted again as a history and its conversation restarted cold."""
    sessions = [f"user-{i}" for i in range(40)]
    fold = ContextFold(4_000, "gpt-4o")
    histories: dict[str, list[dict[str, Any]]] = {
        s: [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{s}: {TASK}"}]
        for s in sessions
    }

    def read(history: list[dict[str, Any]], turn: int) -> None:
        function = {"name": "read_file", "arguments": json.dumps({"path": f"f{turn}.py"})}
        call = {"id": f"c{turn}", "type": "function", "function": function}
        history.append({"role": "assistant", "content": None, "tool_calls": [call]})
        output = source_file(f"f{turn}", 60)
        history.append({"role": "tool", "tool_call_id": f"c{turn}", "content": output})

    async def one_turn(server: ChatModelServer, turn: int) -> dict[str, Any]:
        data: dict[str, dict[str, Any]] = {}
        for s in sessions:  # every request's pre-call hook runs before any is routed
            read(histories[s], 2 * turn)
            read(histories[s], 2 * turn + 1)
            body = {**request(server, histories[s], s), "tools": [READ_FILE]}
            out = await fold.async_pre_call_hook(None, None, body, "acompletion")
            assert out is not None
            data[s] = out
        managers = {s: fold.manager(s) for s in sessions}
        for s in sessions:
            again = await fold.async_pre_call_deployment_hook(dict(data[s]), "acompletion")
            assert again is not None
            assert again["messages"] == data[s]["messages"]  # passed unchanged
            await litellm.acompletion(**again)
        assert {s: fold.manager(s) for s in sessions} == managers
        return managers

    for s in sessions:  # a long history already: from the third turn on the view folds
        for earlier in range(100, 112):
            read(histories[s], earlier)
    with ChatModelServer(AgentScript(turns=100), window=4_000) as server:
        first = asyncio.run(one_turn(server, 0))
        for turn in range(1, 4):
            # before, from the third turn: every one of the 40 restarted, on every turn
            assert asyncio.run(one_turn(server, turn)) == first  # no conversation restarted
    assert server.log.refusals == []
    assert len(server.log.accepted) == 160
    assert all(fold.report(s) is not None for s in sessions)  # each compacted on the way


def test_a_history_edited_in_the_middle_is_sent_as_edited() -> None:
    """The first and the last message unchanged, one in between redacted: the conversation
    starts again from the edited history (it was taken for a continuation, and the model
    was sent the original text)."""
    fold = ContextFold(50_000, "gpt-4o")
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "My API key is sk-live-1234. " + TASK},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Go on."},
    ]
    with ChatModelServer(AgentScript(turns=3), window=50_000) as server:
        fold.completion(**request(server, history, "edit"))
        first = fold.manager("edit")
        edited = [dict(m) for m in history]
        edited[1]["content"] = "My API key is [redacted]. " + TASK
        fold.completion(**request(server, [*edited, {"role": "user", "content": "Next."}], "edit"))
    sent = server.log.accepted[-1]["messages"]
    assert sent[1]["content"].startswith("My API key is [redacted].")
    assert "sk-live-1234" not in json.dumps(sent)
    assert fold.manager("edit") is not first  # started again from the edited history
