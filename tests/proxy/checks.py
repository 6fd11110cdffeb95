"""What every loop through the proxy must show, read from the upstream's record."""

from __future__ import annotations

import itertools
from typing import Any

from .upstream import Seen, Upstream


def _items(seen: Seen) -> list[Any]:
    """The request's items, less the cache marks a client moves from turn to turn."""
    body = seen.body
    items = body.get("messages", body.get("input"))
    return [_unmarked(item) for item in (items if isinstance(items, list) else [items])]


def _unmarked(value: Any) -> Any:
    if isinstance(value, list):
        return [_unmarked(v) for v in value]
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    return value


def first_requests(upstream: Upstream) -> list[Seen]:
    """The requests that carried a client turn (recall rounds left out)."""
    return [s for s in upstream.seen if not s.round]


def prefix_breaks(upstream: Upstream) -> tuple[int, int]:
    """(turns whose items extend the previous turn's, turns that rewrote them)."""
    kept = broken = 0
    turns = first_requests(upstream)
    for before, after in itertools.pairwise(turns):
        old, new = _items(before), _items(after)
        same_system = before.body.get("system") == after.body.get("system")
        if same_system and new[: len(old)] == old:
            kept += 1
        else:
            broken += 1
            assert after.tokens < before.tokens + 3_000, "a rewrite that did not compact"
    return kept, broken


def assert_healthy_loop(upstream: Upstream, compactions: float, turns: int) -> None:
    """No refusal; recall rounds happened and were answered; the prefix held between
    compactions (every rewrite of the sent items is one of the proxy's compactions)."""
    assert upstream.refused == [], [s.refused for s in upstream.refused[:3]]
    assert len(first_requests(upstream)) == turns
    assert upstream.recall_answers, "no recall round reached the upstream"
    errors = [text for text, error in upstream.recall_answers if error]
    assert not errors, errors[:2]
    kept, broken = prefix_breaks(upstream)
    assert kept > 0
    assert broken <= compactions, (broken, compactions)
