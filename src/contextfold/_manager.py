"""ContextManager: the one stateful piece, for agent loops.

Rules:
1. The manager owns the view (what is sent), pins and droppable marks, the archive, the
   counter and its calibration. Decisions are the pure planner's; effects happen here.
2. New messages are appended to the view verbatim. Compaction runs only when the view
   passes the high-water mark (down to the low-water mark), or, at `prune_at`, as a
   prune-only pass. In between, the prefix already sent stays byte-identical (I7).
3. Compaction works on the view itself, so an earlier summary is merged, not redone, and
   masked payloads stay masked.
4. Pins and marks follow their messages through compactions (by sequence number).
5. `snapshot()` is plain JSON; `restore()` continues exactly where the snapshot was taken.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._adapters import check_format, parse, render
from ._archive import Archive
from ._engine._counting import counter_name, fixed_overhead, resolve_counter
from ._engine._drive import Flow, arun, run
from ._engine._flow import Marks, Outcome, Settings, compact_flow
from ._errors import ConfigurationError, InvalidConversation
from ._messages import Conversation, Message, Part, Text
from ._policy import Policy
from ._report import Report
from ._serialize import dump_message, load_message
from ._strategies._steps import Prune, chain
from ._summarizers._ledger import LedgerSummarizer
from ._summarizers._protocol import Summarizer
from ._tokens._calibrated import CalibratedCounter
from ._tokens._protocol import TokenCounter

SNAPSHOT_VERSION = 1


class ContextManager:
    """Holds an agent's history and hands out a view that fits the budget."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        format: str = "openai-chat",
        system: str | None = None,
        summarizer: Summarizer | None = None,
        counter: TokenCounter | None = None,
        archive: Archive | None = None,
        policy: Policy | None = None,
        **options: object,
    ) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ConfigurationError(f"budget must be a positive number of tokens, got {budget!r}")
        self.budget = budget
        self.model = model
        self.format = check_format(format)
        self.policy = (policy or Policy()).replace(**options) if options else (policy or Policy())
        self.summarizer: Summarizer = summarizer or LedgerSummarizer()
        inner = resolve_counter(model, self.format, counter)
        self.counter = inner if isinstance(inner, CalibratedCounter) else CalibratedCounter(inner)
        self._sent = 0
        self.archive = archive or Archive()
        self.last_report: Report | None = None
        self._view: list[Message] = []
        self._seqs: list[int | None] = []
        self._next = 0
        self._pins: set[int] = set()
        self._droppable: set[int] = set()
        if system is not None:
            self.add(Message("system", (Text(system),)))

    # --- history ---------------------------------------------------------------------

    def add(self, message: object, *, pin: bool = False, droppable: bool = False) -> int:
        """Append one message (wire dict in this manager's format, or a neutral Message)."""
        parsed = [message] if isinstance(message, Message) else self._parse([message])
        seq = -1
        for item in parsed:
            seq = self._append(item, pin=pin, droppable=droppable)
        return seq

    def extend(self, messages: Iterable[object]) -> None:
        """Append several messages."""
        for message in messages:
            self.add(message)

    def _parse(self, wire: list[object]) -> list[Message]:
        _, conversation = parse(wire, self.format)
        return list(conversation.messages)

    def _append(self, message: Message, *, pin: bool, droppable: bool) -> int:
        seq = self._next
        self._next += 1
        self._view.append(message)
        self._seqs.append(seq)
        if pin:
            self._pins.add(seq)
        if droppable:
            self._droppable.add(seq)
        return seq

    def pin_last(self) -> None:
        """Pin the newest message (with its tool partners: pins cover whole units)."""
        if not self._view or self._seqs[-1] is None:
            raise ConfigurationError("there is no message to pin")
        self._pins.add(self._next - 1)

    def pin_at(self, seq: int) -> None:
        """Pin the message that `add` numbered `seq`; it must still be in the view."""
        if seq not in self._seqs:
            raise ConfigurationError(f"message {seq} is not in the view (folded or unknown)")
        self._pins.add(seq)

    def unpin(self, seq: int) -> None:
        """Remove a pin."""
        self._pins.discard(seq)

    # --- the view --------------------------------------------------------------------

    def tokens(self) -> int:
        """Tokens the current view costs."""
        return self._overhead() + sum(self.counter.count(m) for m in self._view)

    def messages(self) -> list[Message]:
        """The current view in neutral form."""
        return list(self._view)

    def view(self) -> list[object]:
        """The wire messages to send now, compacted first if the view is past a mark."""
        flow = self._flow()
        if flow is not None:
            self._accept(run(flow, self.summarizer))
        self._sent = self.tokens()
        return self._render()

    async def aview(self) -> list[object]:
        """Awaitable `view`: summaries come from `asummarize` when available."""
        flow = self._flow()
        if flow is not None:
            self._accept(await arun(flow, self.summarizer))
        self._sent = self.tokens()
        return self._render()

    def compact(self) -> Report:
        """Compact now, down to the low-water mark, whatever the view's size."""
        self._accept(
            run(self._make_flow(self.policy, int(self.policy.low * self.budget)), self.summarizer)
        )
        assert self.last_report is not None
        return self.last_report

    def _flow(self) -> Flow | None:
        total = self.tokens()
        policy = self.policy
        if total > policy.high * self.budget:
            return self._make_flow(policy, int(policy.low * self.budget))
        if total > policy.prune_at * self.budget and policy.steps.get("prune") is not None:
            prune_only = policy.replace(steps=chain(policy.steps.get("prune") or Prune()))
            return self._make_flow(prune_only, int(policy.prune_at * self.budget))
        return None

    def _make_flow(self, policy: Policy, target: int) -> Flow:
        settings = Settings(
            self.budget,
            target,
            self.format,
            policy,
            self.counter,
            counter_name(self.counter),
            self._overhead(),
        )
        marks = Marks(
            frozenset(i for i, s in enumerate(self._seqs) if s in self._pins),
            frozenset(i for i, s in enumerate(self._seqs) if s in self._droppable),
        )
        return compact_flow(tuple(self._view), settings, marks, self.archive)

    def _accept(self, outcome: Outcome) -> None:
        self.last_report = outcome.report
        if not outcome.report.compacted:
            return
        self._view = list(outcome.messages)
        self._seqs = [None if o is None else self._seqs[o] for o in outcome.origins]

    def _overhead(self) -> int:
        return fixed_overhead(Conversation(tuple(self._view)), self.counter)

    def _render(self) -> list[object]:
        messages = tuple(m for m in self._view if not _lifted_system(m, self.format))
        rendered = render(Conversation(messages), self.format)
        if not isinstance(rendered, list):
            raise InvalidConversation("renderer returned a body for a message list")
        return rendered

    def system_prompt(self) -> object:
        """The system prompt in wire form for formats that carry it outside the messages."""
        system = tuple(m for m in self._view if _lifted_system(m, self.format))
        if not system:
            return None
        probe = (*system, Message("user", (Text("."),)))
        body = render(Conversation(probe, shape="body"), self.format)
        return body.get("system", body.get("instructions")) if isinstance(body, dict) else None

    # --- calibration, recall, snapshots ------------------------------------------------

    def observe_usage(self, prompt_tokens: int) -> None:
        """Learn from the provider's reported prompt tokens for the last view sent."""
        if self._sent <= 0:
            raise ConfigurationError("observe_usage() needs a view() sent first")
        self.counter.observe(self._sent, prompt_tokens)

    def recall(self, ref: str) -> Message | Part | str:
        """The original payload behind a marker's reference."""
        return self.archive.get(ref)

    def snapshot(self) -> dict[str, object]:
        """The manager's state as plain JSON data."""
        return {
            "version": SNAPSHOT_VERSION,
            "budget": self.budget,
            "model": self.model,
            "format": self.format,
            "view": [dump_message(m) for m in self._view],
            "seqs": list(self._seqs),
            "next": self._next,
            "pins": sorted(self._pins),
            "droppable": sorted(self._droppable),
        }

    @classmethod
    def restore(
        cls,
        snapshot: object,
        *,
        summarizer: Summarizer | None = None,
        counter: TokenCounter | None = None,
        archive: Archive | None = None,
        policy: Policy | None = None,
    ) -> ContextManager:
        """A manager continuing from `snapshot` (pass the archive it used)."""
        data = _snapshot_fields(snapshot)
        manager = cls(
            data["budget"],
            data["model"],
            format=data["format"],
            summarizer=summarizer,
            counter=counter,
            archive=archive,
            policy=policy,
        )
        manager._view = [load_message(m, i) for i, m in enumerate(data["view"])]
        manager._seqs = list(data["seqs"])
        manager._next = data["next"]
        manager._pins = set(data["pins"])
        manager._droppable = set(data["droppable"])
        return manager


def _lifted_system(message: Message, format: str) -> bool:
    return format != "openai-chat" and message.role == "system"


def _snapshot_fields(snapshot: object) -> dict[str, Any]:
    if not isinstance(snapshot, dict) or snapshot.get("version") != SNAPSHOT_VERSION:
        raise InvalidConversation("not a contextfold snapshot (or an unsupported version)")
    return snapshot
