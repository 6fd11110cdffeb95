"""Documents sent by reference: content the provider fetches and bills, unseen here.

Rules:
1. A document or file part that names its content instead of carrying it (Anthropic
   `document` with a `url` or `file` source; OpenAI chat `file` with a `file_id` and no
   `file_data`; Responses `input_file` with a `file_id` or `file_url` and no `file_data`)
   costs the provider its pages, but here only its JSON text: no formula can bound a
   document it cannot read (an unseen image costs its formula's maximum; a PDF may run
   to a hundred pages). `by_reference` counts them, anywhere a message or a tool result
   holds one, so the caller can say the count leaves them out.
2. Pure: reads parsed parts only (the Opaque payloads the adapters kept), no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from .._messages import Conversation, Opaque, Part, ToolResult

_ANTHROPIC_SOURCES: Final = frozenset({"url", "file"})


def by_reference(conversation: Conversation, format: str) -> int:
    """Rule 1: how many parts of `conversation` send a document by reference."""
    test = _TESTS.get(format)
    if test is None:
        return 0
    return sum(
        1
        for message in conversation.messages
        for part in _parts(message.parts)
        if isinstance(part, Opaque) and test(part.payload)
    )


def _parts(parts: Iterable[Part]) -> Iterable[Part]:
    for part in parts:
        if isinstance(part, ToolResult):
            yield from part.parts
        else:
            yield part


def _anthropic(payload: Mapping[str, object]) -> bool:
    source = payload.get("source")
    return (
        payload.get("type") == "document"
        and isinstance(source, Mapping)
        and source.get("type") in _ANTHROPIC_SOURCES
    )


def _chat(payload: Mapping[str, object]) -> bool:
    file = payload.get("file")
    return payload.get("type") == "file" and isinstance(file, Mapping) and "file_data" not in file


def _responses(payload: Mapping[str, object]) -> bool:
    return payload.get("type") == "input_file" and "file_data" not in payload


_TESTS: Final = {"anthropic": _anthropic, "openai-chat": _chat, "openai-responses": _responses}
