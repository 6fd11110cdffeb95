"""Trim a unit's tool results to a token allowance: the newest output, cut only as needed.

Rules:
1. Only tool-result text is cut; calls, reasoning, user and assistant text stay whole.
   A unit that already fits its allowance comes back as it is.
2. Water-filling: results at or under a common level stay whole; each larger one keeps a
   head and a tail of about the level (the prune marker in between), so small results
   survive and the big one gives up what the room cannot hold.
3. The level is checked against the real counter and lowered until the unit fits, down
   to MIN_KEEP tokens a result (faster after half the attempts, the smallest trim when
   they run out); the result is never larger than the allowance when the smallest trim
   fits it.
4. Every cut result is archived once, whatever number of attempts the sizing takes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Final

from .._messages import Message, Part, ToolResult
from .._tokens._protocol import TokenCounter
from ._transform import PruneSize, prune_result, result_tokens

MIN_KEEP: Final = 32
"""Tokens of head and tail a trimmed result keeps at the least."""
_ATTEMPTS: Final = 8

Ref = Callable[[Part], str]


def trim_span(
    span: Sequence[Message],
    ref: Ref,
    allowance: int,
    head_share: float,
    counter: TokenCounter,
    *,
    recall: bool = True,
) -> list[Message]:
    """`span` with its tool results cut so the span costs at most `allowance` (rules 1-4)."""
    counts = [counter.count(m) for m in span]
    if sum(counts) <= allowance:
        return list(span)
    sizes = {
        (mi, pi): result_tokens(part, counter)
        for mi, message in enumerate(span)
        for pi, part in enumerate(message.parts)
        if isinstance(part, ToolResult)
    }
    if not sizes:
        return list(span)
    once = _Once(ref)
    room = allowance - (sum(counts) - sum(sizes.values()))
    level = max(MIN_KEEP, _water_level(list(sizes.values()), room))
    out = list(span)
    for attempt in range(_ATTEMPTS):
        size = PruneSize(over=0, keep=level, head_share=head_share, recall=recall)
        out = _cut(span, sizes, size, once, counter)
        over = sum(counter.count(m) for m in out) - allowance
        if over <= 0 or level <= MIN_KEEP:
            break
        cut = sum(1 for size in sizes.values() if size > level)
        step = over // max(1, cut) + 1
        if attempt >= _ATTEMPTS // 2:  # cuts land on line breaks: step faster to converge
            step = max(step, level >> (_ATTEMPTS - attempt))
        level = max(MIN_KEEP, level - step)
    else:  # out of attempts and still over: the smallest trim (rule 3's floor)
        floor = PruneSize(over=0, keep=MIN_KEEP, head_share=head_share, recall=recall)
        out = _cut(span, sizes, floor, once, counter)
    return out


def _water_level(sizes: list[int], room: int) -> int:
    """The largest level L with sum(min(size, L)) <= room."""
    if sum(sizes) <= room:
        return max(sizes)
    ordered = sorted(sizes)
    below = 0
    for k, size in enumerate(ordered):
        left = len(ordered) - k
        if below + size * left > room:
            return max(0, (room - below) // left)
        below += size
    return ordered[-1]


def _cut(
    span: Sequence[Message],
    sizes: dict[tuple[int, int], int],
    size: PruneSize,
    ref: Ref,
    counter: TokenCounter,
) -> list[Message]:
    out: list[Message] = []
    for mi, message in enumerate(span):
        parts = [
            prune_result(part, ref, size, counter)
            if isinstance(part, ToolResult) and sizes.get((mi, pi), 0) > size.keep
            else part
            for pi, part in enumerate(message.parts)
        ]
        same = all(a is b for a, b in zip(parts, message.parts, strict=True))
        out.append(message if same else dataclasses.replace(message, parts=tuple(parts)))
    return out


class _Once:
    """A reference callback that archives each part once, however often it is asked."""

    __slots__ = ("_inner", "_seen")

    def __init__(self, inner: Ref) -> None:
        self._inner = inner
        self._seen: dict[int, tuple[Part, str]] = {}

    def __call__(self, part: Part) -> str:
        known = self._seen.get(id(part))
        if known is None:
            known = (part, self._inner(part))
            self._seen[id(part)] = known
        return known[1]
