"""pydantic-ai messages as the OpenAI chat wire its OpenAI chat model sends, and back.

Rules (the `pydantic_ai` integration's rule 3 and 4, in detail):
1. Each request part is one chat message (system, user, tool; the legacy
   `RetryPromptPart` naming a tool is that call's tool message; a change of an
   append-mode instruction, `InstructionDeltaPart`, the system message pydantic-ai renders
   it as), each response one assistant message with its thinking (in <think> tags), text
   and function tool calls. A part the OpenAI chat model never sends (pydantic-ai's
   records: `InstructionBaselinePart`, `CapabilityLoadDeltaPart`, `ModelSettingsDeltaPart`)
   is no message: it travels with its request. Tools made available mid-run
   (`ToolAvailabilityDeltaPart`) are announced in the system voice: a system message
   naming them. No record is a user message, which would take the latest user message's
   protection.
2. Images and text files count as the images and text they are sent as; parts without an
   OpenAI chat form count as their text.
3. The tools a request offers are its function tools and output tools, each as
   pydantic-ai's OpenAI chat model maps a `ToolDefinition`; a native structured output's
   schema goes out as `response_format` and is counted as one more definition.
4. Back from the wire, compaction artifacts become new parts (a summary a `CompactionPart`);
   a request whose parts all come back together stays the original request. pydantic-ai
   sends a request's `CompactionPart` framed (a `<pyai:conversation_summary>` tag and a
   provenance line, 43 tokens for gpt-4o) and, from the first request with a frame, a
   system message announcing what frames mean (72 more): `summary_frame` is what they
   cost, held out of the manager's budget (a view holds at most one summary).
5. A request's instructions (static, dynamic, a toolset's, a prompted output's schema) are
   not in its history: its OpenAI chat model sends each part of the prefix as one system
   message after the history's leading system prompts. Parts a loaded capability states
   through the history (`'via_history'`) go out as history after the hooks and are not
   counted here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeAlias

from pydantic_ai import BinaryContent, ImageUrl, TextContent
from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.profiles import DEFAULT_PROMPTED_OUTPUT_TEMPLATE
from pydantic_ai.tools import ToolDefinition

import contextfold as cf

try:  # how pydantic-ai frames a request's CompactionPart when it sends it (rule 4)
    from pydantic_ai._framing import lookalike_note_announcement
    from pydantic_ai.models import _conversation_summary_text

    _framed: Callable[[str | None], str] | None = _conversation_summary_text
except ImportError:  # pragma: no cover - a release that renamed them: a generous stand-in
    _framed = None

_PROBE = (
    "[cf:summary] Earlier turns folded; recall any ref with contextfold_recall.\nThe user asked."
)
_UNKNOWN_FRAME = 192
"""Tokens held for the frame when this pydantic-ai release does not say how it frames."""


def summary_frame(model: str | None, counter: cf.TokenCounter | None) -> int:
    """Tokens pydantic-ai adds to a request for a summary it sends (rule 4): the frame
    around it and the system message announcing what frames mean, which it sends the
    first time a conversation has a frame; counted as the manager counts (`counter`, else
    the model's), with a token for the joins."""
    if _framed is None:
        return _UNKNOWN_FRAME
    chosen = counter if counter is not None else cf.counter_for(model, "openai-chat")

    def count(role: str, text: str) -> int:
        return chosen.count(cf.Message(role, (cf.Text(text),)))  # type: ignore[arg-type]

    frame = count("user", _framed(_PROBE)) - count("user", _PROBE)
    announcement = count("system", lookalike_note_announcement(system_role=True))
    return max(0, frame) + announcement + 1


try:  # pydantic-ai releases since late 2026 split feedback that answers no call off retries
    from pydantic_ai.messages import RetryFeedbackPart
except ImportError:  # pragma: no cover - older releases have only RetryPromptPart
    RetryFeedbackPart = RetryPromptPart  # type: ignore[misc,assignment]

try:  # pydantic-ai releases that record instructions, loads and settings in the history
    from pydantic_ai.messages import (
        CapabilityLoadDeltaPart,
        InstructionBaselinePart,
        InstructionDeltaPart,
        ModelSettingsDeltaPart,
        ToolAvailabilityDeltaPart,
    )

    _UNSENT: tuple[type, ...] = (
        InstructionBaselinePart,
        CapabilityLoadDeltaPart,
        ModelSettingsDeltaPart,
    )
except ImportError:  # pragma: no cover - older releases have none of them
    InstructionDeltaPart = ToolAvailabilityDeltaPart = SystemPromptPart  # type: ignore[misc,assignment]
    _UNSENT = ()

Wire: TypeAlias = dict[str, Any]


# --- pydantic-ai -> OpenAI chat wire ---------------------------------------------------


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return "\n".join(_item_text(v) for v in value)
    return "" if value is None else json.dumps(value, default=str)


def _item_text(item: object) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):  # a chat content part of a compaction artifact
        return str(item.get("text", item.get("type", "")))
    return type(item).__name__


