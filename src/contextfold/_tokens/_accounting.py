"""Message and conversation totals from a text counter, an overhead profile and an image rule.

Rules:
1. Totals are additive: `count_conversation(conv, counter) == fixed_overhead(conv, counter)
   + sum(counter.count(m) for m in conv.messages)`. The planner sums unit counts and relies
   on it. Fixed overhead is reply priming, tool definitions and the output schema (rule 6);
   everything else belongs to a message.
2. A message costs its profile's framing, its role and name when the profile counts them,
   and each part: text-like parts their text, tool calls their id, name and arguments plus
   framing, tool results their call id and inner parts, images their provider formula,
   inline documents by rule 7, other opaque parts their JSON text.
3. `floor(message)` bounds `message(message)` from below without encoding text: with a
   `floor_text` (pre-tokenizers that never put two runs of non-space characters in one
   piece, as every OpenAI encoding's does) a text costs at least one token per such run;
   without one, text counts as 0. Framing, roles and names are counted as usual.
4. A provider-hosted tool (a Responses `web_search`, `file_search` or `mcp` entry, an
   Anthropic server tool: a typed tool with no parameters) also costs its configuration
   as the JSON text it is sent as (what the provider adds for it on its side is unknown).
5. Text counts are cached per string (bounded LRU keyed by the string itself): an agent
   loop recounts the same history every turn, and that must cost dictionary lookups. The
   bound must exceed the distinct texts of the largest history compacted at once (about
   1.75 per message): a compaction reads every count several times in order, and an LRU
   smaller than that re-encodes everything on every read.
6. A request body's structured-output schema is prompt text too: Chat Completions'
   `response_format.json_schema`, Responses' `text.format` and Anthropic's
   `output_config.format` (or the beta `output_format`), when their type is
   `json_schema`, cost the JSON text of that object (name, description, schema). The
   providers render it their own way; the JSON text errs high, as a budget must.
7. An inline document (`_adapters._documents`) costs its content by `_documents`: a PDF
   its pages times a per-page figure from the text scale and the image rule, a text
   document its text; plus the rest of its part as JSON text. A PDF whose pages cannot be
   read, and a document sent by reference, cost their JSON text.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Final, assert_never

from .._adapters._documents import inline_document
from .._content_cache import TextMemo, on_clear
from .._messages import (
    Card,
    Conversation,
    Image,
    Marker,
    Message,
    Opaque,
    Part,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from ._documents import content_tokens, page_tokens
from ._images import ImageRule, image_size, image_tokens
from ._profiles import Overheads, ToolCosts
from ._protocol import TokenCounter, is_conversation_counter

__all__ = [
    "Accountant",
    "count_conversation",
    "fixed_overhead",
    "output_fields",
    "runs_of_non_space",
]

DEFAULT_CACHE_SIZE = 1 << 18
"""Distinct texts remembered: a 50,000-message history has about 90,000 (bench/speed.py)."""
CACHE_CHARS: Final = 1 << 25
"""Characters of the texts remembered, at most: a counter kept for the life of a process
holds about 32 MiB of texts alive at most (the 10,000-message history is 9 Mi)."""


class Accountant:
    """Applies one overhead profile and image rule on top of a text counter."""

    __slots__ = ("count_text", "floor_text", "images", "overheads", "per_page")

    def __init__(
        self,
        count_text: Callable[[str], int],
        overheads: Overheads,
        images: ImageRule,
        *,
        cache_size: int = DEFAULT_CACHE_SIZE,
        floor_text: Callable[[str], int] | None = None,
    ) -> None:
        scale = overheads.text_scale
        self.count_text: Callable[[str], int] = TextMemo(
            _scaled(count_text, scale), cache_size, CACHE_CHARS
        ).__getitem__
        self.floor_text: Callable[[str], int] = (
            _scaled(floor_text, scale) if floor_text else _no_text
        )
        self.overheads = overheads
        self.images = images
        self.per_page = page_tokens(images, scale)

    def message(self, message: Message) -> int:
        """Tokens one message costs, framing included."""
        profile = self.overheads
        parts = message.parts
        if len(parts) != 1:
            total = profile.per_message + sum(map(self.part, parts))
        elif type(parts[0]) is Text:  # the commonest message, without a call per part
            total = profile.per_message + self.count_text(parts[0].text)
        else:
            total = profile.per_message + self.part(parts[0])
        if profile.count_role:
            total += self.count_text(message.role)
        if message.name is not None:
            total += profile.per_name + self.count_text(message.name)
        return total

    def floor(self, message: Message) -> int:
        """A lower bound of `message(message)` that encodes no text (rule 3)."""
        profile = self.overheads
        total = profile.per_message + sum(map(self._part_floor, message.parts))
        if profile.count_role:
            total += self.count_text(message.role)
        if message.name is not None:
            total += profile.per_name + self.count_text(message.name)
        return total

    def _part_floor(self, part: Part) -> int:
        floor = self.floor_text
        match part:
            case Text() | Marker() | Summary() | Card() | Reasoning():
                return floor(part.text)
            case ToolCall():
                framing = self.overheads.per_tool_call
                return framing + floor(part.id) + floor(part.name) + floor(part.arguments)
            case ToolResult():
                return floor(part.call_id) + sum(map(self._part_floor, part.parts))
            case Image() | Opaque():
                return 0
            case _:
                assert_never(part)

    def part(self, part: Part) -> int:
        """Tokens one part costs."""
        if type(part) is Text:  # the common classes at once, each as its case in `_part`
            return self.count_text(part.text)
        if type(part) is ToolResult:
            inner = part.parts  # mostly one text: counted here, without a call per part
            if len(inner) == 1 and type(inner[0]) is Text:
                return self.count_text(part.call_id) + self.count_text(inner[0].text)
            return self.count_text(part.call_id) + sum(map(self.part, inner))
        if type(part) is ToolCall:
            text = self.count_text
            framing = self.overheads.per_tool_call
            return framing + text(part.id) + text(part.name) + text(part.arguments)
        return self._part(part)

    def _part(self, part: Part) -> int:
        text = self.count_text
        match part:
            case Text() | Marker() | Summary() | Card() | Reasoning():
                return text(part.text)
            case ToolCall():
                framing = self.overheads.per_tool_call
                return framing + text(part.id) + text(part.name) + text(part.arguments)
            case ToolResult():
                return text(part.call_id) + sum(map(self.part, part.parts))
            case Image():
                return image_tokens(self.images, _cached_size(part.source), part.detail)
            case Opaque():
                return self._opaque(part.payload)
            case _:
                assert_never(part)

    def _opaque(self, payload: Mapping[str, object]) -> int:
        """An inline document by its content (rule 7), any other part as its JSON text."""
        document = inline_document(payload)
        if document is not None:
            content = content_tokens(document, self.count_text, self.per_page)
            if content is not None:
                return content + self.count_text(_json(document.framing))
        return self.count_text(_json(payload))

    def fixed(self, conversation: Conversation) -> int:
        """Reply priming plus the tool definitions and output schema of the request."""
        profile = self.overheads
        total = profile.reply_priming
        schema = output_schema(conversation.extras) if conversation.extras else None
        if schema is not None:
            total += self.count_text(_json(schema))
        if not conversation.tools:
            return total
        total += profile.tool_prompt
        hosted = sum(self.count_text(_hosted_json(t)) for t in conversation.tools)
        if profile.tools is None:
            return total + hosted + sum(self.count_text(_tool_json(t)) for t in conversation.tools)
        costs = profile.tools
        tools = sum(self._tool(t, costs) for t in conversation.tools)
        return total + hosted + costs.func_end + tools

    def _tool(self, tool: ToolSpec, costs: ToolCosts) -> int:
        """The cookbook's count for one function definition."""
        text = self.count_text
        total = costs.func_init + text(f"{tool.name}:{(tool.description or '').removesuffix('.')}")
        properties = (tool.parameters or {}).get("properties")
        if isinstance(properties, Mapping) and properties:
            total += costs.prop_init
            for key, schema in properties.items():
                total += costs.prop_key + self._property(str(key), schema, costs)
        return total

    def _property(self, key: str, schema: object, costs: ToolCosts) -> int:
        """One property line; schema keys the cookbook ignores are counted as JSON text."""
        if not isinstance(schema, Mapping):
            return self.count_text(f"{key}::")
        kind = schema.get("type", "")
        kind_text = kind if isinstance(kind, str) else _json(kind)
        description = schema.get("description", "")
        description_text = description if isinstance(description, str) else _json(description)
        total = self.count_text(f"{key}:{kind_text}:{description_text.removesuffix('.')}")
        enum = schema.get("enum")
        if isinstance(enum, list):
            total += costs.enum_init + sum(costs.enum_item + self.count_text(str(v)) for v in enum)
        rest = {k: v for k, v in schema.items() if k not in ("type", "description", "enum")}
        return total + (self.count_text(_json(rest)) if rest else 0)


