"""Hypothesis strategies for agent-shaped neutral conversations, in each format's shape.

A conversation: optional system prompt, then turns. A turn is a user message followed by
zero or more agent steps; a step is an assistant response (optional reasoning, optional
text, one or more tool calls, parallel ones included) followed by its results, shaped
as the format carries them. Call ids are re-used across the conversation on purpose
(real data does it), and tool results are sometimes huge.
"""

from __future__ import annotations

from hypothesis import strategies as st

import contextfold as cf
from contextfold import Image, Message, Part, Reasoning, Text, ToolCall, ToolResult

SHAPES = ("openai-chat", "openai-responses", "anthropic")
words = st.sampled_from(
    [
        "the",
        "file",
        "test",
        "error",
        "fix",
        "path",
        "/src/app.py",
        "def",
        "class",
        "import",
        "ok",
        "failed",
        "value",
        "id",
        "user",
        "wants",
        "never",
        "always",
        "budget",
        "$500",
        "ZFA04Y",
        "HAT170",
        "2024-05-01",
        "run",
        "pytest",
    ]
)


def prose(min_words: int = 1, max_words: int = 40) -> st.SearchStrategy[str]:
    return st.lists(words, min_size=min_words, max_size=max_words).map(" ".join)


big_text = st.builds(lambda w, n: (w + " line\n") * n, words, st.integers(50, 1500))
result_text = prose(1, 60) | big_text
call_ids = st.sampled_from(["call_a", "call_b", "call_c", "toolu_1", "toolu_2", "fc_9"])
tool_names = st.sampled_from(["bash", "str_replace_editor", "get_reservation", "search"])
images = st.just(Image("data:image/png;base64,iVBORw0KGgo="))


@st.composite
def step(draw: st.DrawFn, shape: str, used: set[str]) -> list[Message]:
    """One assistant response with its tool results, in `shape`."""
    n_calls = draw(st.integers(0, 3))
    ids: list[str] = []
    taken = used if shape == "anthropic" else set()  # Anthropic rejects re-used ids
    for k in range(n_calls):
        base = draw(call_ids)
        ids.append(base if base not in ids and base not in taken else f"{base}_{len(taken)}_{k}")
    used.update(ids)
    calls = [ToolCall(i, draw(tool_names), '{"arg": "' + draw(words) + '"}') for i in ids]
    head: list[Part] = []
    if draw(st.booleans()) and shape != "openai-chat":
        head.append(Reasoning(draw(prose()), signature="sig" if shape == "anthropic" else None))
    if draw(st.booleans()) or not calls:
        head.append(Text(draw(prose(1, 80))))
    image_results = shape != "openai-chat"  # chat tool messages carry text parts only
    results = [
        ToolResult(
            i,
            (Text(draw(result_text)),)
            + ((draw(images),) if image_results and draw(st.booleans()) else ()),
            is_error=draw(st.booleans()) and shape == "anthropic",
        )
        for i in ids
    ]
    if shape == "openai-responses":
        out = [_responses_item(p) for p in head] + [Message("assistant", (c,)) for c in calls]
        return out + [Message("tool", (r,)) for r in results]
    out = [Message("assistant", (*head, *calls))]
    if shape == "anthropic":
        return out + ([Message("user", tuple(results))] if results else [])
    return out + [Message("tool", (r,)) for r in results]


@st.composite
def conversation(draw: st.DrawFn, shape: str) -> list[Message]:
    """A whole agent conversation in `shape`."""
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(Message("system", (Text("You are a careful agent. " + draw(prose())),)))
    used: set[str] = set()
    for _ in range(draw(st.integers(1, 6))):
        user_parts: list[Part] = [Text(draw(prose(1, 60)))]
        if draw(st.integers(0, 9)) == 0:
            user_parts.append(draw(images))
        messages.append(Message("user", tuple(user_parts)))
        for _ in range(draw(st.integers(0, 5))):
            messages.extend(draw(step(shape, used)))
        if shape == "anthropic" and messages[-1].role == "user" and draw(st.booleans()):
            messages.append(Message("assistant", (Text(draw(prose())),)))
    if shape == "anthropic":
        messages = _alternate(messages)
    return messages


def _alternate(messages: list[Message]) -> list[Message]:
    """Anthropic needs alternating roles: close gaps with a short turn of the other role."""
    out: list[Message] = []
    for message in messages:
        if out and out[-1].role == message.role == "user":
            out.append(Message("assistant", (Text("Understood."),)))
        elif out and out[-1].role == message.role == "assistant":
            out.append(Message("user", (Text("Go on."),)))
        out.append(message)
    return out


shapes = st.sampled_from(SHAPES)


def _responses_item(part: Part) -> Message:
    """A Responses item for `part`; reasoning items come from the real parser (they need ids)."""
    if not isinstance(part, Reasoning):
        return Message("assistant", (part,))
    item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": part.text}],
    }
    _, conversation = cf.parse([item], format="openai-responses")
    return conversation.messages[0]
