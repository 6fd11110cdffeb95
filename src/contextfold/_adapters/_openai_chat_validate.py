"""What the OpenAI Chat Completions API would reject in a message list (invariant I1).

Rules:
1. Pairing: an assistant message with `tool_calls` is followed immediately by exactly one
   `tool` message per call, in any order among themselves; matching is per occurrence,
   because real agents re-use call ids across a conversation. A tool message that answers
   no call of the assistant message right before its block is an orphan. A legacy
   `function_call` is answered by the `function` message right after it.
2. Fields: known roles; `content` of the type and part kinds the role allows (required
   except on assistant messages with calls or an earlier audio answer given back by its
   `audio.id`; never an empty list); string `name`, `tool_call_id`, call ids, names and
   arguments; no duplicate call id in one message.
   Unknown keys are not problems: providers and proxies add their own.
3. Total: any input gives a list of problems, never an exception. A problem the
   structure hides (a message that is not an object) is reported once; the rest of the
   list is still checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from .._errors import with_article
from .._validation import Problem

_TEXT_ONLY: Final = frozenset({"text"})
_PART_KINDS: Final[Mapping[str, frozenset[str]]] = {
    "system": _TEXT_ONLY,
    "developer": _TEXT_ONLY,
    "tool": _TEXT_ONLY,
    "user": frozenset({"text", "image_url", "input_audio", "file"}),
    "assistant": frozenset({"text", "refusal"}),
}
_PART_FIELDS: Final[Mapping[str, tuple[str, type]]] = {
    "text": ("text", str),
    "refusal": ("refusal", str),
    "image_url": ("image_url", dict),
    "input_audio": ("input_audio", dict),
    "file": ("file", dict),
}
_CALL_KINDS: Final[Mapping[str, tuple[str, str]]] = {
    "function": ("function", "arguments"),
    "custom": ("custom", "input"),
}
_ABSENT: Final = object()


def validate(payload: object) -> list[Problem]:
    """Every way the provider would reject `payload` (rule 3: never raises)."""
    if isinstance(payload, dict):
        messages = payload.get("messages")
        if not isinstance(messages, list):
            return [Problem(None, "messages", "a request body needs a 'messages' list")]
    elif isinstance(payload, list):
        messages = payload
    else:
        return [Problem(None, None, "expected a list of messages or a request body")]
    if not messages:
        return [Problem(None, "messages", "at least one message is required")]
    pairs = _Pairing()
    for index, raw in enumerate(messages):
        if not isinstance(raw, dict):
            pairs.problems.append(Problem(index, None, "a message must be an object"))
            pairs.close(index)
            continue
        _check_fields(raw, index, pairs.problems)
        pairs.see(raw, index)
    pairs.close(len(messages))
    return sorted(pairs.problems, key=_position)


def _position(problem: Problem) -> int:
    return -1 if problem.index is None else problem.index


@dataclass(slots=True)
class _Pairing:
    """Walks the messages once, matching tool messages to the calls just before them."""

    pending: list[tuple[str | None, int, str]] = field(default_factory=list)
    """Unanswered calls of the current block: (call id or None for legacy, index, field)."""
    problems: list[Problem] = field(default_factory=list)

    def see(self, raw: Mapping[str, object], index: int) -> None:
        """Account for one message (rule 1)."""
        role = raw.get("role")
        if role in ("tool", "function"):
            key = raw.get("tool_call_id") if role == "tool" else None
            self.answer(key, index, "tool_call_id" if role == "tool" else "role")
            return
        self.close(index)
        if role == "assistant":
            self.pending = _calls(raw, index)

    def answer(self, key: object, index: int, where: str) -> None:
        """Match a tool or function message to a pending call, or report an orphan."""
        for position, (call_id, _, _) in enumerate(self.pending):
            if call_id == key:
                del self.pending[position]
                return
        what = "tool message" if where == "tool_call_id" else "function message"
        self.problems.append(
            Problem(index, where, f"{what} answers no call of the assistant message before it")
        )

    def close(self, index: int) -> None:
        """The tool block ended before message `index`: report unanswered calls."""
        for call_id, at, where in self.pending:
            shown = "the function_call" if call_id is None else f"tool call {call_id!r}"
            reason = f"{shown} has no result right after it (before message {index})"
            self.problems.append(Problem(at, where, reason))
        self.pending = []


def _calls(raw: Mapping[str, object], index: int) -> list[tuple[str | None, int, str]]:
    """The calls an assistant message makes that a result can answer."""
    out: list[tuple[str | None, int, str]] = []
    calls = raw.get("tool_calls")
    if isinstance(calls, list):
        for j, call in enumerate(calls):
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                out.append((call["id"], index, f"tool_calls[{j}].id"))
    if isinstance(raw.get("function_call"), dict):
        out.append((None, index, "function_call"))
    return out


def _check_fields(raw: Mapping[str, object], index: int, problems: list[Problem]) -> None:
    role = raw.get("role")
    if role == "function":
        _check_function(raw, index, problems)
        return
    if not isinstance(role, str) or role not in _PART_KINDS:
        problems.append(Problem(index, "role", f"unknown role {role!r}"))
        return
    if "name" in raw and not isinstance(raw["name"], str):
        problems.append(Problem(index, "name", "name must be a string"))
    if role == "tool" and not isinstance(raw.get("tool_call_id"), str):
        problems.append(Problem(index, "tool_call_id", "a tool message needs a 'tool_call_id'"))
    optional = False
    if role == "assistant":
        optional = _check_calls(raw, index, problems) | _check_audio(raw, index, problems)
    _check_content(raw.get("content", _ABSENT), role, index, problems, optional=optional)
    for key in ("tool_calls", "function_call"):
        if role != "assistant" and raw.get(key) is not None:
            problems.append(Problem(index, key, f"only assistant messages carry {key!r}"))


def _check_function(raw: Mapping[str, object], index: int, problems: list[Problem]) -> None:
    if not isinstance(raw.get("name"), str):
        problems.append(Problem(index, "name", "a function message needs a string 'name'"))
    content = raw.get("content", _ABSENT)
    if content is not None and not isinstance(content, str):
        problems.append(Problem(index, "content", "function content must be a string or null"))


def _check_content(
    content: object, role: str, index: int, problems: list[Problem], *, optional: bool
) -> None:
    if isinstance(content, str) or (optional and (content is None or content is _ABSENT)):
        return
    if content is _ABSENT or content is None:
        problems.append(Problem(index, "content", f"{with_article(role)} message needs content"))
    elif not isinstance(content, list):
        problems.append(Problem(index, "content", "content must be a string or a list of parts"))
    elif not content:
        problems.append(Problem(index, "content", "content must not be an empty list"))
    else:
        for j, part in enumerate(content):
            _check_part(part, _PART_KINDS[role], index, f"content[{j}]", problems)


def _check_part(
    part: object, allowed: frozenset[str], index: int, where: str, problems: list[Problem]
) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(part, dict) or not isinstance(kind, str) or kind not in allowed:
        reason = f"a content part must be an object with 'type' one of {sorted(allowed)}"
        problems.append(Problem(index, where, reason))
        return
    key, expected = _PART_FIELDS[kind]
    if not isinstance(part.get(key), expected):
        problems.append(
            Problem(index, f"{where}.{key}", f"{with_article(kind)} part needs {key!r}")
        )


def _check_calls(raw: Mapping[str, object], index: int, problems: list[Problem]) -> bool:
    """Check `tool_calls` and `function_call`; True when the message makes a call."""
    calls = raw.get("tool_calls")
    legacy = raw.get("function_call")
    if legacy is not None and not _is_call(legacy, ("function_call", "arguments")):
        problems.append(Problem(index, "function_call", "needs string 'name' and 'arguments'"))
    if calls is None:
        return legacy is not None
    if not isinstance(calls, list) or not calls:
        problems.append(Problem(index, "tool_calls", "tool_calls must be a non-empty list"))
        return legacy is not None
    seen: set[str] = set()
    for j, call in enumerate(calls):
        _check_call(call, index, f"tool_calls[{j}]", problems)
        call_id = call.get("id") if isinstance(call, dict) else None
        if isinstance(call_id, str) and call_id in seen:
            problems.append(Problem(index, f"tool_calls[{j}].id", f"duplicate id {call_id!r}"))
        if isinstance(call_id, str):
            seen.add(call_id)
    return True


def _check_audio(raw: Mapping[str, object], index: int, problems: list[Problem]) -> bool:
    """Check `audio`; True when the message gives back an earlier audio answer by id."""
    audio = raw.get("audio")
    if audio is None:
        return False
    if not isinstance(audio, dict) or not isinstance(audio.get("id"), str):
        problems.append(Problem(index, "audio", "audio needs a string 'id'"))
        return False
    return True


def _check_call(call: object, index: int, where: str, problems: list[Problem]) -> None:
    if not isinstance(call, dict):
        problems.append(Problem(index, where, "a tool call must be an object"))
        return
    if not isinstance(call.get("id"), str):
        problems.append(Problem(index, f"{where}.id", "a tool call needs a string 'id'"))
    kind = call.get("type")
    if not isinstance(kind, str) or kind not in _CALL_KINDS:
        problems.append(Problem(index, f"{where}.type", "type must be 'function' or 'custom'"))
        return
    inner_key, argument_key = _CALL_KINDS[kind]
    if not _is_call(call.get(inner_key), (inner_key, argument_key)):
        reason = f"needs an object with string 'name' and {argument_key!r}"
        problems.append(Problem(index, f"{where}.{inner_key}", reason))


def _is_call(value: object, keys: tuple[str, str]) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and isinstance(value.get(keys[1]), str)
    )
