"""Agent loops written the way SDK users write them: OpenAI chat, OpenAI Responses and
Anthropic Messages, sync, async and streaming. Each turn answers the model's tool calls
with a large file (~2,500 tokens) and fails on any tool the agent does not know."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anthropic
import openai

SYSTEM = "You are a coding agent. Read the files you are asked about."
TASK = "Read every file of the repository, one per turn, and report on each."
MAX_OUTPUT = 512
OUTPUT_LINES = 95
KNOWN = {"read_file"}
TOOLS_CHAT = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the repository.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
TOOLS_RESPONSES = [{"type": "function", **TOOLS_CHAT[0]["function"]}]  # type: ignore[dict-item]
TOOLS_ANTHROPIC = [
    {
        "name": "read_file",
        "description": "Read a file of the repository.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]


def file_text(path: str) -> str:
    """What `read_file` returns: ~2,500 tokens of code-like lines."""
    stem = path.removesuffix(".py")
    return "".join(
        f"{stem}:{i:04d}  value_{stem}_{i} = compute(alpha={i}, beta='{stem}')  # keep\n"
        for i in range(OUTPUT_LINES)
    )


@dataclass
class Run:
    """What the agent saw."""

    calls: list[str] = field(default_factory=list)
    items: list[Any] = field(default_factory=list)


def _check(run: Run, names: list[str]) -> None:
    unknown = [n for n in names if n not in KNOWN]
    assert not unknown, f"the agent was handed tools it does not know: {unknown}"
    run.calls.extend(names)


# --- OpenAI chat ------------------------------------------------------------------------


def _chat_turn(run: Run, calls: list[dict[str, Any]]) -> None:
    _check(run, [c["function"]["name"] for c in calls])
    run.items.append({"role": "assistant", "content": None, "tool_calls": calls})
    for call in calls:
        path = json.loads(call["function"]["arguments"])["path"]
        run.items.append({"role": "tool", "tool_call_id": call["id"], "content": file_text(path)})


def _chat_start() -> Run:
    return Run(items=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}])


def chat_args(run: Run) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": run.items, "tools": TOOLS_CHAT, "max_tokens": MAX_OUTPUT}


def _chat_calls(message: Any) -> list[dict[str, Any]]:
    return [c.model_dump(exclude_none=True) for c in message.tool_calls or []]


def chat(client: openai.OpenAI, turns: int, *, stream: bool = False, **extra: Any) -> Run:
    run = _chat_start()
    for _ in range(turns):
        if stream:
            chunks = client.chat.completions.create(**chat_args(run), stream=True, **extra)
            _chat_turn(run, _chat_stream_calls(chunks))
        else:
            reply = client.chat.completions.create(**chat_args(run), **extra)
            _chat_turn(run, _chat_calls(reply.choices[0].message))
    return run


def _chat_stream_calls(chunks: Any) -> list[dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for delta in chunk.choices[0].delta.tool_calls or [] if chunk.choices else []:
            slot = calls.setdefault(
                delta.index,
                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
            )
            slot["id"] = delta.id or slot["id"]
            if delta.function is not None:
                slot["function"]["name"] += delta.function.name or ""
                slot["function"]["arguments"] += delta.function.arguments or ""
    return [calls[i] for i in sorted(calls)]


async def achat(client: openai.AsyncOpenAI, turns: int, *, stream: bool = False) -> Run:
    run = _chat_start()
    for _ in range(turns):
        if stream:
            chunks = await client.chat.completions.create(**chat_args(run), stream=True)
            collected = [chunk async for chunk in chunks]
            _chat_turn(run, _chat_stream_calls(collected))
        else:
            reply = await client.chat.completions.create(**chat_args(run))
            _chat_turn(run, _chat_calls(reply.choices[0].message))
    return run


# --- OpenAI Responses ---------------------------------------------------------------------


def _responses_turn(run: Run, output: list[Any]) -> None:
    items = [item.model_dump(exclude_none=True) for item in output]
    calls = [i for i in items if i.get("type") == "function_call"]
    _check(run, [c["name"] for c in calls])
    run.items.extend(items)
    for call in calls:
        path = json.loads(call["arguments"])["path"]
        output_item = {"type": "function_call_output", "call_id": call["call_id"]}
        run.items.append({**output_item, "output": file_text(path)})


def _responses_args(run: Run) -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "instructions": SYSTEM,
        "input": run.items,
        "tools": TOOLS_RESPONSES,
        "max_output_tokens": MAX_OUTPUT,
    }


def responses(client: openai.OpenAI, turns: int, *, stream: bool = False) -> Run:
    run = Run(items=[{"role": "user", "content": TASK}])
    for _ in range(turns):
        if stream:
            events = client.responses.create(**_responses_args(run), stream=True)
            done = [e.response for e in events if e.type == "response.completed"]
            _responses_turn(run, done[0].output)
        else:
            _responses_turn(run, client.responses.create(**_responses_args(run)).output)
    return run


async def aresponses(client: openai.AsyncOpenAI, turns: int) -> Run:
    run = Run(items=[{"role": "user", "content": TASK}])
    for _ in range(turns):
        reply = await client.responses.create(**_responses_args(run))
        _responses_turn(run, reply.output)
    return run


# --- Anthropic Messages ---------------------------------------------------------------------


def _anthropic_turn(run: Run, content: list[Any]) -> None:
    blocks = [b.model_dump(exclude_none=True) for b in content]
    calls = [b for b in blocks if b.get("type") == "tool_use"]
    _check(run, [c["name"] for c in calls])
    run.items.append({"role": "assistant", "content": blocks})
    results = [
        {"type": "tool_result", "tool_use_id": c["id"], "content": file_text(c["input"]["path"])}
        for c in calls
    ]
    run.items.append({"role": "user", "content": results})


def _anthropic_args(run: Run) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "system": SYSTEM,
        "messages": run.items,
        "tools": TOOLS_ANTHROPIC,
        "max_tokens": MAX_OUTPUT,
    }


def claude(
    client: anthropic.Anthropic, turns: int, *, stream: bool = False, marked: bool = False
) -> Run:
    """The loop; `marked`: as Claude Code asks, with cache breakpoints on the system prompt
    and on the newest message's last block (the breakpoint moves every turn)."""
    task = [{"type": "text", "text": TASK}] if marked else TASK  # Claude Code sends blocks
    run = Run(items=[{"role": "user", "content": task}])
    for _ in range(turns):
        args = _marked(_anthropic_args(run)) if marked else _anthropic_args(run)
        if stream:
            with client.messages.stream(**args) as events:
                message = events.get_final_message()
        else:
            message = client.messages.create(**args)
        _anthropic_turn(run, message.content)
    return run


def _marked(args: dict[str, Any]) -> dict[str, Any]:
    mark = {"cache_control": {"type": "ephemeral"}}
    *older, newest = args["messages"]
    blocks = newest["content"]
    newest = {**newest, "content": [*blocks[:-1], {**blocks[-1], **mark}]}
    system = [{"type": "text", "text": args["system"], **mark}]
    return {**args, "system": system, "messages": [*older, newest]}


async def aclaude(client: anthropic.AsyncAnthropic, turns: int, *, stream: bool = False) -> Run:
    run = Run(items=[{"role": "user", "content": TASK}])
    for _ in range(turns):
        if stream:
            async with client.messages.stream(**_anthropic_args(run)) as events:
                message = await events.get_final_message()
        else:
            message = await client.messages.create(**_anthropic_args(run))
        _anthropic_turn(run, message.content)
    return run
