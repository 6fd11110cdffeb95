"""What the test upstream answers, in each provider's exact shapes (bodies and streams)."""

from __future__ import annotations

import json
from typing import Any

MODEL_TEXT = "Done: the files are read."


def max_output(body: dict[str, Any], fmt: str) -> int:
    keys = {
        "openai-chat": ("max_completion_tokens", "max_tokens"),
        "openai-responses": ("max_output_tokens",),
        "anthropic": ("max_tokens",),
    }[fmt]
    return next((int(body[k]) for k in keys if isinstance(body.get(k), int)), 0)


def error(fmt: str, why: str, tokens: int, window: int) -> dict[str, Any]:
    """The provider's 400 body."""
    if fmt == "anthropic":
        message = (
            f"prompt is too long: {tokens} tokens > {window} maximum"
            if why.startswith("too long")
            else why
        )
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    code = "context_length_exceeded" if why.startswith("too long") else "invalid_value"
    message = (
        f"This model's maximum context length is {window} tokens. However, your messages "
        f"resulted in {tokens} tokens. ({why})"
        if why.startswith("too long")
        else why
    )
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": code,
        }
    }


BREAKPOINTS = 4
"""Blocks with `cache_control` Anthropic accepts in one request."""


def breakpoint_problems(fmt: str, raw: bytes) -> list[str]:
    """Anthropic's refusal of a request with too many cache breakpoints."""
    found = raw.count(b'"cache_control"')
    if fmt != "anthropic" or found <= BREAKPOINTS:
        return []
    return [f"A maximum of {BREAKPOINTS} blocks with cache_control may be provided. Found {found}."]


def reasoning_problems(body: dict[str, Any]) -> list[str]:
    """DeepSeek's refusal of an assistant tool call message without its reasoning."""
    messages = body.get("messages")
    return [
        f"Missing `reasoning_content` field in the assistant message at message index {i}"
        for i, m in enumerate(messages if isinstance(messages, list) else [])
        if isinstance(m, dict)
        and m.get("role") == "assistant"
        and m.get("tool_calls")
        and not isinstance(m.get("reasoning_content"), str)
    ]


