"""The pure planner: unit costs + budget + steps -> one action per unit.

Rules:
1. Sans-I/O: data in, a Plan out. No clock, environment or logging here; token costs come
   only through `Costs.measure`, asked for the units whose costs decide the plan (rule 7).
   The actions chosen so far and the running estimate are a `_work.Work`.
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
5. Finally relax, newest first (`_relax` rule 1): each unit gets the lightest action that
   still fits, so the newest unit not kept whole is one that genuinely did not fit. Tail
   units that yielded are relaxed toward the budget, not the target.
6. A trimmed unit gets an allowance, newest first: its smallest trim plus the room left
   under the budget in the tail (the output the agent just asked for is cut only as much
   as the room requires); the newest output outside the tail, which the conversation has
   moved past, takes the room under the target (at least its prune size, when the budget
   has it), so an agent loop's next turn does not compact again at once.
7. Measured on demand, the same plan: whether the messages fit is settled by measuring
   the protected units (every plan measures them), then the others newest first, until
   those alone are over the goal; a unit kept whole that a pass removes is not measured
   when its floor shows it costs something; prune and mask passes that the fold would
   undo (a summarize step follows and even every unit at its cheapest would not fit) are
   skipped, which the newest-first scan that finds the fold's cut shows (measured as far
   as the fold's own scan goes, then floors past it: `_scan` rule 2); the relax passes
   measure only what may fit (`_relax` rule 2). When the floor with the smallest preamble
   is over the limit nothing fits: the relax passes (which keep only what fits) are
   skipped, and a tail unit whose ladder ends in a removal takes it at once. Every choice
   is the one made with every cost known (checked against tests/planning/reference_planner).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._strategies._eviction import Eviction
from .._strategies._steps import Chain, Drop, Mask, Prune, Summarize
from ._plan import Action, Costs, KnownCosts, Measured, Plan, PlanBudget, Protection, UnitCost
from ._relax import relax as _relax
from ._scan import outside, over, over_bounded
from ._work import GONE as _GONE
from ._work import Work

_KEEP, _PRUNE, _MASK, _FOLD, _DROP, _TRIM = (
    Action.KEEP,
    Action.PRUNE,
    Action.MASK,
    Action.FOLD,
    Action.DROP,
    Action.TRIM,
)


def plan(
    costs: Sequence[UnitCost] | Costs,
    budget: PlanBudget,
    steps: Chain,
    tail_share: float = 0.5,
) -> Plan:
    """Choose an action for every unit so the messages fit `budget.available` (rules 1-7)."""
    work = Work(KnownCosts(costs) if isinstance(costs, Sequence) else costs, budget)
    if work.fits():
        return _result(work, len(work.actions), "fits without compaction")
    tail_start = _tail_start(work, steps, tail_share)
    work.hopeless = _hopeless(work)
    old = [i for i in range(tail_start) if work.flags[i].protection is Protection.NONE]
    _greedy(work, (i for i in old if work.flags[i].droppable), _DROP)
    undone = False
    for k, step in enumerate(steps.steps):
        if work.fits():
            break
        # A skipped pass changes nothing, so the next pass before the same fold, with fewer
        # ways left to shrink, is undone too: asked once per run of passes (rule 7).
        undone = isinstance(step, Prune | Mask) and (
            undone or _undone_by_fold(work, old, steps.steps[k:], steps)
        )
        if undone:
            continue
        _apply(work, step, old, steps)
    if not work.fits():
        work.goal = work.limit
        _last_resort(work, steps)
        _relax(work, steps, _tail(work))
        work.goal = budget.available
    _relax(work, steps)  # newest first; it stops at a trimmed unit (rule 5)
    return _result(work, tail_start, _reason(work))


def _hopeless(work: Work) -> bool:
    """Whether the floor (the hard-protected units, all measured by `_tail_start`) with the
    smallest preamble any plan could have is over the limit: then no plan fits, every pass
    runs to its end and the relax passes change nothing (rule 7)."""
    budget = work.budget
    if budget.bridge < 0:
        return False
    preambles = [budget.preamble_kept, budget.preamble_folded, budget.preamble_dropped]
    if budget.preamble_folded_small is not None:
        preambles.append(budget.preamble_folded_small)
    hard = sum(
        work.measure(i).tokens for i, f in enumerate(work.flags) if f.protection is Protection.HARD
    )
    return hard + min(preambles) > work.limit


def _apply(work: Work, step: Prune | Mask | Summarize | Drop, old: list[int], steps: Chain) -> None:
    match step:
        case Prune():
            _greedy(work, old, _PRUNE)
        case Mask():
            _greedy(work, old, _MASK)
        case Summarize():
            _fold(work, old, step.eviction, steps)
        case Drop():
            _greedy(work, old, _DROP)


def _tail_start(work: Work, steps: Chain, tail_share: float) -> int:
    """Index of the oldest unit of the verbatim recent tail (rule 4)."""
    budget, flags = work.budget, work.flags
    protected = sum(
        work.measure(i).tokens for i, f in enumerate(flags) if f.protection is not Protection.NONE
    )
    preamble = budget.preamble_folded if steps.get("summarize") else budget.preamble_dropped
    room = budget.available - protected - preamble
    limit = max(0, min(int(tail_share * budget.available), room))
    used = 0
    start = len(flags)
    for i in range(len(flags) - 1, -1, -1):
        if flags[i].protection is Protection.NONE:
            if not limit and work.costs.floor(i, 0) > 0:
                break  # no room at all, and the unit costs something: no need to measure it
            tokens = work.measure(i).tokens
            if used + tokens > limit:
                break
            used += tokens
        start = i
    return start


def _greedy(work: Work, units: Iterable[int], action: Action) -> None:
    """Apply `action`, oldest first, wherever it saves tokens, until the messages fit; a
    unit kept whole and not measured yet is removed unmeasured when its floor is over 0."""
    for i in units:
        if work.fits():
            return
        new = work.cost(i, action)
        if new is None:
            continue
        if not new and work.unmeasured(i) and work.costs.floor(i, 0) > 0:
            work.set(i, action)  # kept whole (unmeasured), it costs more than nothing
            continue
        current = work.cost(i, work.actions[i])
        if current is not None and new < current:
            work.set(i, action)


def _passes(steps: Chain) -> list[Action]:
    """The lighter actions the fold considers (the chain's prune and mask)."""
    return [a for a, name in ((_PRUNE, "prune"), (_MASK, "mask")) if steps.get(name)]


def _foldable(work: Work, old: list[int]) -> list[int]:
    return [i for i in old if work.flags[i].foldable and work.actions[i] is not _DROP]


def _undone_by_fold(
    work: Work, old: list[int], rest: Sequence[Prune | Mask | Summarize | Drop], steps: Chain
) -> bool:
    """Whether the prune or mask pass `rest[0]` would be undone by a summarize step that
    follows: only prune and mask passes lie between them, every old unit may fold, and
    even at its cheapest under them no unit set can fit, so the passes never stop early
    and the fold resets every unit they touched (rule 7)."""
    between = 0
    while between < len(rest) and isinstance(rest[between], Prune | Mask):
        between += 1
    if between == 0 or between == len(rest) or not isinstance(rest[between], Summarize):
        return False
    if any(not work.flags[i].foldable for i in old if work.actions[i] is not _DROP):
        return False
    if work.hopeless:  # the room below is under the floor's excess: negative
        return True
    units = _foldable(work, old)
    passes = [_PRUNE if isinstance(s, Prune) else _MASK for s in rest[:between]]
    others = outside(work, units)
    room = work.goal - others - work.overhead()
    if room < 0:
        return True
    fold_room = work.budget.available - work.budget.preamble_folded - others
    return over_bounded(work, units, passes, room, exact=fold_room)


def _fold(work: Work, old: list[int], eviction: Eviction, steps: Chain) -> None:
    """Fold the fewest oldest units that make the rest fit at their cheapest (rule 3)."""
    units = _foldable(work, old)
    if not units:
        return
    n = len(units)
    if work.hopeless:  # the rest holds the floor: the room is negative
        room = -1
    else:
        room = work.budget.available - work.budget.preamble_folded - outside(work, units)
    if room < 0:
        needed = n
    else:
        cut = over(work, units[1:], _passes(steps), room)
        needed = 1 if cut is None else cut + 2
    k = min(n, max(needed, eviction.count(n)))
    work.remove(units[:k], _FOLD)
    remaining = units[k:]
    for i in remaining:
        if work.actions[i] is not _KEEP:  # undo what a pass before the fold did
            work.set(i, _KEEP)
    if steps.get("prune"):
        _greedy(work, remaining, _PRUNE)
    if steps.get("mask"):
        _greedy(work, remaining, _MASK)


def _last_resort(work: Work, steps: Chain) -> None:
    """Toward the limit: fold or drop the recent tail, shrink the summary, let the protected
    tail yield, drop the folded span (rule 3)."""
    n = len(work.actions)
    open_units = [
        i
        for i in range(n)
        if work.flags[i].protection is Protection.NONE and work.actions[i] not in _GONE
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
        work.remove([i for i in range(n) if work.actions[i] is _FOLD], _DROP)


def _tail(work: Work) -> list[int]:
    return [i for i, f in enumerate(work.flags) if f.protection is Protection.TAIL]


def _yield_tail(work: Work, steps: Chain) -> None:
    """The protected tail yields, oldest unit first: trimmed to its smallest, masked, then
    folded (or dropped), until the messages fit."""
    ladder = [a for a in (_TRIM, _MASK) if steps.get("prune" if a is _TRIM else "mask")]
    if steps.get("summarize"):
        ladder.append(_FOLD)
    elif steps.get("drop"):
        ladder.append(_DROP)
    gone = ladder[-1] if ladder and ladder[-1] in _GONE else None
    for i in _tail(work):
        if gone is not None and _gone_at_once(work, i, gone):
            continue
        for action in ladder:
            if work.fits():
                return
            new = work.cost(i, action)
            current = work.cost(i, work.actions[i])
            if new is not None and current is not None and new < current:
                work.set(i, action)


def _gone_at_once(work: Work, i: int, gone: Action) -> bool:
    """Remove tail unit `i` with `gone`, the ladder's last step, when nothing can fit and
    the unit costs something under any other action: the ladder would end there (rule 7)."""
    if not work.hopeless or work.cost(i, gone) is None or work.costs.floor(i, 0) <= 0:
        return False
    work.set(i, gone)
    return True


def _reason(work: Work) -> str:
    estimate = work.estimate()
    if estimate <= work.budget.available:
        return "compacted to the target"
    protected = sum(  # as planned: a tail that yields is named at what it keeps
        work.cost(i, work.actions[i]) or 0
        for i, f in enumerate(work.flags)
        if f.protection is not Protection.NONE
    )
    need = f"protected messages need {protected} tokens and the preamble {work.preamble()}"
    if estimate <= work.limit:
        return f"compacted within the budget but above the target: {need}"
    return f"does not fit: {need}, but the messages may only use {work.limit}"


def _result(work: Work, tail_start: int, reason: str) -> Plan:
    estimate = work.estimate()
    allowances = _allowances(work)
    extra = sum(
        a - (work.measure(i).trimmed or 0) for i, a in enumerate(allowances) if a is not None
    )
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


def _allowances(work: Work) -> tuple[int | None, ...]:
    """Each trimmed unit's smallest trim plus the room left, newest first (rule 6)."""
    if _TRIM not in work.actions:
        return ()
    estimate = work.estimate()
    slack = max(0, work.limit - estimate)
    room = work.budget.available - estimate
    out: list[int | None] = [None] * len(work.actions)
    for i in range(len(work.actions) - 1, -1, -1):
        if work.actions[i] is not _TRIM:
            continue
        cost = work.measure(i)
        if cost.trimmed is not None:
            extra = min(slack, _extra(cost, cost.trimmed, room))
            out[i] = cost.trimmed + extra
            slack -= extra
            room -= extra
    return tuple(out)


def _extra(cost: Measured, trimmed: int, room: int) -> int:
    """Tokens a trimmed unit may take beyond its smallest trim (rule 6): all it has for the
    tail; for the newest output outside it, the room under the target, at least its prune."""
    whole = max(0, cost.tokens - trimmed)
    if cost.protection is Protection.TAIL:
        return whole
    pruned = trimmed if cost.pruned is None else cost.pruned
    return min(whole, max(room, pruned - trimmed, 0))
