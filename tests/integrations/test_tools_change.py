"""A conversation whose model calls offer other tools than before is counted with the
tools each call sends (LiteLLM, LangChain): a manager made for the first call's tools
would count them for the rest of the conversation.

A caller's loop that unlocks more tools after a few turns (a LiteLLM loop passing other
`tools=`, a LangChain middleware choosing the tools per call) runs against the strict
local server, which counts the tool schemas of every request; the budget is the window.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..servers.chat_model import READ_FILE, AgentScript, Body, ChatModelServer, source_file

pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

SYSTEM = "You are a careful coding agent. Use the tools to read files."
TASK = "Review every module. Never push to main."
WINDOW = 6_000
UNLOCKED_AT = 4
"""The model call from which the tracker tools are offered too."""


def tracker_tools(count: int) -> list[Body]:
    """Tools with wide schemas: about 150 tokens each."""
    about = "A field of the ticket; see the tracker's documentation for its allowed values."
    properties = {f"field_{k}": {"type": "string", "description": about} for k in range(8)}
    schema = {"type": "object", "properties": properties}
    return [
        {
            "type": "function",
            "function": {"name": f"tracker_{i}", "description": "Update.", "parameters": schema},
        }
        for i in range(count)
    ]


TRACKERS = tracker_tools(14)


def check(server: ChatModelServer) -> None:
    log = server.log
    assert log.refusals == []
    assert max(log.tokens) <= WINDOW
    offered = [len(body["tools"]) for body in log.accepted]
    assert offered[0] < offered[-1]  # the tools did change


@pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")
def test_litellm() -> None:
    pytest.importorskip("litellm", reason="the litellm extra is not installed")
    from contextfold.integrations.litellm import ContextFold

    fold = ContextFold(WINDOW, "gpt-4o", recall=False)
    history: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    with ChatModelServer(AgentScript(turns=14), window=WINDOW) as server:
        for turn in range(40):
            tools = [READ_FILE, *(TRACKERS if turn >= UNLOCKED_AT else [])]
            response = fold.completion(
                model="openai/gpt-4o", api_base=server.base_url, api_key="k",
                messages=history, tools=tools, metadata={"contextfold_session": "s"},
            )  # fmt: skip
            message = response.choices[0].message
            history.append(message)
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                path = json.loads(call.function.arguments)["path"]
                content = source_file(path, 45)
                history.append({"role": "tool", "tool_call_id": call.id, "content": content})
    check(server)


def test_langchain() -> None:
    pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
    pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from contextfold.integrations.langchain import ContextFoldMiddleware

    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, 45)

    class Unlock(AgentMiddleware):
        """Offers the tracker tools (provider-side, as dicts) from the fourth call on."""

        calls = 0

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            Unlock.calls += 1
            if Unlock.calls > UNLOCKED_AT:
                request = request.override(tools=[*request.tools, *TRACKERS])
            return handler(request)

    fold = ContextFoldMiddleware(WINDOW, "gpt-4o", recall=False)
    with ChatModelServer(AgentScript(turns=14), window=WINDOW) as server:
        model = ChatOpenAI(
            model="gpt-4o", base_url=server.base_url, api_key=SecretStr("k"), max_retries=0
        )
        agent = create_agent(model, [read_file], system_prompt=SYSTEM, middleware=[Unlock(), fold])
        agent.invoke({"messages": [{"role": "user", "content": TASK}]}, {"recursion_limit": 200})
    check(server)