def _text_like(media_type: str) -> bool:
    """Whether pydantic-ai inlines a file of this type as text (its own test, by media type)."""
    bare = media_type.split(";", 1)[0].strip()
    return bare.startswith("text/") or bare.endswith(_TEXT_SUFFIXES) or bare in _TEXT_TYPES


_TEXT_SUFFIXES = ("/json", "+json", "/xml", "+xml")
_TEXT_TYPES = frozenset({"application/x-yaml", "application/yaml", "application/toml"})


def _chat_part(item: object) -> Wire:
    """One user content item as the chat content part it is sent as: text, an image, or
    (other files) its type's name."""
    if isinstance(item, TextContent):
        return {"type": "text", "text": item.content}
    if isinstance(item, BinaryContent) and _text_like(item.media_type):
        return {"type": "text", "text": item.data.decode("utf-8", errors="replace")}
    url = item.url if isinstance(item, ImageUrl) else None
    if isinstance(item, BinaryContent) and item.is_image:
        url = item.data_uri
    if url is None or not isinstance(item, ImageUrl | BinaryContent):
        return {"type": "text", "text": _item_text(item)}
    image: Wire = {"url": url}
    if item.vendor_metadata and "detail" in item.vendor_metadata:
        image["detail"] = item.vendor_metadata["detail"]
    return {"type": "image_url", "image_url": image}


def _content(parts: list[Wire]) -> str | list[Wire]:
    """Chat content parts, as one text unless there is an image among them."""
    if any(p["type"] == "image_url" for p in parts):
        return parts
    return "\n".join(str(p["text"]) for p in parts)


def _request_wire(part: ModelRequestPart) -> Wire:
    """One request part as the chat message pydantic-ai's OpenAI model sends for it."""
    if isinstance(part, SystemPromptPart):
        return {"role": "system", "content": part.content}
    if isinstance(part, InstructionDeltaPart):
        return {"role": "system", "content": part.render()}
    if isinstance(part, ToolAvailabilityDeltaPart):
        return {"role": "system", "content": "Tools now available: " + ", ".join(part.tools_added)}
    if isinstance(part, ToolReturnPart):
        return {"role": "tool", "tool_call_id": part.tool_call_id, "content": _tool_content(part)}
    if isinstance(part, RetryPromptPart) and part.tool_name is not None:  # a tool's retry
        return {"role": "tool", "tool_call_id": part.tool_call_id, "content": part.model_response()}
    return {"role": "user", "content": _user_content(part)}


def _tool_content(part: ToolReturnPart) -> str | list[Wire]:
    """A tool result's text, with the files pydantic-ai sends after the tool results."""
    text, files = part.model_response_str_and_user_content()
    return _content([{"type": "text", "text": text}, *map(_chat_part, files)]) if files else text


def _user_content(part: ModelRequestPart) -> str | list[Wire]:
    if isinstance(part, RetryPromptPart | RetryFeedbackPart):
        return part.model_response()
    if isinstance(part, UserPromptPart):
        items = part.content
        return items if isinstance(items, str) else _content([_chat_part(i) for i in items])
    return _text(getattr(part, "content", None))


def _response_wire(message: ModelResponse) -> Wire:
    """A response as one assistant message: its thinking and text, and its function tool
    calls (pydantic-ai sends thinking back in <think> tags, or a field that counts alike)."""
    texts: list[str] = []
    calls: list[Wire] = []
    for part in message.parts:
        if isinstance(part, ToolCallPart):
            function = {"name": part.tool_name, "arguments": part.args_as_json_str()}
            calls.append({"id": part.tool_call_id, "type": "function", "function": function})
        elif isinstance(part, TextPart):
            texts.append(part.content)
        elif isinstance(part, ThinkingPart) and part.content:
            texts.append(f"<think>\n{part.content}\n</think>")
    wire: Wire = {"role": "assistant", "content": "\n\n".join(texts) or None}
    if calls:
        wire["tool_calls"] = calls
    return wire


