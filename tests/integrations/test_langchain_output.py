"""LangChain `create_agent` with a structured output: the output tools LangChain adds to
every model call after the middleware ran (`ToolStrategy`) are counted with the others.

The agent's own loop runs against the strict local server, which counts the tool schemas
of every request and refuses one over its window; the budget is the whole window.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from langchain.agents import create_agent
from langchain.agents.structured_output import AutoStrategy, ProviderStrategy, ToolStrategy
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from contextfold.integrations.langchain import ContextFoldMiddleware, output_specs

from ..servers.chat_model import AgentScript, Body, Call, ChatModelServer, Reply, source_file
from .review import Review

SYSTEM = "You are a careful coding agent. Use the tools to read files."
TASK = "Review every module. Never push to main."
WINDOW = 4_000


@tool
def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, 20)


def earlier() -> list[Any]:
    """A conversation to continue: two files read, about 2,600 tokens in all."""
    messages: list[Any] = [HumanMessage(TASK)]
    for i in range(2):
        call = {"name": "read_file", "args": {"path": f"src/old_{i}.py"}, "id": f"c{i}"}
        output = source_file(f"src/old_{i}.py", 34)
        messages += [AIMessage("", tool_calls=[call]), ToolMessage(output, tool_call_id=f"c{i}")]
    return [*messages, AIMessage("Read them."), HumanMessage("Go on.")]


def test_the_output_tools_langchain_adds_are_counted() -> None:
    agent_script = AgentScript(turns=8)
    answer = {f"area_{i}": "fine" for i in range(40)}

    def script(body: Body) -> Reply:
        reply = agent_script(body)
        return Reply(calls=(Call("Review", answer),)) if reply.text else reply

    fold = ContextFoldMiddleware(WINDOW, "gpt-4o")
    with ChatModelServer(script, window=WINDOW) as server:
        model = ChatOpenAI(
            model="gpt-4o", base_url=server.base_url, api_key=SecretStr("k"), max_retries=0
        )
        agent = create_agent(
            model,
            [read_file],
            system_prompt=SYSTEM,
            middleware=[fold],
            response_format=ToolStrategy(Review),
        )
        result: dict[str, Any] = agent.invoke({"messages": earlier()}, {"recursion_limit": 1_000})
    assert server.log.refusals == []
    assert result["structured_response"] == Review(**answer)
    assert max(server.log.tokens) <= WINDOW
    assert "Review" in {t["function"]["name"] for t in server.log.accepted[-1]["tools"]}
    report = fold.report()
    assert report is not None
    assert report.compacted  # before the output tool was counted: refused (4,744 tokens)


def test_each_kind_of_structured_output_is_counted_as_it_is_sent() -> None:
    tool: list[Any] = output_specs(ToolStrategy(Review))
    assert [spec["function"]["name"] for spec in tool] == ["Review"]
    assert output_specs(Review) == tool == output_specs(AutoStrategy(Review))
    native: list[Any] = output_specs(ProviderStrategy(Review))
    assert len(native) == 1
    assert native[0]["function"]["parameters"] == Review.model_json_schema()
    assert output_specs(None) == []
