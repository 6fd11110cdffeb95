"""The planner as it was with every cost known up front: the reference for the lazy one.

Kept verbatim from before rule 7 (measuring on demand) so tests/planning/test_lazy_planner.py
can check that the lazy planner chooses exactly the same plan. Do not change it to match.

Original header: the pure planner: unit costs + budget + steps -> one action per unit.

Rules:
1. Sans-I/O: data in, a Plan out. No counting, clock, environment or logging here.
2. Units never split: an action applies to a whole unit (a turn with all its results).
3. Order of work, cheapest first, stopping as soon as the messages fit:
   drop units the caller marked droppable; prune; mask; fold the oldest span into the
   summary (at least what the budget needs, more if the eviction policy asks); then the
   last resort, toward the budget itself: fold or drop the recent tail, shrink the
   summary, let the protected tail yield (oldest first: trimmed, masked, folded), drop
   the folded span. Only the floor (system prompt, pins, the latest user turn) never
   yields, so the plan fits whenever the floor and the preamble do.
4. The recent tail is chosen first: the newest unprotected units that fit in
   `tail_share` of the room, and never so many that folding everything else could not fit.
5. Finally relax, newest first: each unit gets the lightest action that still fits (folds
   too, unless an eviction policy asked for them), so the newest unit not kept whole is
   one that genuinely did not fit. Droppable units stay dropped: they go first. Tail
   units that yielded are relaxed toward the budget, not the target. A unit whose costs
   offer a trim (the tail, and the newest output) is trimmed rather than pruned; when the
   newest output is trimmed, older units are not relaxed at its expense. A user turn that
   states something stays folded once a newer one is folded, so the user turns in view
   are newer than everything on the card.
6. A trimmed unit gets an allowance, newest first: its smallest trim plus the room left
   under the budget in the tail (the output the agent just asked for is cut only as much
   as the room requires); the newest output outside the tail, which the conversation has
   moved past, takes the room under the target (at least its prune size, when the budget
   has it), so an agent loop's next turn does not compact again at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from contextfold._planning._plan import Action, Plan, PlanBudget, Protection, UnitCost
from contextfold._strategies._eviction import Eviction, _Fit
from contextfold._strategies._steps import Chain, Drop, Mask, Prune, Summarize

_KEEP, _PRUNE, _MASK, _FOLD, _DROP, _TRIM = (
    Action.KEEP,
    Action.PRUNE,
    Action.MASK,
    Action.FOLD,
    Action.DROP,
    Action.TRIM,
)
_GONE = (_FOLD, _DROP)


class _Work:
    """Actions chosen so far and the running token estimate."""

    def __init__(self, costs: Sequence[UnitCost], budget: PlanBudget) -> None:
        self.costs = costs
        self.budget = budget
        self.actions = [_KEEP] * len(costs)
        self.body = sum(c.tokens for c in costs)
        self.folded = 0
        self.dropped = 0
        self.runs = 0
        """Maximal runs of removed (folded or dropped) units."""
        self.small = False
        """Whether folds use the small summary reserve."""
        self.goal = budget.available
        self.limit = (
            budget.available if budget.limit is None else max(budget.limit, budget.available)
        )
        self._table: dict[Action, list[int | None]] = {
            _KEEP: [c.tokens for c in costs],
            _PRUNE: [c.pruned for c in costs],
            _MASK: [c.masked for c in costs],
            _TRIM: [c.trimmed for c in costs],
            _FOLD: [0 if c.foldable else None for c in costs],
            _DROP: [0 if c.foldable else None for c in costs],
        }
        preambles = (budget.preamble_kept, budget.preamble_folded, budget.preamble_dropped)
        small = budget.preamble_folded_small
        self.least_preamble = min(preambles if small is None else (*preambles, small))
        """No outcome's preamble costs less: a bound for the relax pass's quick refusal."""

    def cost(self, i: int, action: Action) -> int | None:
        """Tokens of unit i under `action`, None when the action does not apply."""
        return self._table[action][i]

    def set(self, i: int, action: Action) -> None:
        old = self.actions[i]
        new_cost = self.cost(i, action)
        old_cost = self.cost(i, old)
        assert new_cost is not None
        assert old_cost is not None
        self.body += new_cost - old_cost
        self.folded += (action is _FOLD) - (old is _FOLD)
        self.dropped += (action is _DROP) - (old is _DROP)
        gone, was_gone = action in _GONE, old in _GONE
        if gone != was_gone:
            neighbours = self._gone(i - 1) + self._gone(i + 1)
            self.runs += (1 - neighbours) if gone else (neighbours - 1)
        self.actions[i] = action

    def _gone(self, i: int) -> int:
        return int(0 <= i < len(self.actions) and self.actions[i] in _GONE)

    def preamble(self) -> int:
        if self.folded:
            small = self.budget.preamble_folded_small
            return small if self.small and small is not None else self.budget.preamble_folded
        if self.dropped:
            return self.budget.preamble_dropped
        return self.budget.preamble_kept

    def estimate(self) -> int:
        return self.body + self.preamble() + self.runs * self.budget.bridge

    def fits(self) -> bool:
        return self.estimate() <= self.goal

    def would_fit(self, i: int, action: Action) -> bool:
        old = self.actions[i]
        self.set(i, action)
        ok = self.fits()
        self.set(i, old)
        return ok


def plan(
    costs: Sequence[UnitCost], budget: PlanBudget, steps: Chain, tail_share: float = 0.5
) -> Plan:
    """Choose an action for every unit so the messages fit `budget.available` (rules 1-5)."""
    work = _Work(costs, budget)
    if work.fits():
        return _result(work, len(costs), "fits without compaction")
    tail_start = _tail_start(costs, budget, steps, tail_share)
    old = [i for i in range(tail_start) if costs[i].protection is Protection.NONE]
    _greedy(work, (i for i in old if costs[i].droppable), _DROP)
    for step in steps.steps:
        if work.fits():
            break
        _apply(work, step, old, steps)
    if not work.fits():
        work.goal = work.limit
        _last_resort(work, steps)
        _relax(work, steps, _tail(work))
        work.goal = budget.available
    _relax(work, steps)  # newest first; it stops at a trimmed unit (rule 5)
    return _result(work, tail_start, _reason(work))


def _apply(
    work: _Work, step: Prune | Mask | Summarize | Drop, old: list[int], steps: Chain
) -> None:
    match step:
        case Prune():
            _greedy(work, old, _PRUNE)
        case Mask():
            _greedy(work, old, _MASK)
        case Summarize():
            _fold(work, old, step.eviction, steps)
        case Drop():
            _greedy(work, old, _DROP)


def _tail_start(
    costs: Sequence[UnitCost], budget: PlanBudget, steps: Chain, tail_share: float
) -> int:
    """Index of the oldest unit of the verbatim recent tail (rule 4)."""
    protected = sum(c.tokens for c in costs if c.protection is not Protection.NONE)
    preamble = budget.preamble_folded if steps.get("summarize") else budget.preamble_dropped
    room = budget.available - protected - preamble
    limit = max(0, min(int(tail_share * budget.available), room))
    used = 0
    start = len(costs)
    for i in range(len(costs) - 1, -1, -1):
        c = costs[i]
        if c.protection is Protection.NONE:
            if used + c.tokens > limit:
                break
            used += c.tokens
        start = i
    return start


def _greedy(work: _Work, units: Iterable[int], action: Action) -> None:
    """Apply `action`, oldest first, wherever it saves tokens, until the messages fit."""
    for i in units:
        if work.fits():
            return
        new = work.cost(i, action)
        current = work.cost(i, work.actions[i])
        if new is not None and current is not None and new < current:
            work.set(i, action)


def _cheapest(work: _Work, i: int, steps: Chain) -> int:
    cost = work.costs[i]
    options = [cost.tokens]
    if steps.get("prune") and cost.pruned is not None:
        options.append(cost.pruned)
    if steps.get("mask") and cost.masked is not None:
        options.append(cost.masked)
    return min(options)


def _fold(work: _Work, old: list[int], eviction: Eviction, steps: Chain) -> None:
    """Fold the fewest oldest units that make the rest fit at their cheapest (rule 3)."""
    units = [i for i in old if work.costs[i].foldable and work.actions[i] is not _DROP]
    if not units:
        return
    current = sum(work.cost(i, work.actions[i]) or 0 for i in units)
    rest = work.body - current
    suffix = [0] * (len(units) + 1)
    for j in range(len(units) - 1, -1, -1):
        suffix[j] = suffix[j + 1] + _cheapest(work, units[j], steps)
    room = work.budget.available - work.budget.preamble_folded - rest
    needed = next((k for k in range(1, len(units) + 1) if suffix[k] <= room), len(units))
    k = min(len(units), max(needed, eviction.count(len(units))))
    for j, i in enumerate(units):
        work.set(i, _FOLD if j < k else _KEEP)
    remaining = units[k:]
    if steps.get("prune"):
        _greedy(work, remaining, _PRUNE)
    if steps.get("mask"):
        _greedy(work, remaining, _MASK)


def _last_resort(work: _Work, steps: Chain) -> None:
    """Toward the limit: fold or drop the recent tail, shrink the summary, let the protected
    tail yield, drop the folded span (rule 3)."""
    n = len(work.costs)
    open_units = [
        i
        for i in range(n)
        if work.costs[i].protection is Protection.NONE and work.actions[i] not in (_FOLD, _DROP)
    ]
    if steps.get("summarize"):
        _greedy(work, open_units, _FOLD)
    elif steps.get("drop"):
        _greedy(work, open_units, _DROP)
    if not work.fits() and work.folded and work.budget.preamble_folded_small is not None:
        work.small = True
    if not work.fits():
        _yield_tail(work, steps)
    if not work.fits() and steps.get("drop"):
        work.small = False
        for i in range(n):
            if work.actions[i] is _FOLD:
                work.set(i, _DROP)


def _tail(work: _Work) -> list[int]:
    return [i for i, c in enumerate(work.costs) if c.protection is Protection.TAIL]


def _yield_tail(work: _Work, steps: Chain) -> None:
    """The protected tail yields, oldest unit first: trimmed to its smallest, masked, then
    folded (or dropped), until the messages fit."""
    ladder = [a for a in (_TRIM, _MASK) if steps.get("prune" if a is _TRIM else "mask")]
    if steps.get("summarize"):
        ladder.append(_FOLD)
    elif steps.get("drop"):
        ladder.append(_DROP)
    for i in _tail(work):
        for action in ladder:
            if work.fits():
                return
            new = work.cost(i, action)
            current = work.cost(i, work.actions[i])
            if new is not None and current is not None and new < current:
                work.set(i, action)


def _relax(work: _Work, steps: Chain, only: Sequence[int] | None = None) -> None:
    """Newest first, give every unit (or those in `only`) the least compaction that still
    fits (rule 5)."""
    summarize = steps.get("summarize")
    folds = not isinstance(summarize, Summarize) or isinstance(summarize.eviction, _Fit)
    allowed = None if only is None else frozenset(only)
    changed = True
    while changed:  # a lighter unit can free the preamble, so repeat to a fixed point
        changed = False
        newer_gone = False  # a newer stating user turn has left (UnitCost.states)
        for i in range(len(work.costs) - 1, -1, -1):
            cost, action = work.costs[i], work.actions[i]
            held = action is _KEEP or (action is _FOLD and not folds) or cost.droppable
            if not held and (allowed is None or i in allowed) and not (cost.states and newer_gone):
                changed = _relax_one(work, i, steps) or changed
                if allowed is None and work.actions[i] is _TRIM:
                    break  # the newest output takes the room left, not older units
            newer_gone = newer_gone or (cost.states and work.actions[i] in _GONE)


def _relax_one(work: _Work, i: int, steps: Chain) -> bool:
    """Give unit `i` the lightest action that still fits; whether it changed."""
    action = work.actions[i]
    if action in _GONE and _cannot_return(work, i):
        return False
    for lighter in _lighter(work, i, steps):
        if lighter is action:
            return False
        if work.cost(i, lighter) is not None and work.would_fit(i, lighter):
            work.set(i, lighter)
            return True
    return False


def _cannot_return(work: _Work, i: int) -> bool:
    """Whether removed unit `i` fits under no action at all: even its cheapest cost with
    the cheapest preamble and one removed run fewer is over the goal. Only a quick way
    to the answer `_relax_one` would reach by trying each action."""
    c = work.costs[i]
    cheapest = min(x for x in (c.tokens, c.pruned, c.masked, c.trimmed) if x is not None)
    runs = max(0, work.runs - 1) * work.budget.bridge
    return work.body + cheapest + work.least_preamble + runs > work.goal


def _lighter(work: _Work, i: int, steps: Chain) -> list[Action]:
    """A unit's actions from the lightest: a tail unit trims rather than prunes; another
    unit tries a trim first when its costs offer one (the newest output)."""
    tail = work.costs[i].protection is Protection.TAIL
    middle = (_TRIM,) if tail else (_TRIM, _PRUNE)
    return [_KEEP] + [a for a in (*middle, _MASK) if steps.get(_STEP[a])]


_STEP = {_PRUNE: "prune", _TRIM: "prune", _MASK: "mask"}


def _reason(work: _Work) -> str:
    estimate = work.estimate()
    if estimate <= work.budget.available:
        return "compacted to the target"
    protected = sum(
        work.cost(i, work.actions[i]) or 0
        for i, c in enumerate(work.costs)
        if c.protection is not Protection.NONE
    )
    need = f"protected messages need {protected} tokens and the preamble {work.preamble()}"
    if estimate <= work.limit:
        return f"compacted within the budget but above the target: {need}"
    return f"does not fit: {need}, but the messages may only use {work.limit}"


def _result(work: _Work, tail_start: int, reason: str) -> Plan:
    estimate = work.estimate()
    allowances = _allowances(work)
    extra = sum(a - (work.costs[i].trimmed or 0) for i, a in enumerate(allowances) if a is not None)
    return Plan(
        tuple(work.actions),
        estimate,
        estimate <= work.limit,
        estimate <= work.budget.available,
        reason,
        tail_start,
        small_summary=work.small and work.folded > 0,
        allowances=allowances,
        ceiling=estimate + extra,
    )


def _allowances(work: _Work) -> tuple[int | None, ...]:
    """Each trimmed unit's smallest trim plus the room left, newest first (rule 6)."""
    if _TRIM not in work.actions:
        return ()
    estimate = work.estimate()
    slack = max(0, work.limit - estimate)
    room = work.budget.available - estimate
    out: list[int | None] = [None] * len(work.actions)
    for i in range(len(work.actions) - 1, -1, -1):
        cost = work.costs[i]
        if work.actions[i] is _TRIM and cost.trimmed is not None:
            whole = max(0, cost.tokens - cost.trimmed)
            if cost.protection is Protection.TAIL:
                want = whole
            else:  # the newest output outside the tail: the target's room, at least its prune
                pruned = cost.trimmed if cost.pruned is None else cost.pruned
                want = min(whole, max(room, pruned - cost.trimmed, 0))
            extra = min(slack, want)
            out[i] = cost.trimmed + extra
            slack -= extra
            room -= extra
    return tuple(out)
