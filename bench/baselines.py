"""The systems under comparison: LangChain's trim_messages and contextfold's policies.

Rules:
1. trim_messages runs as its documentation shows for chat history: strategy "last",
   include_system, start_on "human" (the speed section) or ("human", "ai") where a
   conversation has one user message only (SWE-agent), so the baseline does not
   degenerate to the bare system prompt.
2. Its exact counter uses the very tiktoken Encoding object contextfold's TiktokenCounter
   uses, with the same framing (3 tokens a message, 3 a tool call, 3 reply priming); its
   cheap counter is LangChain's own `count_tokens_approximately`.
3. trim_messages on wire messages maps its output back to the input dicts (by message id),
   so every strategy's output is billed and searched the same way.
4. The text a model sees is searched with tool-call arguments decoded from JSON, so a value
   is found whether it sits in a tool result, a call's arguments, a marker or a summary.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import contextfold as cf

from .common import Wire

START_ON_HUMAN = ("human",)
START_ON_TURN = ("human", "ai")

POLICIES: dict[str, cf.Policy] = {
    "drop-oldest": cf.Policy(steps=cf.chain(cf.drop())),
    "mask-only": cf.Policy(steps=cf.chain(cf.mask(), cf.drop())),
    "contextfold default": cf.Policy(),
}
"""contextfold strategies by name; mask-only drops (archived) only when masking is not enough."""

LcCounter = Callable[[list[Any]], int]


@functools.cache
def encoding() -> Any:
    """The o200k_base tiktoken Encoding, loaded offline from contextfold's packaged data."""
    return cf.TiktokenCounter("o200k_base").encoding


def exact_tokens(wire: Sequence[Wire]) -> int:
    """Exact o200k tokens of a chat request (OpenAI framing)."""
    counter = cf.TiktokenCounter(encoding())
    return cf.count_conversation(cf.parse(list(wire), "openai-chat")[1], counter)


def lc_messages(wire: Sequence[Wire], start: int = 0) -> list[Any]:
    """LangChain messages for OpenAI chat wire messages, each with its index as id."""
    from langchain_core.messages import convert_to_messages

    messages: list[Any] = list(convert_to_messages(list(wire)))
    for index, message in enumerate(messages, start):
        message.id = str(index)
    return messages


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in content)
    return ""


def lc_exact_counter(enc: Any, *, memo: bool = False) -> LcCounter:
    """A trim_messages token counter with `enc` and OpenAI chat framing (rule 2).

    `memo` caches counts per text: the speed section leaves it off (what a user writes),
    the cost and survival sections turn it on because only the output matters there.
    """

    def encoded(text: str) -> int:
        return len(enc.encode(text, disallowed_special=())) if text else 0

    size = functools.lru_cache(maxsize=1 << 16)(encoded) if memo else encoded

    def count(messages: list[Any]) -> int:
        total = 3
        for message in messages:
            total += 3 + size(message.type) + size(_content_text(message.content))
            for call in getattr(message, "tool_calls", None) or ():
                total += 3 + size(call["name"]) + size(json.dumps(call["args"])) + size(call["id"])
            total += size(getattr(message, "tool_call_id", "") or "")
        return total

    return count


def lc_cheap_counter() -> LcCounter:
    """LangChain's own approximate counter (chars / 4 plus framing)."""
    from langchain_core.messages.utils import count_tokens_approximately

    counter: LcCounter = count_tokens_approximately
    return counter


def trim(
    messages: list[Any], budget: int, counter: LcCounter, start_on: Sequence[str]
) -> list[Any]:
    """trim_messages as configured for chat history (rule 1)."""
    from langchain_core.messages import trim_messages

    kept: list[Any] = trim_messages(
        messages,
        max_tokens=budget,
        token_counter=counter,
        strategy="last",
        include_system=True,
        start_on=list(start_on),
        allow_partial=False,
    )
    return kept


def trim_wire(
    wire: Sequence[Wire], budget: int, counter: LcCounter, start_on: Sequence[str] = START_ON_TURN
) -> list[Wire]:
    """trim_messages on wire messages, returning the kept input dicts (rule 3)."""
    kept = trim(lc_messages(wire), budget, counter, start_on)
    return [wire[int(m.id)] for m in kept]


def compact_wire(
    wire: Sequence[Wire], budget: int, policy: cf.Policy, counter: cf.TokenCounter
) -> cf.CompactResult[Any]:
    """contextfold's one-shot compaction of wire messages."""
    return cf.compact(list(wire), budget, counter=counter, policy=policy, format="openai-chat")


# --- what the model sees (rule 4) -------------------------------------------------------


def _values(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item)
    elif value is not None:
        yield str(value)


def argument_values(arguments: str) -> list[str]:
    """The scalar values in a tool call's JSON arguments (the raw text if not JSON)."""
    try:
        decoded = json.loads(arguments)
    except ValueError:
        return [arguments]
    return list(_values(decoded))


def part_texts(part: cf.Part) -> Iterator[str]:
    """The text one part shows the model, tool-call arguments decoded."""
    match part:
        case cf.ToolCall():
            yield part.name
            yield from argument_values(part.arguments)
        case cf.ToolResult():
            for inner in part.parts:
                yield from part_texts(inner)
        case cf.Text() | cf.Marker() | cf.Summary() | cf.Card() | cf.Reasoning():
            yield part.text
        case _:
            return


def visible_text(messages: Sequence[cf.Message], *, skip_system: bool = False) -> str:
    """Everything the model sees in `messages`, one blob."""
    return "\n".join(
        text
        for message in messages
        if not (skip_system and message.role == "system")
        for part in message.parts
        for text in part_texts(part)
    )


def from_chat(wire: Wire) -> cf.Message:
    """One OpenAI chat message in neutral form without the adapter's pairing checks (for
    counting single messages): text, tool calls and tool results."""
    content = wire.get("content")
    if isinstance(content, str):
        parts: tuple[cf.Part, ...] = (cf.Text(content),) if content else ()
    elif isinstance(content, list):
        parts = tuple(cf.Text(str(p.get("text", ""))) for p in content if isinstance(p, dict))
    else:
        parts = ()
    for call in wire.get("tool_calls") or ():
        function = call.get("function", {})
        parts += (
            cf.ToolCall(
                str(call.get("id")), str(function.get("name")), str(function.get("arguments"))
            ),
        )
    if wire["role"] == "tool":
        parts = (cf.ToolResult(str(wire.get("tool_call_id")), parts),)
    name = wire.get("name")
    return cf.Message(wire["role"], parts, name=name if isinstance(name, str) else None)


def neutral(wire: Sequence[Wire]) -> tuple[cf.Message, ...]:
    """Wire messages in neutral form."""
    return cf.parse(list(wire), "openai-chat")[1].messages


class QuarterCounter:
    """chars/4 plus 3 tokens a message: the arithmetic of LangChain's approximate counter."""

    name = "chars/4"

    def count(self, message: cf.Message) -> int:
        """Tokens `message` costs, estimated."""
        return 3 + -(-sum(_chars(p) for p in message.parts) // 4)


def _chars(part: cf.Part) -> int:
    match part:
        case cf.ToolCall():
            return len(part.id) + len(part.name) + len(part.arguments)
        case cf.ToolResult():
            return len(part.call_id) + sum(_chars(p) for p in part.parts)
        case cf.Text() | cf.Marker() | cf.Summary() | cf.Card() | cf.Reasoning():
            return len(part.text)
        case _:
            return 85
