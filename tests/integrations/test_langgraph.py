"""LangGraph's prebuilt ReAct agent with `ContextFoldHook` as its `pre_model_hook`."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph.prebuilt", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent

import contextfold as cf
from contextfold.integrations.langgraph import ContextFoldHook
from contextfold.testing import FixedCounter

from ..servers.chat_model import FINAL, AgentScript, ChatModelServer, rules_everywhere, source_file
from .test_langchain import SYSTEM, TASK, chat_model, read_file

# create_react_agent still ships (and is what LangGraph users run) but warns that it moved
pytestmark = pytest.mark.filterwarnings("ignore::langgraph.warnings.LangGraphDeprecatedSinceV10")


def test_a_150_turn_react_agent_loop_is_never_refused() -> None:
    script = AgentScript(turns=150)
    hook = ContextFoldHook(8_192, "gpt-4o", prompt=SYSTEM, tools=[read_file])
    with ChatModelServer(script, window=8_192) as server:
        agent = create_react_agent(
            chat_model(server),
            [read_file, hook.recall_tool],
            prompt=SYSTEM,
            pre_model_hook=hook,
            checkpointer=InMemorySaver(),
        )
        config: Any = {"configurable": {"thread_id": "review"}, "recursion_limit": 1_000}
        result = agent.invoke({"messages": [{"role": "user", "content": TASK}]}, config)
    log = server.log
    assert result["messages"][-1].content == FINAL
    assert log.refusals == []
    assert len(log.accepted) == 152  # 150 reads, one recall, the final answer
    assert max(log.tokens) <= 8_192
    system = {"role": "system", "content": SYSTEM}
    assert all(body["messages"][0] == system for body in log.accepted)
    assert all(m != system for body in log.accepted for m in body["messages"][1:])  # once only
    assert rules_everywhere(log, "Never push to main", "2027-03-14")
    # llm_input_messages leaves the state alone: it holds every read in full
    reads = [m for m in result["messages"] if isinstance(m, ToolMessage) and m.name == "read_file"]
    assert len(reads) == 150
    assert "[cf:" not in str(reads[0].content)
    (ref,) = script.recalled
    (answer,) = [m for m in result["messages"] if m.name == cf.RECALL_TOOL_NAME]
    assert str(answer.content).startswith(f"[cf:{ref} recalled")
    manager = hook.manager("review")
    assert manager is not None
    assert hook.report("review") is manager.last_report
    assert manager.last_report is not None
    assert manager.last_report.fits


def test_without_a_prompt_a_leading_system_message_is_kept_in_place() -> None:
    hook = ContextFoldHook(8_192, "gpt-4o")
    with ChatModelServer(AgentScript(turns=1), window=8_192) as server:
        agent = create_react_agent(chat_model(server), [read_file], pre_model_hook=hook)
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
        agent.invoke({"messages": messages})
    assert all(
        body["messages"][:2] == [{"role": "system", "content": SYSTEM}, messages[1]]
        for body in server.log.accepted
    )


def test_the_async_agent_finds_its_thread() -> None:
    import asyncio

    hook = ContextFoldHook(8_192, "gpt-4o", prompt=SYSTEM, tools=[read_file])
    script = AgentScript(turns=6)
    with ChatModelServer(script, window=8_192) as server:
        agent = create_react_agent(
            chat_model(server),
            [read_file, hook.recall_tool],
            prompt=SYSTEM,
            pre_model_hook=hook,
            checkpointer=InMemorySaver(),
        )
        config: Any = {"configurable": {"thread_id": "async"}}
        task = {"messages": [{"role": "user", "content": TASK}]}
        result = asyncio.run(agent.ainvoke(task, config))
    assert result["messages"][-1].content == FINAL
    assert server.log.refusals == []
    assert script.recalled
    assert hook.report("async") is not None
    assert hook.manager() is None


def test_tools_given_as_plain_functions_are_budgeted_for() -> None:
    """`create_react_agent` takes plain functions as tools; the hook counts their schemas too."""

    def read_file(path: str) -> str:
        return source_file(path, 40)

    read_file.__doc__ = "Read a file of the repository. " + "Paths are relative to the root. " * 150
    window = 4_000
    hook = ContextFoldHook(window, "gpt-4o", prompt=SYSTEM, tools=[read_file])
    with ChatModelServer(AgentScript(turns=8), window=window) as server:
        agent = create_react_agent(
            chat_model(server), [read_file], prompt=SYSTEM, pre_model_hook=hook
        )
        result = agent.invoke({"messages": [{"role": "user", "content": TASK}]})
    assert result["messages"][-1].content == FINAL
    assert server.log.refusals == []
    assert max(server.log.tokens) <= window


def test_the_callers_counter_counts() -> None:
    counter = FixedCounter(per_message=10, chars_per_token=2)
    hook = ContextFoldHook(8_192, "gpt-4o", prompt=SYSTEM, counter=counter)
    with ChatModelServer(AgentScript(turns=1), window=8_192) as server:
        agent = create_react_agent(chat_model(server), [read_file], pre_model_hook=hook)
        agent.invoke({"messages": [{"role": "user", "content": TASK}]})
    manager = hook.manager()
    assert manager is not None
    assert manager.counter.inner is counter
