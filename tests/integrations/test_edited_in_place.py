"""A history edited in place is sent as edited, in every integration.

A caller that redacts an earlier message of the history it re-sends by changing the very
object (a dict's value, a LangChain message's `content`, a pydantic-ai part's `content`)
hands the integration the same objects it saw before. The continuation check compares
their content with what was fed, so the edit is seen: no request after it carries the
old text, neither verbatim nor in a summary, a marker or the card.

Each framework's own loop runs against the strict local chat model server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from ..servers.chat_model import AgentScript, ChatModelServer, source_file

SYSTEM = "You are a careful coding agent. Use the tools to read files."
SECRET = "sk-live-1234"
SAID = f"The deploy key is {SECRET}. Never push to main. Review every module."
REDACTED = "The deploy key is [redacted]. Never push to main. Review every module."
BUDGET = 3_000
LINES = 20
"""Lines per file read: about 700 tokens, so a few reads pass the budget."""


def leaked(bodies: list[dict[str, Any]]) -> list[int]:
    """The requests (by index) that carry the secret."""
    return [i for i, body in enumerate(bodies) if SECRET in json.dumps(body["messages"])]


# LiteLLM's own TypedDicts make pydantic warn when it builds their schemas (not ours to fix)
@pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")
def test_litellm() -> None:
    pytest.importorskip("litellm", reason="the litellm extra is not installed")
    from contextfold.integrations.litellm import ContextFold

    from ..servers.chat_model import READ_FILE

    fold = ContextFold(50_000, "gpt-4o")
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": SAID},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Go on."},
    ]
    with ChatModelServer(AgentScript(turns=3), window=50_000) as server:
        request = {
            "model": "openai/gpt-4o", "api_base": server.base_url, "api_key": "k",
            "tools": [READ_FILE], "metadata": {"contextfold_session": "s"},
        }  # fmt: skip
        fold.completion(messages=history, **request)
        history[1]["content"] = REDACTED  # the very dict fed before
        history.append({"role": "user", "content": "Next."})
        fold.completion(messages=history, **request)
    assert leaked(server.log.accepted) == [0]
    assert "key is [redacted]" in json.dumps(server.log.accepted[-1]["messages"])


def test_openai_agents() -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
    from openai import AsyncOpenAI

    from contextfold.integrations.openai_agents import ContextFoldFilter

    set_tracing_disabled(True)
    fold = ContextFoldFilter(50_000, "gpt-4o")
    history: list[Any] = [
        {"role": "user", "content": SAID},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Go on."},
    ]

    async def main(server: ChatModelServer) -> None:
        async with AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
            model = OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)
            agent: Agent[Any] = Agent(name="a", instructions=SYSTEM, model=model)
            await Runner.run(agent, history, run_config=fold.run_config())
            history[0]["content"] = REDACTED  # the very dict fed before
            history.append({"role": "user", "content": "Next."})
            await Runner.run(agent, history, run_config=fold.run_config())

    with ChatModelServer(AgentScript(turns=0), window=50_000) as server:
        asyncio.run(main(server))
    assert leaked(server.log.accepted) == [0]
    assert "key is [redacted]" in json.dumps(server.log.accepted[-1]["messages"])


def test_pydantic_ai() -> None:
    pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
    from pydantic_ai import Agent
    from pydantic_ai.messages import UserPromptPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    from contextfold.integrations.pydantic_ai import ContextFoldProcessor

    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, LINES)

    fold = ContextFoldProcessor(BUDGET, "gpt-4o")
    script = AgentScript(turns=1)

    async def main(server: ChatModelServer) -> None:
        provider = OpenAIProvider(base_url=server.base_url, api_key="k")
        async with provider.client:
            model = OpenAIChatModel("gpt-4o", provider=provider)
            agent = Agent(
                model, system_prompt=SYSTEM, capabilities=[fold.capability()], tools=[read_file]
            )
            limits = UsageLimits(request_limit=None)
            history = (await agent.run(SAID, usage_limits=limits)).all_messages()
            said = [
                p for m in history for p in m.parts
                if isinstance(p, UserPromptPart) and p.content == SAID
            ]  # fmt: skip
            said[0].content = REDACTED  # the very part fed before
            script.turns += 16
            await agent.run("Go on.", message_history=history, usage_limits=limits)

    with ChatModelServer(script, window=BUDGET) as server:
        asyncio.run(main(server))
    first_run = 2  # one read, the answer: then the edit
    assert leaked(server.log.accepted[first_run:]) == []
    assert "key is [redacted]" in json.dumps(server.log.accepted[first_run]["messages"])
    assert fold.report is not None
    assert fold.report.compacted  # the edited message went through a compaction
    assert fold.restarts == 1  # the edit was seen


def test_langchain() -> None:
    pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
    pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from contextfold.integrations.langchain import ContextFoldMiddleware

    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, LINES)

    fold = ContextFoldMiddleware(BUDGET, "gpt-4o")
    script = AgentScript(turns=1)
    with ChatModelServer(script, window=BUDGET) as server:
        model = ChatOpenAI(
            model="gpt-4o", base_url=server.base_url, api_key=SecretStr("k"), max_retries=0
        )
        agent = create_agent(model, [read_file], system_prompt=SYSTEM, middleware=[fold])
        limit: Any = {"recursion_limit": 1_000}
        messages = agent.invoke({"messages": [HumanMessage(SAID)]}, limit)["messages"]
        first_run = len(server.log.accepted)
        said = [m for m in messages if m.content == SAID]
        said[0].content = REDACTED  # the very message fed before
        script.turns += 8
        agent.invoke({"messages": [*messages, HumanMessage("Go on.")]}, limit)
    assert leaked(server.log.accepted[first_run:]) == []
    assert "key is [redacted]" in json.dumps(server.log.accepted[first_run]["messages"])
    report = fold.report()
    assert report is not None
    assert report.compacted  # the edited message went through a compaction
