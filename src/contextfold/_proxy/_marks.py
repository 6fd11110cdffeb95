"""Cache breakpoints (`cache_control`) on the items of a conversation.

Rules:
1. A client marks where the provider may cache the prompt (Anthropic's `cache_control`
   on a content block; OpenAI-compatible servers in front of Claude take it on a message
   or a content part) and moves the mark as the conversation grows: Claude Code marks the
   newest message every turn. A session holds its items unmarked, so an item is the same
   item whether or not it carries a mark this time, and no old mark stays behind to push
   a request over the provider's limit (Anthropic: four).
2. A compacted request carries the client's marks on its own items that reach the view
   unchanged: an item the client marked goes as the client sent it in place of the view
   item equal to its unmarked form (looked for at its place counted from the end first,
   where the verbatim tail keeps it; anywhere in the view when folding moved it).
3. Marks are looked for on an item, its content parts, and the parts of a part's content
   (a tool result's blocks); never inside a tool call's input or arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

MARK: Final = "cache_control"

Marks = tuple[tuple[int, object], ...]
"""(place counted from the end of the request, the item as sent) of each marked item."""


def unmarked(part: Any) -> Any:
    """`part` without marks (rule 3); `part` itself when it carries none."""
    if not isinstance(part, dict):
        return part
    content = part.get("content")
    inner: list[Any] | None = None
    if isinstance(content, list):
        inner = [unmarked(p) for p in content]
        if all(a is b for a, b in zip(inner, content, strict=True)):
            inner = None  # no part changed
    if inner is None and MARK not in part:
        return part
    plain = {k: v for k, v in part.items() if k != MARK}
    if inner is not None:
        plain["content"] = inner
    return plain


def marks_of(sent: Sequence[object], plain: Sequence[object]) -> Marks:
    """The marked items of a request (`plain`: the same items, unmarked)."""
    size = len(sent)
    return tuple(
        (size - i, s) for i, (s, p) in enumerate(zip(sent, plain, strict=True)) if s is not p
    )


def remarked(view: list[object], marks: Marks) -> list[object]:
    """The view with the client's marks back on its unchanged items (rule 2)."""
    if not marks:
        return view
    out = list(view)
    for back, item in marks:
        plain = unmarked(item)
        at = len(out) - back
        if not (0 <= at < len(out) and out[at] == plain):  # folding moved it: look for it
            at = next((i for i in reversed(range(len(out))) if out[i] == plain), -1)
        if at >= 0:
            out[at] = item
    return out
