"""Documents sent inline: where a kept document part carries its content, in each format.

Rules:
1. An inline PDF is an Anthropic `document` with a `base64` source of media type
   `application/pdf`, an OpenAI chat `file` part whose `file` has a string `file_data`,
   or a Responses `input_file` with a string `file_data`. OpenAI's `file_data` is a
   `data:<media type>;base64,` URL or bare base64; a data URL of another media type is
   not a PDF (the provider reads it as that type), bare base64 is one only if its bytes
   say so (the counter checks the `%PDF-` header).
2. An inline text document is an Anthropic `document` with a `text` source: its `data`
   is the text itself.
3. `framing` is the part with the content left out (`data` or `file_data` set to ""):
   the title, context, filename and keys the provider also reads, counted as JSON text.
4. Anything else (a document by reference, `_references`; Anthropic `content` sources;
   other media types) is not an inline document here: None, counted as it is today.
5. Pure: reads the Opaque payloads the adapters kept, copies only the small framing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["InlineDocument", "inline_document"]

_PDF: Final = "application/pdf"


@dataclass(frozen=True, slots=True)
class InlineDocument:
    """A document part's content and the rest of the part (rule 3)."""

    kind: Literal["pdf", "text"]
    data: str
    """The wire string as sent (not a copy: counts are cached by it): a PDF's base64, after
    a `data:` URL prefix if it has one, or the text of a text document."""
    framing: Mapping[str, object]


def inline_document(payload: Mapping[str, object]) -> InlineDocument | None:
    """The inline document `payload` carries, or None (rule 4)."""
    kind = payload.get("type")
    read = _READERS.get(kind) if isinstance(kind, str) else None
    return None if read is None else read(payload)


def _anthropic(payload: Mapping[str, object]) -> InlineDocument | None:
    source = payload.get("source")
    if not isinstance(source, Mapping):
        return None
    data = source.get("data")
    if not isinstance(data, str):
        return None
    framing = {**payload, "source": {**source, "data": ""}}
    if source.get("type") == "base64" and source.get("media_type") == _PDF:
        return InlineDocument("pdf", data, framing)
    if source.get("type") == "text":
        return InlineDocument("text", data, framing)
    return None


def _chat(payload: Mapping[str, object]) -> InlineDocument | None:
    file = payload.get("file")
    if not isinstance(file, Mapping):
        return None
    data = _file_data(file)
    return (
        None
        if data is None
        else InlineDocument("pdf", data, {**payload, "file": {**file, "file_data": ""}})
    )


def _responses(payload: Mapping[str, object]) -> InlineDocument | None:
    data = _file_data(payload)
    return None if data is None else InlineDocument("pdf", data, {**payload, "file_data": ""})


def _file_data(holder: Mapping[str, object]) -> str | None:
    """OpenAI's `file_data` when it may hold a PDF's base64 (rule 1), or None."""
    data = holder.get("file_data")
    if not isinstance(data, str):
        return None
    if not data.startswith("data:"):
        return data
    comma = data.find(",", 0, 256)
    if comma < 0:
        return None
    media_type, _, params = data[5:comma].partition(";")
    if media_type.strip().lower() != _PDF or "base64" not in params.lower():
        return None
    return data


_READERS: Final[Mapping[str, Callable[[Mapping[str, object]], InlineDocument | None]]] = {
    "document": _anthropic,
    "file": _chat,
    "input_file": _responses,
}
