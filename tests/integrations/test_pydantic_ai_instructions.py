"""The pydantic-ai capability counts an agent's instructions: static `instructions=`, dynamic
`@agent.instructions` functions and a toolset's instructions reach the model as system
messages after the history's own system prompts, outside the history the processor is
handed, so they are read from the request's parameters and counted as they are sent.

pydantic-ai's own agent loop runs against the strict local chat model server, which refuses
a request over its window, with a budget of the whole window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from ..servers.chat_model import (
    FINAL,
    AgentScript,
    Body,
    ChatModelServer,
    Reply,
    rules_everywhere,
    source_file,
)

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from pydantic import BaseModel
from pydantic_ai import Agent, FunctionToolset, PromptedOutput, RunContext
from pydantic_ai.messages import (
    InstructionBaselinePart,
    InstructionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from contextfold.integrations.pydantic_ai import ContextFoldProcessor

SYSTEM = "You are a careful coding agent. Use the tools to read files."
TASK = "Review every module. Never push to main. The deadline is 2027-03-14."
WINDOW = 6_000
NO_LIMIT = UsageLimits(request_limit=None)
STYLE_GUIDE = source_file("STYLE_GUIDE.md", 75)
"""About 2,300 tokens of standing instructions: over a third of the window."""


def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, 30)


def earlier() -> list[ModelMessage]:
    """A conversation to continue: two files read, about 3,900 tokens in all."""
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart(SYSTEM), UserPromptPart(TASK)])
    ]
    for i in range(2):
        call = ToolCallPart("read_file", {"path": f"src/old_{i}.py"}, f"c{i}")
        output = ToolReturnPart("read_file", source_file(f"src/old_{i}.py", 54), f"c{i}")
        history += [ModelResponse(parts=[call]), ModelRequest(parts=[output])]
    return [*history, ModelResponse(parts=[TextPart("Read them.")])]


def agent_run(
    server: ChatModelServer,
    fold: ContextFoldProcessor,
    variant: str,
    history: list[ModelMessage] | None = None,
) -> Any:
    """One `Agent.run` of the scripted review against the local server, its instructions
    given as `variant` says; the run's output."""

    async def main() -> Any:
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
        async with provider.client:
            model = OpenAIChatModel("gpt-4o", provider=provider)
            tools = FunctionToolset([read_file, fold.recall_tool()])
            agent: Agent[None, Any] = Agent(
                model,
                capabilities=[fold.capability()],
                toolsets=[tools],
                instructions=None if variant == "toolset" else STYLE_GUIDE,
                output_type=PromptedOutput(Review) if variant == "prompted-output" else str,
            )
            if variant == "toolset":
                tools = FunctionToolset([], instructions=STYLE_GUIDE)
                agent = Agent(
                    model,
                    capabilities=[fold.capability()],
                    toolsets=[FunctionToolset([read_file, fold.recall_tool()]), tools],
                )
            if variant == "dynamic":

                @agent.instructions
                def checklist(ctx: RunContext[None]) -> str:  # different at every step
                    return f"Step {ctx.run_step}. {source_file('CHECKLIST.md', 20)}"

            result = await agent.run("Go on.", message_history=history, usage_limits=NO_LIMIT)
            return result.output

    return asyncio.run(main())


class Review(BaseModel):
    """The review's verdict."""

    verdict: str


def script(turns: int) -> Callable[[Body], Reply]:
    """The scripted review, its final answer a `Review` as JSON."""
    agent = AgentScript(turns=turns)

    def answer(body: Body) -> Reply:
        reply = agent(body)
        return Reply(text=Review(verdict=FINAL).model_dump_json()) if reply.text else reply

    return answer


