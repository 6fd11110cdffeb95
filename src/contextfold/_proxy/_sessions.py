"""Sessions: one ContextManager per conversation, found again on every request.

Rules:
1. A request continues a session when its items extend the ones the session holds
   (`_matching`); with an `x-contextfold-session` header the session is named by the
   client instead.
2. A continuing request adds only its new items to the manager (O(new)); anything else
   starts a new session from the whole body.
3. Live managers stay in memory (least recently used first out, idle ones expire). The
   store's meta version says whether the copy in memory is current: a replica that did
   not see the latest turn rebuilds the manager from the store (see `_store` rule 1).
4. Each turn is saved before the request goes upstream: a log record normally, a fresh
   snapshot when the turn compacted or the log grew long.
5. Ahead of rules 1-2, `known` looks for a live session whose last body's bytes, up to
   its last item, start this body (`_prefixes`): then only the bytes after them are
   parsed (`_scan` rule 2), so a request costs O(new) to read as well. It applies only
   when the root cannot have changed (same endpoint format, model and system prompt, at
   least two items held) and the store still has the version in memory; otherwise
   rules 1-2 decide.
6. Items are held without the client's cache marks (`_marks` rule 1): they match, and
   go into the manager, whether or not the client marks them this time. A turn carries
   the request's marked items as sent; a body read past a known prefix (rule 5) has the
   marks that prefix had.
7. A continuing request that fails while its items go in (an item the manager refuses
   after it took the ones before) leaves the session's manager holding part of it: the
   session is dropped from memory, so the next request reads it back from the store as
   the last saved turn left it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import contextfold as cf

from ._marks import Marks, marks_of, unmarked
from ._matching import anchor, chained, is_anchor, match, named_sid, prefix_chains
from ._prefixes import Prefixes
from ._scan import Rest, scan_rest
from ._store import Meta, SessionStore, log
from ._wire import Encoder, Endpoint, counted_tools, digest, fixed_of, is_ours, root_of

SESSION_HEADER: Final = "x-contextfold-session"
_LOG_LIMIT: Final = 64
"""Log records after which a save writes a fresh snapshot instead (at least; a long
session waits for a record per four items, so snapshots cost O(1) per item)."""


@dataclass(slots=True)
class Live:
    """A session's manager in memory."""

    meta: Meta
    manager: cf.ContextManager
    encoder: Encoder
    logged: int
    """Log records in the store after its snapshot."""
    archive: cf.Archive
    """Where the session's folded items are (`_store` rule 3)."""
    anchors: dict[int, str] = field(default_factory=dict)
    """Digests of the client's items at every anchor index held (see `anchor`)."""
    prefix: bytes = b""
    """The last body's bytes up to the end of its last item (rule 5)."""
    head: dict[str, Any] = field(default_factory=dict)
    """The last body's members before its items."""
    fixed: tuple[object, ...] = ()
    marks: Marks = ()
    """The last request's marked items (rule 6): a body read past its prefix still has
    the ones in the prefix."""


@dataclass(frozen=True, slots=True)
class Known:
    """A body that continues a live session, read past its prefix only (rule 5)."""

    live: Live
    rest: Rest
    body: dict[str, Any]
    """The body's members; the items key holds None (only the new items were read)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One request's session after its new items went in."""

    live: Live
    view: list[object]
    compacted: bool
    """Whether this turn compacted the view."""
    tokens: int
    """The view's estimated tokens."""
    marks: Marks = ()
    """The request's items the client marked for its cache, as sent (`_marks`)."""


