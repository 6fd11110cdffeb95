"""contextfold for pydantic-ai: a history processor and the recall tool.

Rules:
1. `ContextFoldProcessor` is a pydantic-ai history processor, added with
   `Agent(capabilities=[fold.capability()])` (pydantic-ai 2 dropped `history_processors=`
   for the `ProcessHistory` capability, which this wraps). Before every model request it
   hands the history to one `cf.ContextManager` (OpenAI chat wire format) and returns the
   manager's view as pydantic-ai messages; pydantic-ai keeps that view as the history.
2. A call costs O(new messages): the next call's history starts with the very messages
   the previous call returned, so only what follows them is added. Any other history
   (another conversation, an edited one) starts the manager again from the whole history;
   the archive is kept, so references shown earlier still recall.
3. The mapping to the wire is the one pydantic-ai's OpenAI chat model makes: each request
   part is one message (system, user, tool; the legacy `RetryPromptPart` naming a tool is
   that call's tool message), each response one assistant message with its thinking (in
   the <think> tags pydantic-ai sends it back in), text and tool calls. Images and text
   files count as the images and text they are sent as (a tool's files go in its tool
   message, not in the trailing user message pydantic-ai moves them to). Parts without
   an OpenAI chat form (other files, native tools) count as their text; they travel only
   inside messages that come back unchanged.
4. Messages that come back unchanged are the original objects (timestamps, usage and
   provider details kept), found by the identity of the neutral message the manager keeps
   for each; a request whose parts all come back together stays one request.
   Compaction artifacts become new parts: a summary a `CompactionPart` (pydantic-ai sends
   it as a summary in the user's voice), the user's rules and markers user and tool text.
5. The provider's reported input tokens on each response calibrate the manager's counts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any, TypeAlias

import contextfold as cf

from ._factory import manager_factory
from ._locks import holding

try:
    from pydantic_ai import BinaryContent, ImageUrl, TextContent, Tool
    from pydantic_ai.capabilities import ProcessHistory
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
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "contextfold.integrations.pydantic_ai needs pydantic-ai 1.87 or later: "
        "pip install 'contextfold[pydantic-ai]' --upgrade"
    ) from exc
try:  # pydantic-ai releases since late 2026 split feedback that answers no call off retries
    from pydantic_ai.messages import RetryFeedbackPart
except ImportError:  # pragma: no cover - older releases have only RetryPromptPart
    RetryFeedbackPart = RetryPromptPart  # type: ignore[misc,assignment]

__all__ = ["ContextFoldProcessor", "recall_tool"]

_FORMAT = "openai-chat"
Wire: TypeAlias = dict[str, Any]
Origin: TypeAlias = tuple[cf.Message, ModelRequestPart | ModelResponse, ModelMessage]
"""A message the manager holds, and the part (or whole response) it came from with its
pydantic-ai message. Keyed by the neutral message's identity, which the manager keeps for
messages a compaction leaves unchanged; the entry holds the message so the id stays its."""


def recall_tool(archive: cf.Archive) -> Tool[Any]:
    """The recall tool as a pydantic-ai `Tool` answering from `archive`."""
    spec = cf.recall_tool(_FORMAT)
    function = spec["function"]
    assert isinstance(function, dict)

    def contextfold_recall(ref: str, offset: int | None = None, limit: int | None = None) -> str:
        text, _is_error = cf.answer_recall(archive, {"ref": ref, "offset": offset, "limit": limit})
        return text

    return Tool.from_schema(
        contextfold_recall,
        name=cf.RECALL_TOOL_NAME,
        description=str(function["description"]),
        json_schema=function["parameters"],
    )


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


def _wires(message: ModelMessage) -> list[tuple[Wire, Source]]:
    if isinstance(message, ModelResponse):
        return [(_response_wire(message), (message, message))]
    return [(_request_wire(part), (part, message)) for part in message.parts]


# --- OpenAI chat wire -> pydantic-ai ------------------------------------------------------


def _new_response(wire: Wire) -> ModelResponse:
    parts: list[ModelResponsePart] = []
    if wire.get("content"):
        parts.append(TextPart(_text(wire["content"])))
    for call in wire.get("tool_calls") or []:
        function = call["function"]
        parts.append(ToolCallPart(function["name"], function["arguments"], call["id"]))
    return ModelResponse(parts=parts)


def _new_request_part(wire: Wire, message: cf.Message, names: dict[str, str]) -> ModelRequestPart:
    text = _text(wire.get("content"))
    if wire["role"] == "tool":
        call_id = str(wire["tool_call_id"])
        return ToolReturnPart(names.get(call_id, "tool"), text, call_id)
    if any(isinstance(p, cf.Summary) for p in message.parts):
        return CompactionPart(content=text)
    if wire["role"] in ("system", "developer"):
        return SystemPromptPart(text)
    return UserPromptPart(text)


def _tool_names(view: list[Wire]) -> dict[str, str]:
    return {
        call["id"]: call["function"]["name"]
        for wire in view
        for call in wire.get("tool_calls") or []
    }


class _Request:
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
        whole = (
            isinstance(owner, ModelRequest)
            and all(o is owner for o in self.owners)
            and len(owner.parts) == len(self.parts)
            and all(a is b for a, b in zip(owner.parts, self.parts, strict=True))
        )
        out.append(owner if whole and owner is not None else ModelRequest(parts=self.parts))
        self.parts, self.owners = [], []


class ContextFoldProcessor:
    """A pydantic-ai history processor keeping every model request within `budget` tokens."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        **options: object,
    ) -> None:
        self.budget = budget
        self.model = model
        self.archive = archive if archive is not None else cf.Archive()
        self._make = manager_factory(
            budget,
            model,
            format=_FORMAT,
            archive=self.archive,
            policy=policy,
            summarizer=summarizer,
            counter=counter,
            options=options,
        )
        self._make()  # bad settings fail here, not at the first model request
        self.manager: cf.ContextManager | None = None
        """The manager behind the latest request (None before the first)."""
        self.restarts = 0
        """Times a history did not extend the previous view and the manager started again."""
        self._sent: list[ModelMessage] = []
        self._origins: dict[int, Origin] = {}
        self._sent_view: list[cf.Message] = []
        """The manager's messages behind the view returned last."""
        self._lock = threading.Lock()

    @property
    def report(self) -> cf.Report | None:
        """The report of the latest compaction (None until one ran)."""
        return None if self.manager is None else self.manager.last_report

    def recall_tool(self) -> Tool[Any]:
        """The recall tool answering from this processor's archive; add it to the agent."""
        return recall_tool(self.archive)

    def capability(self) -> ProcessHistory[Any]:
        """This processor as the `ProcessHistory` capability an `Agent` takes."""
        return ProcessHistory(self)

    async def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The history to send: the manager's view of `messages` (rules 1-4)."""
        async with holding(self._lock):
            manager = self._manager_for(messages)
            new = messages[len(self._sent) :]
            self._observe(manager, new)
            self._add(manager, [w for message in new for w in _wires(message)])
            view = await manager.aview()
            self._sent = self._messages(manager, view)
            return list(self._sent)

    def _manager_for(self, messages: list[ModelMessage]) -> cf.ContextManager:
        sent = self._sent
        extends = (
            self.manager is not None
            and len(messages) >= len(sent)
            and all(a is b for a, b in zip(messages, sent, strict=False))
        )
        if not extends:
            self.restarts += self.manager is not None
            self.manager = self._make()
            self._sent, self._origins, self._sent_view = [], {}, []
        assert self.manager is not None
        return self.manager

    def _observe(self, manager: cf.ContextManager, new: list[ModelMessage]) -> None:
        """Calibrate with the input tokens the provider reported for the view sent last."""
        if not self._sent or not new or not isinstance(new[0], ModelResponse):
            return
        tokens = new[0].usage.input_tokens
        if tokens > 0:
            manager.observe_usage(tokens)

    def _add(self, manager: cf.ContextManager, wires: list[tuple[Wire, Source]]) -> None:
        """Add the new wires, remembering which neutral message each became."""
        before = len(self._sent_view)
        for wire, _ in wires:
            manager.add(wire)
        held = manager.messages()
        added = held[before:]
        if len(added) == len(wires):  # one message per chat wire, as the adapter reads them
            for message, (_, (part, owner)) in zip(added, wires, strict=True):
                self._origins[id(message)] = (message, part, owner)

    def _messages(self, manager: cf.ContextManager, view: list[object]) -> list[ModelMessage]:
        """The view as pydantic-ai messages (rule 4); forgets origins no longer in view."""
        wires: list[Wire] = [w for w in view if isinstance(w, dict)]
        names = _tool_names(wires)
        origins: dict[int, Origin] = {}
        out: list[ModelMessage] = []
        request = _Request()
        held = manager.messages()
        for wire, message in zip(wires, held, strict=True):
            origin = self._origins.get(id(message))
            if origin is not None and origin[0] is message:
                origins[id(message)] = origin
                found: ModelRequestPart | ModelResponse | None = origin[1]
            else:
                found = None
            if wire["role"] == "assistant":
                request.flush(out)
                out.append(found if isinstance(found, ModelResponse) else _new_response(wire))
            elif found is not None and not isinstance(found, ModelResponse):
                request.add(found, origin[2] if origin is not None else None)
            else:
                request.add(_new_request_part(wire, message, names), None)
        request.flush(out)
        self._origins = origins
        self._sent_view = held
        return out
