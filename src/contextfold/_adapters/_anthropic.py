"""The Anthropic Messages adapter: parse, render and validate (one pure module each).

Rules:
1. `to_conversation` reads a request body or a bare message list (`_anthropic_parse`).
2. `from_conversation` is its exact inverse and also renders what the compaction engine
   changed or created (`_anthropic_render`).
3. `validate` reports every way the Messages API would reject a payload, from the wire
   JSON itself (`_anthropic_validate`, with per-block checks in `_anthropic_blocks`).
"""

from __future__ import annotations

from ._anthropic_parse import to_conversation
from ._anthropic_render import from_conversation
from ._anthropic_validate import validate

__all__ = ["from_conversation", "to_conversation", "validate"]