Source: TypeAlias = tuple[ModelRequestPart | ModelResponse, ModelMessage]
"""The part (or whole response) a wire message comes from, and its pydantic-ai message."""


def sent_parts(message: ModelMessage) -> list[Any]:
    """The parts of `message` that reach the model (rule 1)."""
    return [part for part in message.parts if not isinstance(part, _UNSENT)]


def message_wires(message: ModelMessage) -> list[tuple[Wire, Source]]:
    if isinstance(message, ModelResponse):
        return [(_response_wire(message), (message, message))]
    return [(_request_wire(part), (part, message)) for part in sent_parts(message)]


# --- OpenAI chat wire -> pydantic-ai ------------------------------------------------------


def new_response(wire: Wire) -> ModelResponse:
    parts: list[ModelResponsePart] = []
    if wire.get("content"):
        parts.append(TextPart(_text(wire["content"])))
    for call in wire.get("tool_calls") or []:
        function = call["function"]
        parts.append(ToolCallPart(function["name"], function["arguments"], call["id"]))
    return ModelResponse(parts=parts)


def new_request_part(wire: Wire, message: cf.Message, names: dict[str, str]) -> ModelRequestPart:
    text = _text(wire.get("content"))
    if wire["role"] == "tool":
        call_id = str(wire["tool_call_id"])
        return ToolReturnPart(names.get(call_id, "tool"), text, call_id)
    if any(isinstance(p, cf.Summary) for p in message.parts):
        return CompactionPart(content=text)
    if wire["role"] in ("system", "developer"):
        return SystemPromptPart(text)
    return UserPromptPart(text)


def tool_names(view: list[Wire]) -> dict[str, str]:
    return {
        call["id"]: call["function"]["name"]
        for wire in view
        for call in wire.get("tool_calls") or []
    }


class Request:
    """Request parts gathered for one ModelRequest, reusing the original when whole."""

    def __init__(self) -> None:
        self.parts: list[ModelRequestPart] = []
        self.owners: list[ModelMessage | None] = []

    def add(self, part: ModelRequestPart, owner: ModelMessage | None) -> None:
        self.parts.append(part)
        self.owners.append(owner)

    def flush(self, out: list[ModelMessage]) -> None:
        if not self.parts:
            return
        owner = self.owners[0]
        sent = sent_parts(owner) if isinstance(owner, ModelRequest) else []
        whole = (
            isinstance(owner, ModelRequest)
            and all(o is owner for o in self.owners)
            and len(sent) == len(self.parts)
            and all(a is b for a, b in zip(sent, self.parts, strict=True))
        )
        out.append(owner if whole and owner is not None else ModelRequest(parts=self.parts))
        self.parts, self.owners = [], []


# --- the tools a request offers ----------------------------------------------------------


def tool_wires(parameters: ModelRequestParameters) -> list[Wire]:
    """The request's tool definitions as the OpenAI chat tools sent for them (rule 3)."""
    tools = [_tool_wire(t) for t in [*parameters.function_tools, *parameters.output_tools]]
    output = parameters.output_object
    if output is not None and parameters.output_mode == "native":
        name = output.name or "final_result"
        function = {
            "name": name,
            "description": output.description or "",
            "parameters": output.json_schema,
        }
        tools.append({"type": "function", "function": function})
    return tools


def _tool_wire(tool: ToolDefinition) -> Wire:
    function: Wire = {
        "name": tool.name,
        "description": tool.description or "",
        "parameters": tool.parameters_json_schema,
    }
    if tool.strict:
        function["strict"] = True
    return {"type": "function", "function": function}


# --- the instructions a request sends ---------------------------------------------------


def instruction_wires(parameters: ModelRequestParameters) -> list[Wire]:
    """The request's instructions as the system messages sent for them (rule 5)."""
    texts = [
        part.content
        for part in parameters.instruction_parts or []
        if parameters.instruction_visibility_of(part) == "prefix"
    ]
    if parameters.output_mode == "prompted" and parameters.prompted_output_template is None:
        parameters = replace(parameters, prompted_output_template=DEFAULT_PROMPTED_OUTPUT_TEMPLATE)
    if parameters.output_mode == "prompted" and (schema := parameters.prompted_output_instructions):
        texts.append(schema)  # the model's own preparation appends it after the hooks
    return [{"role": "system", "content": text} for text in texts]
