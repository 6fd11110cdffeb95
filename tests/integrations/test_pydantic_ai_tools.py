"""The pydantic-ai capability counts the tools a request offers: function tools' schemas,
output tools and a native output's schema, as pydantic-ai's OpenAI chat model sends them.

pydantic-ai's own agent loop runs against the strict local chat model server, which counts
the tool schemas of every request and refuses one over its window, with a budget of the
whole window (no room kept for the tools).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from ..servers.chat_model import FINAL, AgentScript, Body, ChatModelServer, Reply, source_file

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from pydantic_ai import Agent, NativeOutput, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import UsageLimits

from contextfold.integrations._pydantic_ai_wire import tool_wires
from contextfold.integrations.pydantic_ai import ContextFoldProcessor

SYSTEM = "You are a careful coding agent. Use the tools to read files."
TASK = "Review every module. Never push to main."
WINDOW = 6_000


class Review(BaseModel):
    """The review's findings, one entry per module, with severity and the line it is about."""

    module: str
    severity: str
    line: int
    finding: str
    suggestion: str


def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, 45)


def tracker_tools(count: int) -> list[Tool[Any]]:
    """Tools with wide schemas: about 150 tokens each."""
    about = "A field of the ticket; see the tracker's documentation for its allowed values."
    properties = {f"field_{k}": {"type": "string", "description": about} for k in range(8)}
    schema = {"type": "object", "properties": properties, "additionalProperties": False}

    def update(**fields: str) -> str:
        return "updated"

    return [
        Tool.from_schema(
            update, name=f"tracker_{i}", description=f"Update tracker {i}.", json_schema=schema
        )
        for i in range(count)
    ]


def earlier() -> list[ModelMessage]:
    """A conversation to continue: one file read, about 3,900 tokens in all."""
    call = ToolCallPart("read_file", {"path": "src/old.py"}, "c0")
    output = ToolReturnPart("read_file", source_file("src/old.py", 115), "c0")
    return [
        ModelRequest(parts=[SystemPromptPart(SYSTEM), UserPromptPart(TASK)]),
        ModelResponse(parts=[call]),
        ModelRequest(parts=[output]),
        ModelResponse(parts=[TextPart("Read it.")]),
    ]


def run(server: ChatModelServer, fold: ContextFoldProcessor, output: Any) -> Any:
    async def main() -> Any:
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
        async with provider.client:
            model = OpenAIChatModel("gpt-4o", provider=provider)
            agent: Agent[None, Any] = Agent(
                model,
                system_prompt=SYSTEM,
                capabilities=[fold.capability()],
                tools=[read_file, *tracker_tools(14)],
                output_type=output,
            )
            limits = UsageLimits(request_limit=None)
            return await agent.run("Go on.", message_history=earlier(), usage_limits=limits)

    return asyncio.run(main())


@pytest.mark.parametrize("output", [[Review, str], NativeOutput(Review)], ids=["tool", "native"])
def test_tool_schemas_are_counted_so_no_request_outgrows_the_window(output: Any) -> None:
    fold = ContextFoldProcessor(WINDOW, "gpt-4o")
    agent = AgentScript(turns=20)
    review = Review(module="m", severity="low", line=1, finding="f", suggestion="s")
    native = isinstance(output, NativeOutput)

    def script(body: Body) -> Reply:
        reply = agent(body)
        return Reply(text=review.model_dump_json()) if native and reply.text == FINAL else reply

    with ChatModelServer(script, window=WINDOW) as server:
        # Before the tools were counted, the first request was refused (6,337 tokens).
        result = run(server, fold, output)
    assert server.log.refusals == []
    assert result.output == (review if native else FINAL)
    assert len(server.log.accepted) == 21
    assert max(server.log.tokens) <= WINDOW
    offered = {t["function"]["name"] for t in server.log.accepted[-1]["tools"]}
    assert {"read_file", "tracker_0"} <= offered
    assert fold.manager is not None
    assert fold.report is not None
    assert fold.report.compacted
    assert fold.restarts == 0  # the same tools every request: no restart


def test_other_tools_start_the_manager_again_and_are_counted() -> None:
    fold = ContextFoldProcessor(50_000, "gpt-4o")
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(TASK)])]
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}

    def tools(*names: str) -> list[dict[str, Any]]:
        definitions = [ToolDefinition(name=n, parameters_json_schema=schema) for n in names]
        return tool_wires(ModelRequestParameters(function_tools=definitions))

    asyncio.run(fold.process(history, tools("read_file")))
    assert fold.manager is not None
    one = fold.manager.tokens()
    asyncio.run(fold.process(history, tools("read_file", "write_file")))
    assert fold.restarts == 1
    assert fold.manager.tokens() > one
    asyncio.run(fold(history))  # a bare processor call: the last tools still hold
    assert fold.restarts == 1