class Sessions:
    """Sessions over a store, with live managers cached in memory (rules 1-4)."""

    def __init__(
        self, store: SessionStore, policy: cf.Policy, ttl: float, max_live: int = 10_000
    ) -> None:
        self.store = store
        self.policy = policy
        self.ttl = ttl
        self.max_live = max_live
        self._live: OrderedDict[str, Live] = OrderedDict()
        self.prefixes = Prefixes()

    def __len__(self) -> int:
        return len(self._live)

    def turn(
        self,
        endpoint: Endpoint,
        body: Mapping[str, object],
        sent: Sequence[object],
        budget: int,
        named: str | None,
    ) -> Turn:
        """Find or start the request's session, add its new items and take the view (the
        session holds them unmarked, rule 6)."""
        items = [unmarked(item) for item in sent]
        turn = self._turn(endpoint, body, items, budget, named)
        turn.live.marks = marks_of(sent, items)
        return replace(turn, marks=turn.live.marks)

    def _turn(
        self,
        endpoint: Endpoint,
        body: Mapping[str, object],
        items: Sequence[object],
        budget: int,
        named: str | None,
    ) -> Turn:
        root = root_of(body, endpoint, items)
        chains = prefix_chains(items)
        meta = match(self.store, root, items, chains, named)
        if meta is None and named is None and len(items) > 1:  # a one-item session (`_matching`)
            meta = match(self.store, root_of(body, endpoint, items[:1]), items, chains, None)
        live = self._current(meta) if meta is not None else None
        if live is None or meta is None:
            sid = named_sid(named) if named else "s" + uuid.uuid4().hex
            return self._start(
                sid, root=root, endpoint=endpoint, body=body, items=items, budget=budget
            )
        new = list(items[meta.length :])
        _anchors(live, items)
        live.meta = replace(live.meta, root=root)  # the one-item root gives way (`_matching`)
        return self._add(live, new, budget, len(items), chains[-1])

    def known(self, raw: bytes, endpoint: Endpoint, named: str | None) -> Known | None:
        """The live session `raw` continues, read past its prefix (rule 5), if any."""
        sid = named_sid(named) if named else None
        best: Live | None = None
        for candidate in self.prefixes.candidates(raw):
            live = self._live.get(candidate)
            if live is None or (sid is not None and candidate != sid) or live.meta.length < 2:
                continue
            if live.manager.format != endpoint.format:
                continue
            if live.prefix and raw.startswith(live.prefix):
                best = live if best is None or len(live.prefix) > len(best.prefix) else best
        if best is None:
            return None
        rest = scan_rest(raw, len(best.prefix), endpoint.items)
        if rest is None or not all(isinstance(i, dict) for i in rest.items):
            return None
        body = {**best.head, endpoint.items: None, **rest.after}
        if fixed_of(body, endpoint) != best.fixed or not is_ours(body, endpoint):
            return None
        return Known(best, rest, body)

    def resume(self, known: Known, budget: int) -> Turn | None:
        """Add a known body's new items (rule 5); None when the store moved on."""
        live = known.live
        stored = self.store.meta(live.meta.sid)
        if stored is None or stored.version != live.meta.version:
            return None
        self._live.move_to_end(live.meta.sid)
        new = [unmarked(item) for item in known.rest.items]
        held = live.meta.length
        for offset, item in enumerate(new):
            if is_anchor(held + offset):
                live.anchors[held + offset] = digest(item)
        turn = self._add(live, new, budget, held + len(new), chained(live.meta.last, new))
        kept = tuple((back + len(new), item) for back, item in live.marks)  # same bytes
        live.marks = kept + marks_of(known.rest.items, new)
        return replace(turn, marks=live.marks)

    def remember(
        self, live: Live, prefix: bytes, head: dict[str, Any], fixed: tuple[object, ...]
    ) -> None:
        """Keep the body's prefix for the session's next request (rule 5)."""
        if self._live.get(live.meta.sid) is not live:
            return
        live.prefix, live.head, live.fixed = prefix, head, fixed
        self.prefixes.file(live.meta.sid, prefix)

    def _current(self, meta: Meta) -> Live | None:
        """The session's manager as the store has it (rule 3), None when it is gone."""
        live = self._live.get(meta.sid)
        if live is not None and live.meta.version == meta.version:
            self._live.move_to_end(meta.sid)
            return live
        saved = self.store.load(meta.sid)
        if saved is None:
            return None
        archive = cf.Archive(self.store.archive_for(meta.sid))
        try:
            manager = saved.rebuilt(archive)
        except (cf.ContextFoldError, ValueError, LookupError, TypeError) as exc:  # `_store` rule 5
            log.warning("session %s cannot be read back (%s); it starts over", meta.sid, exc)
            return None
        live = Live(saved.meta, manager, Encoder(), len(saved.log), archive)
        self._keep(live)
        return live

    def _start(
        self,
        sid: str,
        *,
        root: str,
        endpoint: Endpoint,
        body: Mapping[str, object],
        items: Sequence[object],
        budget: int,
    ) -> Turn:
        """A new session holding the whole request (rule 2)."""
        archive = cf.Archive(self.store.archive_for(sid))
        manager = self._manager(endpoint, body, budget, archive)
        _, conversation = cf.parse({**body, endpoint.items: items}, endpoint.format)
        skip = 1 if endpoint.system and body.get(endpoint.system) else 0
        skip = skip if endpoint.format == "openai-responses" else 0
        for message in conversation.messages:
            manager.add(message)
        meta = Meta(sid, root, 0, "", "", 0, False, skip, time.time())
        live = Live(meta, manager, Encoder(), 0, archive)
        _anchors(live, items)
        self._keep(live)
        return self._take(live, len(items), chained("", items), None)

    def _manager(
        self, endpoint: Endpoint, body: Mapping[str, object], budget: int, archive: cf.Archive
    ) -> cf.ContextManager:
        model = body.get("model")

        def new(budget: int, tools: list[object]) -> cf.ContextManager:
            return cf.ContextManager(
                budget,
                model if isinstance(model, str) else None,
                format=endpoint.format,
                tools=tools,  # type: ignore[arg-type]
                request_fields=body,  # its structured-output schema (`_wire` rule 4)
                archive=archive,
                policy=self.policy,
            )

        tools = counted_tools(body, endpoint)
        try:
            return new(budget, tools)
        except cf.ContextFoldError:  # tools we cannot read (built-in ones): count them as text
            room = max(1, budget - len(json.dumps(tools)) // 3)
            return new(room, counted_tools({}, endpoint))

    def _add(self, live: Live, new: list[object], budget: int, length: int, last: str) -> Turn:
        """Add a continuing request's new items and take the turn; on failure the session
        leaves memory (rule 7)."""
        try:
            live.manager.budget = budget
            live.manager.extend(new)
            return self._take(live, length, last, {"items": new, "budget": budget})
        except Exception:
            if self._live.get(live.meta.sid) is live:
                del self._live[live.meta.sid]
                self.prefixes.drop(live.meta.sid)
            raise

    def _take(self, live: Live, length: int, last: str, record: dict[str, object] | None) -> Turn:
        """Take the view and save the turn (rule 4): the session now holds `length`
        client items, the last with digest `last`."""
        manager = live.manager
        before = manager.last_report
        view = manager.view()
        compacted = manager.last_report is not before and bool(
            manager.last_report and manager.last_report.compacted
        )
        old = live.meta
        live.meta = Meta(
            old.sid,
            old.root,
            length,
            last,
            live.anchors[anchor(length)],
            old.version + 1,
            old.folded or compacted,
            old.skip,
            time.time(),
        )
        fresh = record is None or compacted or live.logged >= max(_LOG_LIMIT, length // 4)
        if fresh:
            self.store.save(live.meta, snapshot=json.dumps(manager.snapshot()), record=None)
            live.logged = 0
        else:
            self.store.save(live.meta, snapshot=None, record=json.dumps(record))
            live.logged += 1
        return Turn(live, view[old.skip :], compacted, manager.tokens())

    def _keep(self, live: Live) -> None:
        """Cache `live`, letting the least recently used and the idle ones go (rule 3)."""
        self._live[live.meta.sid] = live
        self._live.move_to_end(live.meta.sid)
        idle = time.time() - self.ttl
        while self._live and (
            len(self._live) > self.max_live or next(iter(self._live.values())).meta.touched < idle
        ):
            self.prefixes.drop(self._live.popitem(last=False)[0])

    def close(self) -> None:
        self.store.close()


def _anchors(live: Live, items: Sequence[object]) -> None:
    """Digest the items at anchor indexes the session has not digested yet."""
    index = 0
    while index < len(items):
        if index not in live.anchors:
            live.anchors[index] = digest(items[index])
        index = index * 2 + 1
