"""A structured output's schema is counted by the Agents SDK filter (an agent's
`output_type`) and by LiteLLM (`response_format`), as pydantic-ai and LangChain count theirs.

The model sees the schema with every request (the Chat Completions `response_format`), so a
continued conversation near the window goes over it when the schema is left out. Each
framework's loop runs against the strict local server, which counts the schema as one more
tool definition and refuses a request over its window; the budget is the window.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from ..servers.chat_model import Body, ChatModelServer, Reply, source_file
from .review import ANSWER, Review

pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

SYSTEM = "You are a careful coding agent."
TASK = "Review every module. Never push to main."
WINDOW = 4_000


def earlier() -> list[dict[str, Any]]:
    """A conversation to continue, about 2,400 tokens: two files pasted and discussed."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for i in range(2):
        pasted = f"Here is src/old_{i}.py:\n{source_file(f'src/old_{i}.py', 34)}"
        messages += [{"role": "user", "content": pasted}, {"role": "assistant", "content": "Read."}]
    return [*messages, {"role": "user", "content": "Now the review, please."}]


def answer(body: Body) -> Reply:
    return Reply(text=json.dumps(ANSWER))


def test_openai_agents() -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
    from openai import AsyncOpenAI

    from contextfold.integrations.openai_agents import ContextFoldFilter

    set_tracing_disabled(True)
    fold = ContextFoldFilter(WINDOW, "gpt-4o")

    async def main(server: ChatModelServer) -> Any:
        async with AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
            model = OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)
            agent: Agent[Any] = Agent(
                name="reviewer", instructions=SYSTEM, model=model, output_type=Review
            )
            items: list[Any] = earlier()
            return await Runner.run(agent, items, run_config=fold.run_config())

    with ChatModelServer(answer, window=WINDOW) as server:
        # Before the schema was counted: refused (4,6xx tokens).
        result = asyncio.run(main(server))
    assert server.log.refusals == []
    assert result.final_output == Review(**ANSWER)
    assert max(server.log.tokens) <= WINDOW
    assert fold.report is not None
    assert fold.report.compacted


@pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")
def test_litellm() -> None:
    pytest.importorskip("litellm", reason="the litellm extra is not installed")
    from contextfold.integrations.litellm import ContextFold

    fold = ContextFold(WINDOW, "gpt-4o", recall=False)
    with ChatModelServer(answer, window=WINDOW) as server:
        response = fold.completion(
            model="openai/gpt-4o", api_base=server.base_url, api_key="k",
            messages=[{"role": "system", "content": SYSTEM}, *earlier()],
            response_format=Review, metadata={"contextfold_session": "s"},
        )  # fmt: skip
    assert server.log.refusals == []
    assert json.loads(response.choices[0].message.content) == ANSWER
    assert max(server.log.tokens) <= WINDOW
    assert server.log.accepted[0]["response_format"]["type"] == "json_schema"
    report = fold.report("s")
    assert report is not None
    assert report.compacted