VARIANTS = ["instructions", "toolset", "dynamic", "prompted-output"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_instructions_are_counted_from_the_first_request(variant: str) -> None:
    fold = ContextFoldProcessor(WINDOW, "gpt-4o")
    with ChatModelServer(script(12), window=WINDOW) as server:
        # Before they were counted, the first request was refused (6,390 tokens or more).
        agent_run(server, fold, variant, earlier())
    assert server.log.refusals == []
    assert len(server.log.accepted) == 14  # 12 reads, one recall, the answer
    assert max(server.log.tokens) <= WINDOW
    assert fold.report is not None
    assert fold.report.compacted
    assert rules_everywhere(server.log, "Never push to main", "2027-03-14", "line 74 of STYLE")
    assert all(
        body["messages"][0] == {"role": "system", "content": SYSTEM} for body in server.log.accepted
    )
    # the same instructions every request add only the new messages; others start again
    assert fold.restarts == (len(server.log.accepted) - 1 if variant == "dynamic" else 0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_instructions_counted_are_the_ones_sent(variant: str) -> None:
    fold = ContextFoldProcessor(100_000, "gpt-4o")
    with ChatModelServer(script(2), window=100_000) as server:
        agent_run(server, fold, variant)
    assert fold.manager is not None
    held = [w for w in fold.manager.view() if w["role"] == "system"]
    sent = [m for m in server.log.accepted[-1]["messages"] if m["role"] == "system"]
    assert sent == held
    assert "line 74 of STYLE" in sent[0]["content"]


def test_instructions_recorded_in_the_history_are_not_messages() -> None:
    """A toolset's append-mode instructions (an MCP server's, with `include_instructions`)
    are recorded on requests as `InstructionBaselinePart`s, which are never sent: counted
    as a message they took the latest user message's protection and it was folded away."""

    class Guide(FunctionToolset[None]):
        async def get_instructions(self, ctx: RunContext[None]) -> list[InstructionPart] | None:
            text = "Use read_file for every module." + (" Be brief." if ctx.run_step > 5 else "")
            return [InstructionPart(text, on_change="append", name="use")]  # changes once

    fold = ContextFoldProcessor(WINDOW, "gpt-4o")
    with ChatModelServer(script(20), window=WINDOW) as server:

        async def main() -> None:
            provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
            async with provider.client:
                model = OpenAIChatModel("gpt-4o", provider=provider)
                tools = Guide([read_file, fold.recall_tool()], id="guide")
                agent = Agent(model, capabilities=[fold.capability()], toolsets=[tools])
                result = await agent.run("Go on.", message_history=earlier(), usage_limits=NO_LIMIT)
                parts = [p for m in result.all_messages() for p in m.parts]
                assert any(isinstance(p, InstructionBaselinePart) for p in parts)

        asyncio.run(main())
    log = server.log
    assert log.refusals == []
    assert max(log.tokens) <= WINDOW
    latest = {"role": "user", "content": "Go on."}
    assert all(latest in body["messages"] for body in log.accepted)  # 20 of 22 before
    assert fold.report is not None
    assert fold.report.compacted
    # the change, twice: in the instructions, then as the delta pydantic-ai records on the
    # request after the hook; the baselines it records the same way start nothing
    assert fold.restarts == 2


def test_no_record_of_pydantic_ai_is_a_user_message() -> None:
    """Records pydantic-ai keeps in requests (settings changes, capability loads, tools made
    available) are not user messages: after them the latest user message is still the
    user's, and stays verbatim when the history is folded."""
    from pydantic_ai.messages import (
        CapabilityLoadDeltaPart,
        ModelSettingsDeltaPart,
        ToolAvailabilityDeltaPart,
    )

    from contextfold.integrations._pydantic_ai_wire import message_wires

    records: list[Any] = [
        ModelSettingsDeltaPart(settings={"thinking": "high"}),
        CapabilityLoadDeltaPart(loaded=["refunds"]),
        ToolAvailabilityDeltaPart(tools_added=["refund"]),
    ]
    latest = ModelRequest(parts=[UserPromptPart("Go on."), *records])
    roles = [wire["role"] for wire, _ in message_wires(latest)]
    assert roles == ["user", "system"]
    fold = ContextFoldProcessor(1_500, "gpt-4o")
    sent = asyncio.run(fold([*earlier(), latest]))
    assert sent[-1] is latest  # whole, its records with it
    assert fold.report is not None
    assert fold.report.compacted
