"""ContextManager: the one stateful piece, for agent loops.

Rules:
1. The manager owns the view (what is sent), pins and droppable marks, the archive, the
   counter and its calibration. Decisions are the pure planner's; effects happen here.
2. New messages are appended to the view verbatim. Compaction runs only when the view
   passes the high-water mark (down to the low-water mark), or, at `prune_at`, as a
   prune-only pass. In between, the prefix already sent stays byte-identical (I7).
3. Compaction works on the view itself, so an earlier summary is merged, not redone, and
   masked payloads stay masked.
4. A turn costs O(new messages): the view's entries keep their counts and wire forms
   (`_manager_entries`), so `view()` neither recounts nor re-renders the history.
5. Pins and marks follow their messages through compactions (by sequence number).
6. `snapshot()` is plain JSON with the policy and the archive's place; `restore()` checks
   it and continues exactly where the snapshot was taken.
7. Types: `ContextManager[W]` hands out `list[W]`, W being the caller's wire message type
   (e.g. `ChatCompletionMessageParam`, anthropic's `MessageParam`); unparameterised it is
   `Any`, so a typed caller passes `view()` to the SDK without casts either way.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Iterable, Mapping
from statistics import median
from typing import TYPE_CHECKING, Any, Generic, cast

from ._adapters import check_format
from ._adapters._sdk import to_plain
from ._archive import Archive
from ._arguments import checked
from ._engine._counting import (
    counter_name,
    default_summarizer,
    fixed_overhead,
    reads_whole_spans,
    resolve_counter,
)
from ._engine._drive import Flow, arun, run
from ._engine._flow import Marks, Outcome, Settings, compact_flow
from ._errors import ConfigurationError
from ._manager_entries import Entries
from ._manager_intake import output_fields, read_batch, read_message, tool_specs
from ._manager_intake import prompt_tokens as read_prompt_tokens
from ._messages import Conversation, Message, Part, Text, ToolSpec
from ._planning._trigger import Marks as WaterMarks
from ._planning._trigger import Trigger, TriggerState, adapted_low, after, decide
from ._policy import Policy
from ._report import Report
from ._snapshot import dump_state, load_state, load_trigger
from ._strategies._steps import Prune, chain
from ._summarizers._protocol import Summarizer
from ._tokens._calibrated import CalibratedCounter
from ._tokens._protocol import TokenCounter

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    W = TypeVar("W", default=Any)
else:  # the default matters only to type checkers; the core needs no typing_extensions
    from typing import TypeVar

    W = TypeVar("W")
"""The wire message type a view holds."""

_TURN_WINDOW = 16
_MIN_TURNS = 3


class ContextManager(Generic[W]):
    """Holds an agent's history and hands out a view that fits the budget."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        format: str = "openai-chat",
        system: str | None = None,
        tools: Iterable[ToolSpec | Mapping[str, object]] = (),
        request_fields: Mapping[str, object] | None = None,
        summarizer: Summarizer | None = None,
        counter: TokenCounter | None = None,
        archive: Archive | None = None,
        policy: Policy | None = None,
        **options: object,
    ) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ConfigurationError(f"budget must be a positive number of tokens, got {budget!r}")
        policy, archive, summarizer = checked(policy, archive, summarizer)
        self.budget = budget
        self.model = model
        self.format = check_format(format)
        base = policy or Policy()
        self.policy = base.replace(**options) if options else base
        inner = resolve_counter(model, self.format, counter)
        self.counter = inner if isinstance(inner, CalibratedCounter) else CalibratedCounter(inner)
        self.summarizer: Summarizer = summarizer or default_summarizer(self.counter)
        self.archive = archive if archive is not None else Archive()
        self.tools = tool_specs(tools, format)
        self.request_fields = output_fields(request_fields or {})
        """What of a request body costs tokens besides its items and tools (`_manager_intake`
        rule 6)."""
        self.last_report: Report | None = None
        self._view = Entries(self.format, self.counter.inner.count)
        self._next = 0
        self._pins: set[int] = set()
        self._droppable: set[int] = set()
        self._observed: list[tuple[int, int]] = []
        self._sent = 0
        self._trigger = TriggerState()
        self._turns: deque[int] = deque(maxlen=_TURN_WINDOW)
        """Tokens each recent turn added (what the view grew by between two views)."""
        self._raw_seen = 0
        self._overhead_raw = fixed_overhead(self._request(), self.counter.inner)
        if system is not None:
            self.add(Message("system", (Text(system),)))

    def _request(self) -> Conversation:
        """The request around the view: what its fixed overhead is counted from."""
        return Conversation((), tools=self.tools, extras=self.request_fields)

    # --- history ---------------------------------------------------------------------

    def add(self, message: object, *, pin: bool = False, droppable: bool = False) -> int:
        """Append one message (a wire dict in this manager's format, or a neutral Message)."""
        seq = -1
        for item in self._parse(message):
            seq = self._append(item, pin=pin, droppable=droppable)
        return seq

    def extend(self, messages: Iterable[object]) -> None:
        """Append several messages, all or none: a bad one raises naming its index in
        `messages`, and none of them is added (`_manager_intake` rule 3)."""
        for item in read_batch(messages, self._parse):
            self._append(item, pin=False, droppable=False)

    def _parse(self, wire: object) -> list[Message]:
        return read_message(wire, self.format)

    def _append(self, message: Message, *, pin: bool, droppable: bool) -> int:
        seq = self._next
        self._next += 1
        self._view.append(message, seq)
        if pin:
            self._pins.add(seq)
        if droppable:
            self._droppable.add(seq)
        return seq

    def pin_last(self) -> None:
        """Pin the newest message (with its tool partners: pins cover whole units)."""
        if not self._view.items or self._view.items[-1].seq is None:
            raise ConfigurationError("there is no message to pin")
        self._pins.add(self._next - 1)

    def pin_at(self, seq: int) -> None:
        """Pin the message that `add` numbered `seq`; it must still be in the view."""
        if all(e.seq != seq for e in self._view.items):
            raise ConfigurationError(f"message {seq} is not in the view (folded or unknown)")
        self._pins.add(seq)

    def unpin(self, seq: int) -> None:
        """Remove a pin."""
        self._pins.discard(seq)

    # --- the view --------------------------------------------------------------------

    def tokens(self) -> int:
        """Tokens the current view costs (calibrated)."""
        return self.counter.estimate(self._overhead_raw + self._view.raw_total)

    def messages(self) -> list[Message]:
        """The current view in neutral form."""
        return self._view.messages()

    def view(self) -> list[W]:
        """The wire messages to send now, compacted first if the view is past a mark."""
        self._note_turn()
        trigger, flow = self._flow()
        if flow is not None:
            self._accept(self._run(flow), trigger)
        return self._render()

    def _note_turn(self) -> None:
        """Remember what the view grew by since it was last sent (Policy rule 6)."""
        grown = self._view.raw_total - self._raw_seen
        if grown > 0:
            self._turns.append(self.counter.estimate(grown) - self.counter.estimate(0))

    async def aview(self) -> list[W]:
        """Awaitable `view`: summaries come from `asummarize` when available."""
        self._note_turn()
        trigger, flow = self._flow()
        if flow is not None:
            self._accept(await self._arun(flow), trigger)
        return self._render()

    def compact(self) -> Report:
        """Compact now, down to the low-water mark, whatever the view's size."""
        flow = self._make_flow(self.policy, self._marks().low)
        return self._accept(self._run(flow), Trigger.FULL)

    def _run(self, flow: Flow) -> Outcome:
        """Drive a compaction within the policy's deadline (storage warnings reported)."""
        return run(flow, self.summarizer, self.policy.deadline, archive=self.archive)

    async def _arun(self, flow: Flow) -> Outcome:
        return await arun(flow, self.summarizer, self.policy.deadline, archive=self.archive)

    def _marks(self) -> WaterMarks:
        policy, budget = self.policy, self.budget
        prune = isinstance(policy.steps.get("prune"), Prune)
        high = int(policy.high * budget)
        low = int(policy.low * budget)
        if policy.adapt and len(self._turns) >= _MIN_TURNS:  # rule 6 of Policy
            low = adapted_low(low, high, budget, int(median(self._turns)))
        return WaterMarks(
            high=high,
            low=low,
            budget=budget,
            prune_at=int(policy.prune_at * budget) if prune else None,
            slack=max(1, budget // 20),
        )

    def _flow(self) -> tuple[Trigger, Flow | None]:
        marks = self._marks()
        trigger = decide(self.tokens(), marks, self._trigger)
        if trigger is Trigger.FULL:
            return trigger, self._make_flow(self.policy, marks.low)
        if trigger is Trigger.PRUNE:
            prune = self.policy.steps.get("prune")
            assert isinstance(prune, Prune)
            return trigger, self._make_flow(self.policy.replace(steps=chain(prune)), marks.low)
        self._trigger = after(trigger, self.tokens(), marks, self._trigger)
        return trigger, None

    def _make_flow(self, policy: Policy, target: int) -> Flow:
        settings = Settings(
            self.budget,
            target,
            self.format,
            policy,
            self.counter,
            counter_name(self.counter),
            self.counter.fixed_overhead(self._request()),
            pending_tail=True,
            card_ceiling=self.policy.high,
            whole_spans=reads_whole_spans(self.summarizer),
        )
        marks = Marks(self._view.indexes(self._pins), self._view.indexes(self._droppable))
        scale = self.counter.scale
        counts = [math.ceil(e.raw * scale) for e in self._view.items]  # as the counter would say
        return compact_flow(self.messages(), settings, marks, self.archive, counts)

    def _accept(self, outcome: Outcome, trigger: Trigger) -> Report:
        self.last_report = outcome.report
        if outcome.report.compacted:
            self._view.replace(outcome.messages, outcome.origins)
        self._trigger = after(trigger, self.tokens(), self._marks(), self._trigger)
        return outcome.report

    def _render(self) -> list[W]:
        wires = self._view.wires()
        self._sent = self._overhead_raw + self._view.raw_total
        self._raw_seen = self._view.raw_total
        return cast(list[W], list(wires))

    def system_prompt(self) -> str | list[Any] | None:
        """Anthropic's top-level `system` for the current view (None for other formats)."""
        return self._view.system_prompt()

    # --- calibration, recall, snapshots ------------------------------------------------

    def observe_usage(self, prompt_tokens: object) -> None:
        """Learn from the provider's reported prompt tokens for the last view sent: a
        number, or the response's usage (Anthropic's cache reads and writes count)."""
        actual = read_prompt_tokens(prompt_tokens)
        if self._sent <= 0:
            raise ConfigurationError("observe_usage() needs a view() sent first")
        self.counter.observe(self._sent, actual)
        window = self.counter.window  # what the fit uses, so a snapshot restores the fit
        self._observed = [*self._observed, (self._sent, actual)][-window:]

    def recall(self, ref: str) -> Message | Part | str:
        """The original payload behind a marker's reference."""
        return self.archive.get(ref)

    def snapshot(self) -> dict[str, object]:
        """The manager's state as plain JSON data (the archive too when it is in memory)."""
        return dump_state(
            budget=self.budget,
            model=self.model,
            format=self.format,
            tools=self.tools,
            request_fields=self.request_fields,
            entries=[(e.message, e.seq) for e in self._view.items],
            next_seq=self._next,
            pins=self._pins,
            droppable=self._droppable,
            observed=self._observed,
            archive=self.archive,
            policy=self.policy,
            trigger={
                **dataclasses.asdict(self._trigger),
                "turns": list(self._turns),
                "unseen": self._view.raw_total - self._raw_seen,
            },
        )

    @classmethod
    def restore(
        cls,
        snapshot: object,
        *,
        summarizer: Summarizer | None = None,
        counter: TokenCounter | None = None,
        archive: Archive | None = None,
        policy: Policy | None = None,
    ) -> ContextManager[Any]:
        """A manager continuing from `snapshot`: its policy and archive unless given here.

        Raises:
            InvalidConversation: the snapshot is malformed or was changed after it was taken.
            ArchiveError: its archive file is gone, or does not hold the view's references.
            ConfigurationError: its archive (or eviction) cannot be rebuilt: pass it.
        """
        state = load_state(to_plain(snapshot), archive, policy)
        manager = cls(
            state.budget,
            state.model,
            format=state.format,
            tools=state.tools,
            request_fields=state.request_fields,
            summarizer=summarizer,
            counter=counter,
            archive=state.archive,
            policy=state.policy,
        )
        for message, seq in state.entries:
            manager._view.append(message, seq)
        manager._next = state.next_seq
        manager._pins = set(state.pins)
        manager._droppable = set(state.droppable)
        for estimated, actual in state.observed:
            manager.counter.observe(estimated, actual)
        manager._observed = list(state.observed)
        manager._trigger, turns, unseen = load_trigger(state.trigger)
        manager._turns.extend(turns)
        manager._raw_seen = manager._view.raw_total - unseen
        return manager
