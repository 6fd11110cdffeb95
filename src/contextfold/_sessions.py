"""Sessions: a stateless caller's histories, each continued by its own ContextManager.

Rules:
1. A caller that is sent the whole history on every request (a server, a gateway) hands
   each history to `view`. A history continues a session when it starts with every
   message that session was given, equal as data; then only the messages after them go
   into that session's ContextManager, so a call costs O(new messages) plus one equality
   check of the history (identity first: re-sent objects compare in O(1) each).
2. Any other history starts a new session from all its messages (the longest session it
   continues wins when several do). Sessions are kept least recently used first out, at
   most `size` of them; a forgotten one simply starts over next time. A history with a
   bad message raises InvalidConversation and starts no session, so it forgets none.
3. What a session was given is kept as its own copy of the wire data (`to_plain`, then
   copied): a caller that mutates or reuses its message objects after a call cannot make
   a later history look continued when it is not.
4. The view is the manager's: it fits the budget, compacts rarely and in big steps, and
   its prefix stays byte-identical between compactions, so the provider's prompt cache
   keeps paying. It is not `compact()`'s output for the same history (that one is a pure
   function of its input and recomputes everything).
5. One lock serializes calls: a manager is not safe to share between threads, and two
   requests of one conversation must not interleave. An asyncio server calls `view` in a
   worker thread (`await asyncio.to_thread(sessions.view, history)`), so a summarizer
   that waits on the network never blocks its event loop.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

from ._adapters._sdk import to_plain
from ._archive import Archive
from ._errors import ConfigurationError, InvalidConversation
from ._manager import ContextManager
from ._messages import ToolSpec
from ._policy import Policy
from ._report import Report
from ._summarizers._protocol import Summarizer
from ._tokens._protocol import TokenCounter

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    W = TypeVar("W", default=Any)
else:  # the default matters only to type checkers; the core needs no typing_extensions
    from typing import TypeVar

    W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class Resent(Generic[W]):
    """What one `Sessions.view` call gives back."""

    messages: list[W]
    """The wire messages to send (the session's view)."""
    continued: bool
    """Whether the history continued a session (False: a new one started)."""
    report: Report | None
    """The compaction this call ran, or None when the view did not need one."""


@dataclass(slots=True)
class _Session(Generic[W]):
    manager: ContextManager[W]
    given: list[object]
    """Copies of the wire messages given so far (rule 3)."""


class Sessions(Generic[W]):
    """ContextManagers for the histories a stateless caller is sent (rules 1-5)."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        format: str = "openai-chat",
        tools: Iterable[ToolSpec | Mapping[str, object]] = (),
        summarizer: Summarizer | None = None,
        counter: TokenCounter | None = None,
        archive: Archive | None = None,
        policy: Policy | None = None,
        size: int = 64,
        **options: object,
    ) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ConfigurationError(f"size must be a positive number of sessions, got {size!r}")
        self.size = size
        self._budget, self._model, self._format = budget, model, format
        self._tools = tuple(tools)
        self._summarizer, self._counter, self._archive = summarizer, counter, archive
        base = policy or Policy()
        self._policy = base.replace(**options) if options else base
        self._new()  # the settings are checked now, not on the first request
        self._live: OrderedDict[int, _Session[W]] = OrderedDict()
        self._next = 0
        self._lock = threading.Lock()

    def _new(self) -> ContextManager[W]:
        return ContextManager(
            self._budget,
            self._model,
            format=self._format,
            tools=self._tools,
            summarizer=self._summarizer,
            counter=self._counter,
            archive=self._archive,
            policy=self._policy,
        )

    def __len__(self) -> int:
        return len(self._live)

    def view(self, messages: Sequence[W]) -> Resent[W]:
        """The view of `messages` (rule 1): continued when a session holds its start."""
        if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Iterable):
            raise InvalidConversation(
                f"view() takes the whole history as a list of messages, got "
                f"{type(messages).__name__}"
            )
        with self._lock:
            session, continued, new = self._session(list(messages))
            manager = session.manager
            before = manager.last_report
            manager.extend(new)  # a bad message raises here: a new session is not kept
            if not continued:
                self._keep(session)
            session.given.extend(_copies(new))
            view = manager.view()
            after = manager.last_report
            return Resent(view, continued, after if after is not before else None)

    def _session(self, history: list[Any]) -> tuple[_Session[W], bool, list[Any]]:
        """The session `history` continues (rule 1) or a new one (rule 2), and the
        messages the session has not been given."""
        best: tuple[int, _Session[W]] | None = None
        for key, session in self._live.items():
            held = len(session.given)
            if best is not None and held <= len(best[1].given):
                continue
            if _continues(history, session.given):
                best = (key, session)
        if best is not None:
            key, session = best
            self._live.move_to_end(key)
            return session, True, history[len(session.given) :]
        return _Session(self._new(), []), False, history

    def _keep(self, session: _Session[W]) -> None:
        """Keep a new session, forgetting the least recently used past `size` (rule 2)."""
        self._live[self._next] = session
        self._next += 1
        while len(self._live) > self.size:
            self._live.popitem(last=False)


def _continues(history: list[Any], given: list[object]) -> bool:
    """Whether `history` starts with the messages `given` (equal as wire data)."""
    held = len(given)
    if held == 0 or len(history) < held:
        return False
    if _plain(history[held - 1]) != given[-1] or _plain(history[0]) != given[0]:
        return False  # cheap refusals first: most sessions differ at an end
    if history[:held] == given:  # wire dicts: compared in C
        return True
    return all(_plain(m) == g for m, g in zip(history, given, strict=False))


def _plain(message: object) -> object:
    return message if isinstance(message, dict) else to_plain(message)


def _copies(messages: Sequence[object]) -> list[object]:
    """Rule 3: the caller's objects may change later; ours may not."""
    return [copy.deepcopy(_plain(m)) for m in messages]
