"""LangChain `create_agent` with `ContextFoldMiddleware`, against the strict local server."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

import contextfold as cf
from contextfold.integrations.langchain import ContextFoldMiddleware
from contextfold.testing import FixedCounter

from ..servers.chat_model import FINAL, AgentScript, ChatModelServer, rules_everywhere, source_file

SYSTEM = "You are a careful coding agent. Use the tools to read files."
RULES = "Never push to main. The deadline is 2027-03-14."
TASK = f"Review every module. {RULES}"
LINES = 75
"""Lines per file read: about 2,500 tokens, so three reads nearly fill the 8k window."""


@tool
def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, LINES)


def chat_model(server: ChatModelServer) -> ChatOpenAI:
    key = SecretStr("test-key")
    return ChatOpenAI(model="gpt-4o", base_url=server.base_url, api_key=key, max_retries=0)


def run_agent(server: ChatModelServer, fold: ContextFoldMiddleware) -> dict[str, Any]:
    agent = create_agent(chat_model(server), [read_file], system_prompt=SYSTEM, middleware=[fold])
    result: dict[str, Any] = agent.invoke(
        {"messages": [{"role": "user", "content": TASK}]}, {"recursion_limit": 1_000}
    )
    return result


def test_a_150_turn_create_agent_loop_is_never_refused() -> None:
    script = AgentScript(turns=150)
    fold = ContextFoldMiddleware(8_192, "gpt-4o")
    with ChatModelServer(script, window=8_192) as server:
        result = run_agent(server, fold)
    log = server.log
    assert result["messages"][-1].content == FINAL
    assert log.refusals == []
    assert len(log.accepted) == 152  # 150 reads, one recall, the final answer
    assert max(log.tokens) <= 8_192
    system = {"role": "system", "content": SYSTEM}
    assert all(body["messages"][0] == system for body in log.accepted)
    assert rules_everywhere(log, "Never push to main", "2027-03-14")
    # the graph state keeps the whole history: every file read, verbatim
    reads = [m for m in result["messages"] if isinstance(m, ToolMessage) and m.name == "read_file"]
    assert len(reads) == 150
    assert reads[0].content == source_file("src/module_001.py", LINES)
    # the recall went through the agent's own tool node, answered from the archive
    (ref,) = script.recalled
    (answer,) = [m for m in result["messages"] if m.name == cf.RECALL_TOOL_NAME]
    assert isinstance(answer, ToolMessage)
    assert answer.status == "success"
    assert str(answer.content).startswith(f"[cf:{ref} recalled")
    assert any(
        m.get("role") == "tool" and str(m["content"]).startswith(f"[cf:{ref} recalled")
        for body in log.accepted
        for m in body["messages"]
    )
    report = fold.report()
    assert report is not None
    assert report.fits


def test_unchanged_messages_reach_the_model_as_the_framework_made_them() -> None:
    fold = ContextFoldMiddleware(8_192, "gpt-4o")
    with ChatModelServer(AgentScript(turns=2), window=8_192) as server:
        result = run_agent(server, fold)
    manager = fold.manager()
    assert manager is not None
    assert manager.last_report is None
    # a history that fits passes untouched: the server saw exactly LangChain's own request
    seen = server.log.accepted[-1]["messages"]
    assert seen[0] == {"role": "system", "content": SYSTEM}
    assert seen[1] == {"role": "user", "content": TASK}
    assert len(seen) == len(result["messages"])  # the system prompt, all but the final answer


def test_the_recall_tool_is_registered_and_answers_errors_as_tool_errors() -> None:
    fold = ContextFoldMiddleware(4_000)
    (recall,) = fold.tools
    assert recall.name == cf.RECALL_TOOL_NAME
    assert recall.args_schema == cf.recall_tool("openai-chat")["function"]["parameters"]
    call = {"name": recall.name, "args": {"ref": "r0000000000"}, "id": "c1", "type": "tool_call"}
    message = recall.invoke(call)
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert "nothing is archived under r0000000000" in message.content


def test_threads_keep_their_own_managers_and_share_the_archive() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    fold = ContextFoldMiddleware(8_192, "gpt-4o")
    with ChatModelServer(AgentScript(turns=3), window=8_192) as server:
        agent = create_agent(
            chat_model(server),
            [read_file],
            system_prompt=SYSTEM,
            middleware=[fold],
            checkpointer=InMemorySaver(),
        )
        for thread in ("a", "b"):
            config: Any = {"configurable": {"thread_id": thread}}
            agent.invoke({"messages": [{"role": "user", "content": TASK}]}, config)
    a, b = fold.manager("a"), fold.manager("b")
    assert a is not None
    assert b is not None
    assert a is not b
    assert a.archive is b.archive is fold.archive
    assert fold.manager() is None


def test_the_callers_counter_counts() -> None:
    counter = FixedCounter(per_message=10, chars_per_token=2)
    fold = ContextFoldMiddleware(8_192, "gpt-4o", counter=counter)
    with ChatModelServer(AgentScript(turns=1), window=8_192) as server:
        run_agent(server, fold)
    manager = fold.manager()
    assert manager is not None
    assert manager.counter.inner is counter


def test_bad_settings_fail_when_the_middleware_is_made() -> None:
    with pytest.raises(cf.ConfigurationError):
        ContextFoldMiddleware(0)


def test_a_rewritten_history_starts_a_fresh_manager() -> None:
    from contextfold.integrations._threads import Threads
    from contextfold.integrations.langchain import to_wire

    threads: Threads[Any] = Threads(to_wire)
    made: list[cf.ContextManager] = []

    def make(archive: cf.Archive) -> cf.ContextManager:
        made.append(cf.ContextManager(4_000, archive=archive))
        return made[-1]

    history: list[Any] = [SystemMessage("s"), HumanMessage("one"), AIMessage("two")]
    threads.view("t", history, make)
    threads.view("t", [*history, HumanMessage("three")], make)
    assert len(made) == 1
    assert len(made[0].messages()) == 4
    pairs = threads.view("t", [history[0], HumanMessage("other")], make)
    assert len(made) == 2
    assert [w["content"] for w, _ in pairs] == ["s", "other"]
    assert all(original is not None for _, original in pairs)


@pytest.mark.parametrize("budget", [100_000, 3_000, 1_500])
def test_a_message_that_is_two_chat_messages_comes_back_once_and_in_order(budget: int) -> None:
    """A HumanMessage holding Anthropic tool_result blocks (what `convert_to_messages` makes
    of an Anthropic history) is two chat messages: its tool result and its text."""
    from contextfold.integrations._threads import Threads
    from contextfold.integrations.langchain import split_view, to_wire

    history: list[Any] = [SystemMessage(SYSTEM), HumanMessage(TASK)]
    for i in range(8):
        call_id = f"toolu_{i}"
        call = {"id": call_id, "name": "read_file", "args": {"path": f"f{i}.py"}}
        result = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": source_file(call_id, 20),
        }
        history.append(AIMessage("", tool_calls=[call]))
        history.append(HumanMessage([result, {"type": "text", "text": f"Now file {i + 1}."}]))
    threads: Threads[Any] = Threads(to_wire)
    pairs = threads.view("t", history, lambda a: cf.ContextManager(budget, "gpt-4o", archive=a))
    system, messages = split_view(pairs, history[0])
    assert system is not None
    sent = [system, *messages]
    assert len({id(m) for m in sent}) == len(sent)  # no message goes out twice
    wires = [wire for message in sent for wire in to_wire(message)]
    assert cf.validate(wires, format="openai-chat") == []
    assert cf.count_tokens(wires, "gpt-4o") <= budget


def test_the_async_agent_is_compacted_too() -> None:
    import asyncio

    fold = ContextFoldMiddleware(8_192, "gpt-4o")
    script = AgentScript(turns=6)
    with ChatModelServer(script, window=8_192) as server:
        agent = create_agent(
            chat_model(server), [read_file], system_prompt=SYSTEM, middleware=[fold]
        )
        task: Any = {"messages": [{"role": "user", "content": TASK}]}
        result = asyncio.run(agent.ainvoke(task, {"recursion_limit": 100}))
    assert result["messages"][-1].content == FINAL
    assert server.log.refusals == []
    assert script.recalled  # six reads do not fit: something was folded, and recalled
    assert fold.report() is not None
