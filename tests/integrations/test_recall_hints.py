"""Summaries and markers name the recall tool only when the model is offered it.

Each framework's own loop runs against the strict local chat model server, with and
without the recall tool; what the model is sent is read from the server's log.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import contextfold as cf

from ..servers.chat_model import FINAL, AgentScript, ChatModelServer, Log, source_file

pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

SYSTEM = "You are a careful coding agent. Use the tools to read files."
TASK = "Review every module. Never push to main."
WINDOW = 6_000
TURNS = 20
HINTS = (cf.RECALL_TOOL_NAME, "recall with offset")


def sent_texts(log: Log) -> list[str]:
    """The text of every message the model was sent."""
    return [str(m.get("content")) for body in log.accepted for m in body["messages"]]


def folded(log: Log) -> bool:
    """Whether the model was shown a compaction artifact (a summary or a marker)."""
    return any("[cf:" in text for text in sent_texts(log))


def named(log: Log) -> bool:
    """Whether the model was told of the recall tool in any message."""
    return any(hint in text for text in sent_texts(log) for hint in HINTS)


def test_langchain_names_the_recall_tool_only_when_it_registers_it() -> None:
    pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
    pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
    from langchain.agents import create_agent
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from contextfold.integrations.langchain import ContextFoldMiddleware

    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, 60)

    def run(recall: bool) -> Log:
        fold = ContextFoldMiddleware(WINDOW, "gpt-4o", recall=recall)
        with ChatModelServer(AgentScript(turns=TURNS), window=WINDOW) as server:
            model = ChatOpenAI(
                model="gpt-4o", base_url=server.base_url, api_key=SecretStr("k"), max_retries=0
            )
            agent = create_agent(model, [read_file], system_prompt=SYSTEM, middleware=[fold])
            result = agent.invoke({"messages": [{"role": "user", "content": TASK}]})
        assert result["messages"][-1].content == FINAL
        assert server.log.refusals == []
        return server.log

    without = run(recall=False)
    assert folded(without)
    assert not named(without)  # before: every summary said "recall any ref with contextfold_recall"
    with_tool = run(recall=True)
    assert folded(with_tool)
    assert named(with_tool)


def test_the_agents_sdk_filter_names_the_recall_tool_only_when_the_agent_has_it() -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    from contextfold.integrations.openai_agents import ContextFoldFilter

    set_tracing_disabled(True)

    @function_tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, 60)

    def run(recall: bool) -> Log:
        fold = ContextFoldFilter(WINDOW, "gpt-4o")
        tools: list[Any] = [read_file, *([fold.recall_tool()] if recall else [])]

        async def main(server: ChatModelServer) -> Any:
            async with AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
                model = OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)
                agent = Agent(name="r", instructions=SYSTEM, tools=tools, model=model)
                return await Runner.run(agent, TASK, run_config=fold.run_config(), max_turns=60)

        with ChatModelServer(AgentScript(turns=TURNS), window=WINDOW) as server:
            result = asyncio.run(main(server))
        assert result.final_output == FINAL
        assert server.log.refusals == []
        return server.log

    without = run(recall=False)
    assert folded(without)
    assert not named(without)
    with_tool = run(recall=True)
    assert folded(with_tool)
    assert named(with_tool)
