"""One ContextManager per conversation, fed only what it has not seen yet.

Rules:
1. A framework hands over its whole history on every model call; a conversation (a
   LangGraph thread, a LiteLLM session) keeps one `cf.ContextManager`, and a call costs
   O(new messages): only the items after those already fed are converted and added.
2. The history continues the conversation when every item fed so far is still there, in
   order and unchanged: equal to the copy taken when it was fed (`snapshot`), so an item
   changed in place (the very object fed, its content edited: a redaction) is seen too.
   The check is one list comparison; the copies share the items' strings, so comparing
   them costs a pointer compare per string, not a pass over the text. Anything else (an
   item edited, inserted or removed anywhere, a shorter history, another conversation
   under the same key, other tools: rule 6) starts a fresh manager over the whole
   history. All managers
   share one archive, so every reference shown to the model stays recallable,
   whichever conversation made it.
3. The view comes back paired with the original items: a message the manager kept
   unchanged maps to the framework's own object (ids, metadata and provider blocks
   intact); compaction artifacts (markers, summaries, the card) map to None and the
   caller converts their wire form. An item that became several messages maps back
   once, with its first, when all of them come back unchanged and in a row; otherwise
   none of them maps back, so no item is sent twice or with what was folded out of it.
4. Conversations are kept in least-recently-used order, at most `limit` of them.
5. One call at a time feeds and views a conversation's manager: a call holds the
   conversation's lock from checking that its history continues the conversation to
   pairing the view, so calls from worker threads (where every conversation of an agent
   run without a checkpointer has the same key) never see each other's messages. An
   awaited call never blocks the event loop on that lock: while the conversation is busy
   it views its history with a manager of its own.
6. A manager counts the tools of the call that made it, so a conversation's calls also
   carry what their manager was made for (`setup`: the tools as counted): a call whose
   setup differs (tools added, taken away or changed) starts a fresh manager too.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import contextfold as cf

T = TypeVar("T")

Wire = dict[str, object]
"""One OpenAI chat message as a plain dict."""


@dataclass
class _Thread(Generic[T]):
    manager: cf.ContextManager
    setup: object = None
    """What the manager was made for (rule 6)."""
    fed: list[T] = field(default_factory=list)
    """A copy of every item fed, in order (rule 2)."""
    origins: dict[int, tuple[cf.Message, T, int]] = field(default_factory=dict)
    """id(neutral message) -> (that message, the item it came from, how many messages
    that item became) (rule 3)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held by the one call feeding and viewing this conversation (rule 5)."""

    @property
    def count(self) -> int:
        """How many items were fed."""
        return len(self.fed)

    def continues(self, items: Sequence[T], setup: object) -> bool:
        """Whether `items` starts with every item fed (rule 2), for the same setup (rule 6)."""
        fed = self.fed
        if setup != self.setup:
            return False
        if len(items) < len(fed):
            return False
        head = items[: len(fed)]
        return (head if isinstance(head, list) else list(head)) == fed


class Threads(Generic[T]):
    """The managers of many conversations, keyed by the framework's conversation id."""

    def __init__(
        self,
        to_wire: Callable[[T], list[Wire]],
        *,
        archive: cf.Archive | None = None,
        limit: int = 1024,
    ) -> None:
        if limit < 1:
            raise cf.ConfigurationError(f"limit must keep at least 1 conversation, got {limit}")
        self.archive = archive if archive is not None else cf.Archive()
        self._to_wire = to_wire
        self._limit = limit
        self._threads: OrderedDict[Hashable, _Thread[T]] = OrderedDict()
        self._lock = threading.Lock()

    def manager(self, key: Hashable) -> cf.ContextManager | None:
        """The manager of conversation `key`, None before its first model call."""
        with self._lock:
            thread = self._threads.get(key)
        return None if thread is None else thread.manager

    def view(
        self,
        key: Hashable,
        items: Sequence[T],
        make: Callable[[cf.Archive], cf.ContextManager],
        setup: object = None,
    ) -> list[tuple[Wire, T | None]]:
        """The compacted view of `items`, each wire message with its original item; `make`
        makes a manager for `setup` (rule 6) when the conversation has none that fits."""
        while True:
            thread = self._thread(key, items, make, setup)
            with thread.lock:
                if thread.continues(items, setup):  # still: another call may have fed it
                    self._feed(thread, items)
                    return self._pair(thread, thread.manager.view())

    async def aview(
        self,
        key: Hashable,
        items: Sequence[T],
        make: Callable[[cf.Archive], cf.ContextManager],
        setup: object = None,
    ) -> list[tuple[Wire, T | None]]:
        """Awaitable `view` (LLM summarizers are awaited)."""
        thread = self._thread(key, items, make, setup)
        if not _claim(thread, items, setup):
            thread = _Thread(make(self.archive), setup)  # busy: a manager of its own (rule 5)
            thread.lock.acquire()
        try:
            self._feed(thread, items)
            return self._pair(thread, await thread.manager.aview())
        finally:
            thread.lock.release()

    def _thread(
        self,
        key: Hashable,
        items: Sequence[T],
        make: Callable[[cf.Archive], cf.ContextManager],
        setup: object,
    ) -> _Thread[T]:
        with self._lock:
            thread = self._threads.get(key)
            if thread is None or not thread.continues(items, setup):
                thread = _Thread(make(self.archive), setup)
                self._threads[key] = thread
            self._threads.move_to_end(key)
            while len(self._threads) > self._limit:
                self._threads.popitem(last=False)
        return thread

    def _feed(self, thread: _Thread[T], items: Sequence[T]) -> None:
        manager = thread.manager
        for item in items[thread.count :]:
            before = len(manager.messages())
            manager.extend(self._to_wire(item))
            made = manager.messages()[before:]
            for message in made:
                thread.origins[id(message)] = (message, item, len(made))
            thread.fed.append(snapshot(item))

    @staticmethod
    def _pair(thread: _Thread[T], wires: list[object]) -> list[tuple[Wire, T | None]]:
        messages = thread.manager.messages()
        if len(messages) != len(wires):  # pragma: no cover - openai-chat renders 1:1
            raise cf.ConfigurationError("integrations work in the openai-chat format only")
        found = [_origin(thread, message) for message in messages]
        out: list[tuple[Wire, T | None]] = []
        at = 0
        while at < len(messages):
            wire, origin = wires[at], found[at]
            assert isinstance(wire, dict)
            if origin is not None and _whole(found[at : at + origin[2]], origin):
                out.append((wire, origin[1]))  # the whole item, once (rule 3)
                at += origin[2]
            else:
                out.append((wire, None))
                at += 1
        thread.origins = {id(m): o for m, o in zip(messages, found, strict=True) if o is not None}
        return out