def _scaled(count: Callable[[str], int], scale: float) -> Callable[[str], int]:
    """`count` scaled by `scale` and rounded up, 0 for empty text (an exact count, scale 1,
    is its own rounding: no float round trip)."""
    if scale == 1.0:
        return lambda text: count(text) if text else 0
    return lambda text: math.ceil(count(text) * scale) if text else 0


def _no_text(text: str) -> int:
    return 0


_NOT_SPACE_TO_TIKTOKEN = str.maketrans("\x1c\x1d\x1e\x1f", "____")
"""Separators Python splits on but tiktoken's `\\s` does not match (not White_Space)."""


def runs_of_non_space(text: str) -> int:
    """Maximal runs of non-white-space characters in `text`: a lower bound of the tokens of
    any encoding whose pre-tokenizer never joins two of them in one piece (rule 3)."""
    if "\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text:
        text = text.translate(_NOT_SPACE_TO_TIKTOKEN)
    return len(text.split())


@lru_cache(maxsize=256)
def _cached_size(source: str) -> tuple[int, int] | None:
    return image_size(source)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _tool_json(tool: ToolSpec) -> str:
    return _json(
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
    )


_FUNCTION_KINDS: Final = frozenset({"function", "custom"})


def _hosted_json(tool: ToolSpec) -> str:
    """A hosted tool's configuration as JSON text (rule 4); "" for a function tool."""
    kind = tool.extras.get("type")
    if tool.parameters is not None or not isinstance(kind, str) or kind in _FUNCTION_KINDS:
        return ""
    config = {k: v for k, v in tool.extras.items() if k not in ("type", "name")}
    return _json(config) if config else ""


