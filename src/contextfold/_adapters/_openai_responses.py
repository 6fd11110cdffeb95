"""OpenAI Responses API adapter: `input` items (or a whole request body) <-> Conversation.

Rules:
1. One neutral Message per input item; unmapped wire fields stay in extras, so
   `from_conversation(to_conversation(x)) == x` for every payload `to_conversation` accepts
   (parsing: `_openai_responses_parse`; rendering: `_openai_responses_render`).
2. Rendering also writes the messages the compaction engine changed or created, and rejects
   shapes the wire cannot express (mixed tool parts, tool results outside "tool" messages)
   with InvalidConversation naming the message: normalize cross-format input first.
3. `validate` reports every way the API would reject the input (invariant I1; rules in
   `_openai_responses_validate`).
4. Pure and total: any JSON in, a Conversation or InvalidConversation out.
"""

from __future__ import annotations

from ._openai_responses_parse import to_conversation
from ._openai_responses_render import from_conversation
from ._openai_responses_validate import validate

__all__ = ["from_conversation", "to_conversation", "validate"]