def snapshot(item: T) -> T:
    """A copy of `item` as fed, equal to it until it is changed (rule 2). An item that
    cannot be copied, or whose copy is not equal to it (an object without value equality,
    such as a tool's own result object), is kept itself: only replacing it is seen."""
    try:
        copied = copy.deepcopy(item)
        same = bool(copied == item)
    except Exception:  # a copy or an equality that cannot be made: compare by identity
        return item
    return copied if same else item


def _claim(thread: _Thread[T], items: Sequence[T], setup: object) -> bool:
    """Take `thread`'s lock without waiting, if it is free and `items` still continue it."""
    if not thread.lock.acquire(blocking=False):
        return False
    if thread.continues(items, setup):
        return True
    thread.lock.release()
    return False


def _origin(thread: _Thread[T], message: cf.Message) -> tuple[cf.Message, T, int] | None:
    """Where a message the manager holds came from, if it is the one fed (not a rewrite)."""
    origin = thread.origins.get(id(message))
    return origin if origin is not None and origin[0] is message else None


def _whole(run: list[tuple[cf.Message, T, int] | None], first: tuple[cf.Message, T, int]) -> bool:
    """Whether `run` is every message `first`'s item became, each unchanged."""
    return len(run) == first[2] and all(o is not None and o[1] is first[1] for o in run)


class ThreadAccess:
    """What an integration holding `_threads` exposes: the archive, each thread's manager
    and its last report."""

    _threads: Threads[Any]

    @property
    def archive(self) -> cf.Archive:
        """Where every folded original is kept (shared by all threads)."""
        return self._threads.archive

    def manager(self, thread_id: Hashable = None) -> cf.ContextManager | None:
        """The ContextManager of a thread (None before its first model call)."""
        return self._threads.manager(thread_id)

    def report(self, thread_id: Hashable = None) -> cf.Report | None:
        """What the last compaction of a thread did (None if it never compacted)."""
        manager = self.manager(thread_id)
        return None if manager is None else manager.last_report