def add_reasoning(answer: Any, reasoning: str, turn: int) -> None:
    """A chat answer (a body, or its stream's events) with `reasoning` before the rest,
    as DeepSeek's thinking mode sends it."""
    if isinstance(answer, dict):
        answer["choices"][0]["message"]["reasoning_content"] = reasoning
        return
    halves = (reasoning[: len(reasoning) // 2], reasoning[len(reasoning) // 2 :])
    for at, piece in enumerate(halves, start=1):  # after the role chunk
        choice = {"index": 0, "delta": {"reasoning_content": piece}, "finish_reason": None}
        chunk = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "created": 0}
        answer.insert(at, _sse({**chunk, "model": "m", "choices": [choice]}))


def tool_results(fmt: str, item: Any) -> list[tuple[str, bool]]:
    """(text, is_error) of the tool results in one request item."""
    if not isinstance(item, dict):
        return []
    if fmt == "openai-chat" and item.get("role") == "tool":
        return [(str(item.get("content")), False)]
    if fmt == "openai-responses" and item.get("type") == "function_call_output":
        return [(str(item.get("output")), False)]
    if fmt == "anthropic" and isinstance(item.get("content"), list):
        return [
            (_text(b.get("content")), bool(b.get("is_error")))
            for b in item["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
    return []


def answered_ids(fmt: str, item: Any) -> list[str]:
    """The call ids the tool results in `item` answer."""
    if not isinstance(item, dict):
        return []
    if fmt == "openai-chat":
        return [str(item["tool_call_id"])] if item.get("role") == "tool" else []
    if fmt == "openai-responses":
        return [str(item["call_id"])] if item.get("type") == "function_call_output" else []
    blocks = item.get("content")
    if not isinstance(blocks, list):
        return []
    return [str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]


def call_id(fmt: str, turn: int) -> str:
    """The id of the call the answer of `turn` makes."""
    return f"toolu_{turn:05d}" if fmt == "anthropic" else f"call_{turn}"


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content)


def answer(
    fmt: str,
    body: dict[str, Any],
    call: tuple[str, dict[str, Any]],
    turn: int,
    tokens: int,
    *,
    stream: bool,
    reasoning: str = "",
) -> Any:
    """A tool call answer: a body, or the list of SSE events that stream it (a Responses
    answer opens with a reasoning item when `reasoning` is given)."""
    name, args = call
    model = str(body.get("model"))
    if not name:
        return _text_stream(fmt, model, turn) if stream else _text_body(fmt, model, turn)
    if fmt == "openai-chat":
        return (
            _chat_stream(model, name, args, turn)
            if stream
            else _chat(model, name, args, turn, tokens)
        )
    if fmt == "anthropic":
        return (
            _anthropic_stream(model, name, args, turn, tokens)
            if stream
            else _anthropic(model, name, args, turn, tokens)
        )
    done = _responses(model, name, args, turn, tokens)
    if reasoning:
        done["output"].insert(0, _reasoning_item(body, reasoning, turn))
    return _responses_stream(done) if stream else done


def _reasoning_item(body: dict[str, Any], reasoning: str, turn: int) -> dict[str, Any]:
    """The reasoning item a Responses answer opens with (its encrypted content only when
    the request includes it, as the API does)."""
    item: dict[str, Any] = {"id": f"rs_{turn}", "type": "reasoning", "summary": []}
    if "reasoning.encrypted_content" in (body.get("include") or []):
        item["encrypted_content"] = "gAAAA" + reasoning.encode().hex()
    return item


def unstored_problems(body: dict[str, Any]) -> list[str]:
    """The Responses API's refusal of a reasoning item it cannot read: with `store` false
    nothing is kept server side, so an item needs its encrypted content."""
    items = body.get("input")
    if body.get("store") is not False or not isinstance(items, list):
        return []
    return [
        f"Item with id {item.get('id')!r} not found. Items are not persisted when `store` is "
        "set to false. Try again with `store` set to true, or remove this item from your input."
        for item in items
        if isinstance(item, dict)
        and item.get("type") == "reasoning"
        and not item.get("encrypted_content")
    ]


def _chat(model: str, name: str, args: dict[str, Any], turn: int, tokens: int) -> dict[str, Any]:
    call = {
        "id": f"call_{turn}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
    return {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 12, "total_tokens": tokens + 12},
    }


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def chat_text_chunk(text: str, turn: int) -> bytes:
    """A chat stream chunk carrying `text`."""
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None, "logprobs": None}
    chunk = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "created": 0}
    return _sse({**chunk, "model": "gpt-4o", "choices": [choice]})


def responses_text_event(text: str, sequence: int) -> bytes:
    """A Responses stream's text delta carrying `text`."""
    delta = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0}
    data = {**delta, "content_index": 0, "delta": text, "sequence_number": sequence}
    return _sse(data, "response.output_text.delta")


