"""What a `mypy --strict` caller writes: contextfold's results go to the SDKs without casts.

Checked by mypy (with the rest of the repository, and on its own by test_usage.py);
never run.
"""

from __future__ import annotations

from anthropic import Anthropic, omit
from anthropic.types import MessageParam
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
from openai.types.responses import ResponseInputItemParam

import contextfold as cf

READ_FILE: ChatCompletionToolParam = {
    "type": "function",
    "function": {"name": "read_file", "parameters": {"type": "object"}},
}


def one_shot_chat(client: OpenAI, history: list[ChatCompletionMessageParam]) -> str | None:
    result = cf.compact(history, 8_000, "gpt-4o")
    print(result.report.describe())
    response = client.chat.completions.create(model="gpt-4o", messages=result.payload)
    return response.choices[0].message.content


def one_shot_responses(client: OpenAI, items: list[ResponseInputItemParam]) -> str:
    result = cf.compact(items, 8_000, "gpt-4o")
    return client.responses.create(model="gpt-4o", input=result.payload).output_text


def chat_loop(client: OpenAI) -> None:
    manager: cf.ContextManager[ChatCompletionMessageParam] = cf.ContextManager(
        8_000, "gpt-4o", system="You are a coding agent.", tools=[READ_FILE]
    )
    manager.add({"role": "user", "content": "Fix the build."})
    response = client.chat.completions.create(
        model="gpt-4o",
        messages=manager.view(),
        tools=[READ_FILE, cf.recall_tool("openai-chat")],
    )
    if response.usage is not None:
        manager.observe_usage(response.usage.prompt_tokens)
    manager.add(response.choices[0].message)


def anthropic_loop(client: Anthropic) -> None:
    manager: cf.ContextManager[MessageParam] = cf.ContextManager(
        8_000, "claude-sonnet-4-5", format="anthropic", system="You are a coding agent."
    )
    manager.add({"role": "user", "content": "Fix the build."})
    system = manager.system_prompt()
    message = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1_024,
        system=omit if system is None else system,
        messages=manager.view(),
        tools=[cf.recall_tool("anthropic")],
    )
    manager.observe_usage(message.usage)  # cache reads and writes count too
    manager.add(message)


async def untyped_manager(client: OpenAI) -> None:
    manager = cf.ContextManager(8_000, "gpt-4o")
    manager.add({"role": "user", "content": "hi"})
    client.chat.completions.create(model="gpt-4o", messages=await manager.aview())