OUTPUT_FIELDS: Final = ("response_format", "text", "output_config", "output_format")
"""The body fields a structured-output format lives in (rule 6)."""


def output_fields(body: Mapping[str, object]) -> dict[str, object]:
    """The fields of `body` that carry its structured-output schema ({} without one):
    what a ContextManager keeps of a request body to count it as `fixed` does (rule 6)."""
    if output_schema(body) is None:
        return {}
    return {key: body[key] for key in OUTPUT_FIELDS if key in body}


def output_schema(body: Mapping[str, object]) -> Mapping[str, object] | None:
    """The structured-output format a request body asks for, if any (rule 6)."""
    chat = body.get("response_format")
    if isinstance(chat, Mapping) and chat.get("type") == "json_schema":
        inner = chat.get("json_schema")
        return inner if isinstance(inner, Mapping) else chat
    for key, inside in (("text", "format"), ("output_config", "format"), ("output_format", None)):
        holder = body.get(key)
        found = holder.get(inside) if isinstance(holder, Mapping) and inside else holder
        if isinstance(found, Mapping) and found.get("type") == "json_schema":
            return found
    return None


def fixed_overhead(conversation: Conversation, counter: TokenCounter) -> int:
    """Tokens the request costs besides its messages (0 for counters that do not say)."""
    if is_conversation_counter(counter):
        return counter.fixed_overhead(conversation)
    return 0


def count_conversation(conversation: Conversation, counter: TokenCounter) -> int:
    """Total prompt tokens: fixed overhead plus every message (rule 1)."""
    return fixed_overhead(conversation, counter) + sum(
        counter.count(m) for m in conversation.messages
    )


for _cached in (_cached_size,):
    on_clear(_cached.cache_clear)  # clear_caches() forgets what was read from texts