def _chat_stream(model: str, name: str, args: dict[str, Any], turn: int) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return _sse(
            {
                "id": f"chatcmpl-{turn}",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
            }
        )

    start = {
        "index": 0,
        "id": f"call_{turn}",
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    text = json.dumps(args)
    return [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [start]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": text[: len(text) // 2]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": text[len(text) // 2 :]}}]}),
        chunk({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]


def _anthropic(
    model: str, name: str, args: dict[str, Any], turn: int, tokens: int
) -> dict[str, Any]:
    return {
        "id": f"msg_{turn}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "tool_use", "id": f"toolu_{turn:05d}", "name": name, "input": args}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": tokens, "output_tokens": 12},
    }


def _anthropic_stream(
    model: str, name: str, args: dict[str, Any], turn: int, tokens: int
) -> list[bytes]:
    message = {**_anthropic(model, name, args, turn, tokens), "content": [], "stop_reason": None}
    block = {"type": "tool_use", "id": f"toolu_{turn:05d}", "name": name, "input": {}}
    text = json.dumps(args)
    delta = {"type": "input_json_delta", "partial_json": text}
    return _anthropic_events(message, block, [delta], "tool_use", 12)


def _anthropic_events(
    message: dict[str, Any],
    block: dict[str, Any],
    deltas: list[dict[str, Any]],
    stop: str,
    tokens: int,
) -> list[bytes]:
    """An Anthropic stream of one content block: start, its deltas, stop, the end."""
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    return [
        _sse({"type": "message_start", "message": message}, "message_start"),
        _sse(start, "content_block_start"),
        *(
            _sse({"type": "content_block_delta", "index": 0, "delta": d}, "content_block_delta")
            for d in deltas
        ),
        _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": tokens},
            },
            "message_delta",
        ),
        _sse({"type": "message_stop"}, "message_stop"),
    ]


def _responses(
    model: str, name: str, args: dict[str, Any], turn: int, tokens: int
) -> dict[str, Any]:
    item = {
        "type": "function_call",
        "id": f"fc_{turn}",
        "call_id": f"call_{turn}",
        "name": name,
        "arguments": json.dumps(args),
        "status": "completed",
    }
    return {
        "id": f"resp_{turn}",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": "completed",
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": tokens,
            "output_tokens": 12,
            "total_tokens": tokens + 12,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _responses_stream(done: dict[str, Any]) -> list[bytes]:
    started = {**done, "status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": started}]
    for index, item in enumerate(done["output"]):
        events += _item_events(index, item)
    events.append({"type": "response.completed", "response": done})
    return [_sse({**e, "sequence_number": n}, e["type"]) for n, e in enumerate(events)]


def _item_events(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    """One output item's events: added, its arguments for a call, done."""
    if item["type"] != "function_call":
        added = {"type": "response.output_item.added", "output_index": index, "item": item}
        return [added, {"type": "response.output_item.done", "output_index": index, "item": item}]
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": index,
            "item_id": item["id"],
            "delta": item["arguments"],
        },
        {
            "type": "response.function_call_arguments.done",
            "output_index": index,
            "item_id": item["id"],
            "arguments": item["arguments"],
        },
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


PIECES = ("Done: ", "the files ", "are read.")


def _text_body(fmt: str, model: str, turn: int) -> dict[str, Any]:
    """A plain text answer."""
    if fmt == "openai-chat":
        reply = _chat(model, "x", {}, turn, 0)
        message = {"role": "assistant", "content": MODEL_TEXT}
        reply["choices"][0].update(message=message, finish_reason="stop")
        return reply
    if fmt == "anthropic":
        reply = _anthropic(model, "x", {}, turn, 0)
        return {
            **reply,
            "content": [{"type": "text", "text": MODEL_TEXT}],
            "stop_reason": "end_turn",
        }
    reply = _responses(model, "x", {}, turn, 0)
    return {**reply, "output": [_message_item(turn, MODEL_TEXT)]}


def _output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def _message_item(turn: int, text: str) -> dict[str, Any]:
    content = [_output_text(text)]
    return {
        "type": "message",
        "id": f"msg_{turn}",
        "status": "completed",
        "role": "assistant",
        "content": content,
    }


def _text_stream(fmt: str, model: str, turn: int) -> list[bytes]:
    """A text answer streamed in several deltas."""
    if fmt == "openai-chat":

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return _sse(
                {
                    "id": f"chatcmpl-{turn}",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [choice],
                }
            )

        pieces = [chunk({"content": p}) for p in PIECES]
        return [
            chunk({"role": "assistant", "content": ""}),
            *pieces,
            chunk({}, "stop"),
            b"data: [DONE]\n\n",
        ]
    if fmt == "anthropic":
        message = {**_anthropic(model, "x", {}, turn, 0), "content": [], "stop_reason": None}
        deltas = [{"type": "text_delta", "text": p} for p in PIECES]
        block = {"type": "text", "text": ""}
        return _anthropic_events(message, block, deltas, "end_turn", 5)
    done = _text_body(fmt, model, turn)
    where = {"item_id": f"msg_{turn}", "output_index": 0, "content_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**done, "status": "in_progress", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**_message_item(turn, ""), "content": [], "status": "in_progress"},
        },
        {**where, "type": "response.content_part.added", "part": _output_text("")},
        *(
            {**where, "type": "response.output_text.delta", "delta": p, "logprobs": []}
            for p in PIECES
        ),
        {**where, "type": "response.output_text.done", "text": MODEL_TEXT, "logprobs": []},
        {**where, "type": "response.content_part.done", "part": _output_text(MODEL_TEXT)},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": _message_item(turn, MODEL_TEXT),
        },
        {"type": "response.completed", "response": done},
    ]
    return [_sse({**e, "sequence_number": n}, e["type"]) for n, e in enumerate(events)]
