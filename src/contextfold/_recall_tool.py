"""The recall tool: lets the model itself fetch what compaction folded away.

Rules:
1. `recall_tool(format)` returns a fresh tool definition in that format's exact wire
   shape (OpenAI chat: `{type, function: {name, description, parameters, strict}}`;
   OpenAI Responses: `{type, name, description, parameters, strict}`; Anthropic:
   `{name, description, input_schema}`). One JSON schema serves all three and satisfies
   OpenAI strict mode (every property required, no additional properties).
2. `answer_recall(archive, arguments)` never raises over what the model sent: its answer
   goes back to the model as a tool result, so bad arguments, unknown references and
   storage failures become an error text saying how to call the tool correctly, with
   `is_error=True`. Only an `archive` that is not an Archive (the caller's slip, which no
   call can fix) is a ConfigurationError.
3. Models paste whole markers or change case; any text containing one reference is
   accepted (`[cf:r0123456789 tool result masked]`, `R0123456789`).
4. Paging: `offset` and `limit` (characters, both optional) pick a window of the
   recalled text. An answer that is a window, or longer than `PAGED_OVER` characters,
   starts with a header naming the window, the total and the offset of the next page, so
   paging from offset 0 by the headers returns every character exactly once. The engine
   never prunes an answer that starts with such a header (a recalled page stays whole
   while it fits), and a pruned result's marker names the offset its cut starts at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, assert_never

from ._adapters import check_format
from ._archive import Archive
from ._errors import ArchiveError, ConfigurationError, UnknownReference
from ._messages import REF_PATTERN

RECALL_TOOL_NAME: Final = "contextfold_recall"

_DESCRIPTION: Final = (
    "Fetch the full original content that context compaction replaced with a marker "
    "such as [cf:r0123456789 tool result masked, 812 tokens] or mentioned in a "
    "[cf:summary]. Pass the reference, the code that starts with r after 'cf:'. Long "
    "content comes in pages: pass offset (a character position, e.g. the one a pruned "
    "marker names) and limit (characters) to read a window; the answer's header says how "
    "much remains and the offset of the next page. Use it only when you need the exact "
    "details the marker or summary leaves out."
)
PAGE_CHARS: Final = 8_000
"""Characters an answer holds when the call gives no `limit`."""
PAGED_OVER: Final = 2_000
"""Answers longer than this carry the page header even when they are whole."""
_MAX_LIMIT: Final = 200_000

_EXAMPLE_REF: Final = "r0123456789"
_REF_RE: Final = re.compile(r"(?<![0-9a-z])" + REF_PATTERN + r"(?![0-9a-f])")


def _schema() -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "ref": {
                "type": "string",
                "description": f"The archive reference from the marker, e.g. {_EXAMPLE_REF}.",
            },
            "offset": {
                "type": ["integer", "null"],
                "description": "First character to return (default 0).",
            },
            "limit": {
                "type": ["integer", "null"],
                "description": f"Characters to return (default {PAGE_CHARS}).",
            },
        },
        "required": ["ref", "offset", "limit"],
        "additionalProperties": False,
    }


def recall_tool(format: str) -> Any:
    """The recall tool definition for `format` ("openai-chat", "openai-responses", "anthropic").

    A plain dict, typed `Any` so that it passes as the SDK's own tool parameter type.
    """
    fmt = check_format(format)
    match fmt:
        case "openai-chat":
            function = {"name": RECALL_TOOL_NAME, "description": _DESCRIPTION}
            return {
                "type": "function",
                "function": {**function, "parameters": _schema(), "strict": True},
            }
        case "openai-responses":
            return {
                "type": "function",
                "name": RECALL_TOOL_NAME,
                "description": _DESCRIPTION,
                "parameters": _schema(),
                "strict": True,
            }
        case "anthropic":
            return {
                "name": RECALL_TOOL_NAME,
                "description": _DESCRIPTION,
                "input_schema": _schema(),
            }
        case _:
            assert_never(fmt)


def answer_recall(archive: Archive, arguments: str | Mapping[str, object]) -> tuple[str, bool]:
    """The tool result for a recall call: (text, is_error). Never raises over what the
    model sent; ConfigurationError when `archive` is not an Archive (the caller's slip)."""
    if not isinstance(archive, Archive):
        raise ConfigurationError(
            f"answer_recall() reads a contextfold.Archive, got {type(archive).__name__}; pass "
            "the archive the compaction used (result.archive, manager.archive)"
        )
    ref_or_error = _ref_from(arguments)
    if isinstance(ref_or_error, _Failure):
        return ref_or_error.text, True
    ref = ref_or_error
    window = _window(arguments)
    if isinstance(window, _Failure):
        return window.text, True
    try:
        return _page(ref, archive.recall_text(ref), *window), False
    except UnknownReference:
        return (
            f"{RECALL_TOOL_NAME}: nothing is archived under {ref}. Copy the reference exactly "
            "from a [cf:...] marker or summary in this conversation.",
            True,
        )
    except ArchiveError as exc:
        return f"{RECALL_TOOL_NAME}: the archive could not be read ({exc}).", True


def _page(ref: str, text: str, offset: int, limit: int | None) -> str:
    """`text` or its window, with the header rule 4 asks for."""
    total = len(text)
    if offset == 0 and limit is None and total <= PAGE_CHARS and total <= PAGED_OVER:
        return text
    start = min(offset, total)
    end = min(total, start + (PAGE_CHARS if limit is None else limit))
    left = total - end
    more = f"; {left:,} more: call {RECALL_TOOL_NAME} with offset={end}" if left else ""
    return f"[cf:{ref} recalled, chars {start:,}-{end:,} of {total:,}{more}]\n{text[start:end]}"


def _window(arguments: object) -> tuple[int, int | None] | _Failure:
    """(offset, limit) from the call's arguments (already known to be valid for `ref`)."""
    if isinstance(arguments, str | bytes):
        arguments = json.loads(arguments)
    assert isinstance(arguments, Mapping)
    offset, limit = arguments.get("offset"), arguments.get("limit")
    if offset is not None and (isinstance(offset, bool) or not isinstance(offset, int)):
        return _Failure(f'"offset" must be a whole number of characters, not {offset!r}')
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        return _Failure(f'"limit" must be a whole number of characters, not {limit!r}')
    if (offset or 0) < 0 or (limit is not None and limit < 1):
        return _Failure('"offset" must be 0 or more and "limit" 1 or more')
    return offset or 0, None if limit is None else min(limit, _MAX_LIMIT)


class _Failure:
    __slots__ = ("text",)

    def __init__(self, problem: str) -> None:
        self.text = (
            f"{RECALL_TOOL_NAME}: {problem}. Call it with one reference from a [cf:...] "
            f'marker, e.g. {{"ref": "{_EXAMPLE_REF}"}}.'
        )


def _ref_from(arguments: object) -> str | _Failure:
    """The reference named by the call's arguments, or what is wrong with them."""
    if isinstance(arguments, str | bytes):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError) as exc:
            return _Failure(f"the arguments are not valid JSON ({exc})")
    if not isinstance(arguments, Mapping):
        return _Failure(f"the arguments must be a JSON object, not {type(arguments).__name__}")
    value = arguments.get("ref")
    if value is None:
        return _Failure('the "ref" argument is missing')
    if not isinstance(value, str):
        return _Failure(f'"ref" must be a string, not {type(value).__name__}')
    found: set[str] = set(_REF_RE.findall(value.lower()))
    if len(found) != 1:
        many = "more than one reference" if found else "no reference"
        return _Failure(f'"ref" {value[:80]!r} holds {many}')
    return found.pop()
