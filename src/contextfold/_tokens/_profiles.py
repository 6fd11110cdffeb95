"""Per-format token overheads: what a message, a tool call and the tool list cost beyond text.

Rules:
1. OpenAI chat follows the cookbook "How to count tokens with tiktoken": 3 tokens per message
   plus every string field (role, content, name), +1 when a name is set, +3 reply priming;
   tool definitions cost func_init + "name:description" + per property prop_key +
   "name:type:description" (+ enum_init, enum_item + item per enum value) + func_end, with
   func_init 7 for gpt-4o-class models and 10 for gpt-4 / gpt-3.5 (prop_init 3, prop_key 3,
   enum_init -3, enum_item 3, func_end 12). The cookbook does not cover tool calls; we count
   their string fields (id, name, arguments) plus 3 tokens of framing per call, and a tool
   result's call id as the `tool_call_id` string field it is on the wire.
2. OpenAI Responses items are rendered by the same models the same way, so they use the chat
   numbers (3 per item, strings counted, 3 reply priming, same tool formula).
3. Anthropic publishes no tokenizer and no per-message formula. Its profile errs high: text
   counts are scaled by 1.25 (Claude's tokenizers produce more tokens than o200k for the same
   text), 5 tokens per message, 12 per tool use block, and the documented tool-use system
   prompt (the largest published value when the model is unknown) plus each tool's JSON.
   CalibratedCounter corrects the remaining bias from reported usage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final

from .._adapters import Format

__all__ = [
    "ANTHROPIC",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "Overheads",
    "ToolCosts",
    "overheads_for",
]


@dataclass(frozen=True, slots=True)
class ToolCosts:
    """The cookbook's constants for counting tool (function) definitions."""

    func_init: int = 7
    prop_init: int = 3
    prop_key: int = 3
    enum_init: int = -3
    enum_item: int = 3
    func_end: int = 12


@dataclass(frozen=True, slots=True)
class Overheads:
    """What one wire format adds around the text it carries."""

    format: Format
    per_message: int
    """Framing tokens for every message (or Responses item)."""
    per_name: int
    """Extra tokens when a message has a `name`."""
    reply_priming: int
    """Tokens that prime the assistant's reply, once per request."""
    per_tool_call: int
    """Framing tokens for each tool call, on top of its strings."""
    count_role: bool = True
    """Whether the role string is counted as text (OpenAI: yes)."""
    text_scale: float = 1.0
    """Multiplier applied to every text count (Anthropic: its tokenizer is unknown)."""
    tools: ToolCosts | None = ToolCosts()
    """Cookbook tool formula; None means tools are counted as JSON text."""
    tool_prompt: int = 0
    """Fixed system-prompt tokens added once when any tool is offered."""


OPENAI_CHAT: Final = Overheads("openai-chat", 3, 1, 3, 3)
OPENAI_RESPONSES: Final = Overheads("openai-responses", 3, 1, 3, 3)
ANTHROPIC: Final = Overheads(
    "anthropic", 5, 0, 4, 12, count_role=False, text_scale=1.25, tools=None, tool_prompt=804
)

_LEGACY_TOOLS: Final = ToolCosts(func_init=10)
_LEGACY_PREFIXES: Final = ("gpt-4-", "gpt-3.5", "gpt-35")

# Anthropic "tool use system prompt token count", the larger of the auto/none and any/tool
# values for each model family (longest prefix wins).
_ANTHROPIC_TOOL_PROMPT: Final[Mapping[str, int]] = {
    "claude-opus-4-7": 804,
    "claude-opus-4-6": 589,
    "claude-sonnet-4-6": 589,
    "claude-opus-4-5": 588,
    "claude-sonnet-4-5": 589,
    "claude-haiku-4-5": 346,
    "claude-opus-4": 346,
    "claude-sonnet-4": 346,
    "claude-3-7-sonnet": 346,
    "claude-3-5-sonnet": 346,
    "claude-3-5-haiku": 340,
    "claude-3-opus": 530,
    "claude-3-sonnet": 235,
    "claude-3-haiku": 340,
}
_ANTHROPIC_PREFIXES: Final = sorted(_ANTHROPIC_TOOL_PROMPT, key=len, reverse=True)


def overheads_for(format: Format, model: str | None = None) -> Overheads:
    """The overhead profile for `format`, adjusted for `model` where the docs differ."""
    name = (model or "").strip().lower().rpartition("/")[2]
    if format == "anthropic":
        for prefix in _ANTHROPIC_PREFIXES:
            if name.startswith(prefix):
                return replace(ANTHROPIC, tool_prompt=_ANTHROPIC_TOOL_PROMPT[prefix])
        return ANTHROPIC
    base = OPENAI_CHAT if format == "openai-chat" else OPENAI_RESPONSES
    if name == "gpt-4" or name.startswith(_LEGACY_PREFIXES):
        return replace(base, tools=_LEGACY_TOOLS)
    return base
