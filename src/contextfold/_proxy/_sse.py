"""Server-sent events from upstream: split as they arrive, and read enough to assemble the
assistant's answer while they are relayed.

Rules:
1. `events` yields each event's exact bytes (its blank line included), so relaying them
   changes nothing; a trailing partial event is yielded as it is at the end.
2. An assembler reads each event's JSON `data` and builds what the non-streaming endpoint
   would have returned (a chat.completion's message, an Anthropic message's content
   blocks, a Responses response's output), so the recall loop reads both alike. A chat
   message keeps the reasoning an OpenAI-compatible thinking model streams beside its
   content (`reasoning_content`, `reasoning`); an Anthropic block keeps the input any
   tool block streams (server tools' too).
3. `decision` tells the relay when the answer is known to be for the client: the first
   text, or a call of a tool other than the recall tool, makes it LIVE; a recall call makes
   it HOLD (kept back to the end); before either it is None.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Final, Literal

import contextfold as cf

Decision = Literal["live", "hold"] | None
_REASONING: Final = ("reasoning_content", "reasoning")
"""Chat delta fields of OpenAI-compatible thinking models (DeepSeek, vLLM, OpenRouter)."""
_SEPARATORS: Final = (b"\r\n\r\n", b"\n\n", b"\r\r")


async def events(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Rule 1."""
    pending = b""
    async for chunk in chunks:
        pending += chunk
        while True:
            found = [(pending.find(s), s) for s in _SEPARATORS if s in pending]
            if not found:
                break
            at, sep = min(found)
            yield pending[: at + len(sep)]
            pending = pending[at + len(sep) :]
    if pending:
        yield pending


def data_of(event: bytes) -> Any:
    """The JSON in an event's `data:` lines, None for `[DONE]`, comments or bad JSON."""
    lines = event.decode("utf-8", "replace").splitlines()
    text = "\n".join(line[5:].removeprefix(" ") for line in lines if line.startswith("data:"))
    if not text or text == "[DONE]":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


class ChatAssembler:
    """A chat.completion from `chat.completion.chunk` events."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: dict[str, list[str]] = {}
        """Reasoning deltas by their field (`reasoning_content`, `reasoning`), in order."""
        self.calls: dict[int, dict[str, Any]] = {}
        self.decision: Decision = None
        self.usage: object = None

    def feed(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        self.usage = data.get("usage") or self.usage
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.text.append(delta["content"])
                self.decision = self.decision or "live"
            for key in _REASONING:
                if isinstance(delta.get(key), str):
                    self.reasoning.setdefault(key, []).append(delta[key])
            for call in delta.get("tool_calls") or []:
                self._call(call)

    def _call(self, delta: dict[str, Any]) -> None:
        slot = self.calls.setdefault(
            int(delta.get("index", 0)),
            {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
        )
        slot["id"] = delta.get("id") or slot["id"]
        function = delta.get("function") or {}
        if function.get("name"):
            slot["function"]["name"] += function["name"]
            recall = slot["function"]["name"] == cf.RECALL_TOOL_NAME
            self.decision = self.decision or ("hold" if recall else "live")
        slot["function"]["arguments"] += function.get("arguments") or ""

    def response(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        message.update((key, "".join(parts)) for key, parts in self.reasoning.items())
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        return {"choices": [{"index": 0, "message": message}], "usage": self.usage}


class AnthropicAssembler:
    """An Anthropic message from `message_start` ... `message_stop` events."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial: dict[int, str] = {}
        self.decision: Decision = None
        self.usage: object = None

    def feed(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        kind, index = data.get("type"), int(data.get("index", 0))
        if kind == "message_start":
            self.usage = (data.get("message") or {}).get("usage")
        elif kind == "content_block_start":
            block = dict(data.get("content_block") or {})
            self.blocks[index] = block
            if block.get("type") == "text":
                self.decision = self.decision or "live"
            elif block.get("type") == "tool_use":
                recall = block.get("name") == cf.RECALL_TOOL_NAME
                self.decision = self.decision or ("hold" if recall else "live")
        elif kind == "content_block_delta":
            self._delta(index, data.get("delta") or {})

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        match delta.get("type"):
            case "text_delta":
                block["text"] = block.get("text", "") + delta.get("text", "")
            case "input_json_delta":
                self.partial[index] = self.partial.get(index, "") + delta.get("partial_json", "")
            case "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
            case "signature_delta":
                block["signature"] = block.get("signature", "") + delta.get("signature", "")
            case _:
                pass

    def response(self) -> dict[str, Any]:
        content = []
        for index in sorted(self.blocks):
            block = dict(self.blocks[index])
            if block.get("type") == "tool_use" or index in self.partial:
                try:
                    block["input"] = json.loads(self.partial.get(index) or "{}")
                except ValueError:
                    block["input"] = {}
            content.append(block)
        return {"role": "assistant", "content": content, "usage": self.usage}


class ResponsesAssembler:
    """A Responses response from its `response.*` events (the completed one holds it all)."""

    def __init__(self) -> None:
        self.done: dict[str, Any] = {"output": []}
        self.decision: Decision = None
        self.usage: object = None

    def feed(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        kind = data.get("type")
        if kind == "response.output_item.added":
            item = data.get("item") or {}
            if item.get("type") == "message":
                self.decision = self.decision or "live"
            elif item.get("type") == "function_call":
                recall = item.get("name") == cf.RECALL_TOOL_NAME
                self.decision = self.decision or ("hold" if recall else "live")
        elif kind == "response.output_text.delta":
            self.decision = self.decision or "live"
        elif kind in ("response.completed", "response.incomplete") and data.get("response"):
            self.done = data["response"]
            self.usage = self.done.get("usage")

    def response(self) -> dict[str, Any]:
        return self.done


Assembler = ChatAssembler | AnthropicAssembler | ResponsesAssembler


def assembler(format: cf.Format) -> Assembler:
    """The assembler for `format`'s stream."""
    if format == "openai-chat":
        return ChatAssembler()
    return AnthropicAssembler() if format == "anthropic" else ResponsesAssembler()
