"""Which session a request continues: the digests that tell a conversation's items apart.

Rules:
1. A request continues a session when its items extend the ones the session holds: the
   same root (endpoint, model, system prompt, first two items), at least as many items,
   the item at its anchor (`anchor`: a fixed item in the first half of the history) with
   the digest the session kept, and its first items, as many as the session holds, with
   the session's chain digest (`chained`: every item in order). So two conversations
   that open alike and later say the same thing at the same place never share a session,
   and a client that rewrites its own history starts a new one. Matching digests every
   item once (a body read past a known prefix, rule 5, digests only its new ones). With
   an `x-contextfold-session` header the session is named by the client instead; a named
   session whose items do not continue starts over under that name. A session holding one
   item has the root of that item alone: a request of two or more items that finds no
   session under its own root looks there too, and the session it continues takes the
   request's root from then on (a one-message first request is not a conversation apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._store import Meta, SessionStore
from ._wire import digest


def anchor(length: int) -> int:
    """The anchor item of a session holding `length` items: index 2**k - 1 (0, 1, 3, 7,
    ...) in the first half, so a session only ever needs the digests of those items."""
    return max(0, (1 << (length.bit_length() - 1)) // 2 - 1) if length > 0 else 0


def is_anchor(index: int) -> bool:
    return (index + 1) & index == 0


def match(
    store: SessionStore,
    root: str,
    items: Sequence[object],
    chains: Sequence[str],
    named: str | None,
) -> Meta | None:
    """The session this request continues (rule 1); `chains[i]` chains `items[:i]`."""
    found = [store.meta(named_sid(named))] if named else store.candidates(root)
    best: Meta | None = None
    digests: dict[int, str] = {}

    def at(index: int) -> str:
        if index not in digests:
            digests[index] = digest(items[index])
        return digests[index]

    for meta in found:
        if meta is None or meta.root != root or not 0 < meta.length <= len(items):
            continue
        if chains[meta.length] == meta.last and at(anchor(meta.length)) == meta.middle:
            best = meta if best is None or meta.length > best.length else best
    return best


def chained(chain: str, items: Iterable[object]) -> str:
    """The chain digest of a session holding `chain`'s items and then `items` (rule 1)."""
    for item in items:
        chain = digest([chain, digest(item)])
    return chain


def prefix_chains(items: Sequence[object]) -> list[str]:
    """The chain digest of every prefix of `items`: `[chain of items[:0], ..., of items]`."""
    chains = [""]
    for item in items:
        chains.append(chained(chains[-1], [item]))
    return chains


def named_sid(name: str) -> str:
    """A store key for a client-chosen session name (any text, never stored as given)."""
    return "h" + digest(name)[:24]
