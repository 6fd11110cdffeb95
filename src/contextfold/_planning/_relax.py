"""The planner's last pass: relax, newest first, every unit to the lightest action that
still fits.

Rules:
1. Each unit gets the lightest action that still fits (folds too, unless an eviction
   policy asked for them), so the newest unit not kept whole is one that genuinely did
   not fit. Droppable units stay dropped: they go first. A unit whose costs offer a trim
   (the tail, and the newest output wherever it is) is trimmed rather than pruned; when
   the newest output is trimmed, older units are not relaxed at its expense (each pass
   stops there; newer units are relaxed to a fixed point). A user turn that states
   something stays folded once a newer one is folded, so the user turns in view are newer
   than everything on the card. When nothing fits (`Work.hopeless`) the passes are
   skipped: every lighter action would be tried and taken back.
2. Measured on demand, the same result (`_planner` rule 7): a removed unit is measured
   only when its floor could fit, and a repeated pass stops, while it has changed
   nothing, at the previous pass's oldest change (the older units were tried in the state
   that pass left: they fail again).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._strategies._eviction import _Fit
from .._strategies._steps import Chain, Summarize
from ._plan import Action, Protection
from ._work import GONE as _GONE
from ._work import Work

_KEEP, _PRUNE, _MASK, _FOLD, _TRIM = (
    Action.KEEP,
    Action.PRUNE,
    Action.MASK,
    Action.FOLD,
    Action.TRIM,
)


def relax(work: Work, steps: Chain, only: Sequence[int] | None = None) -> None:
    """Newest first, give every unit (or those in `only`) the least compaction that still
    fits (rule 1)."""
    if work.hopeless:
        return  # nothing fits: every lighter action would be tried and taken back (rule 1)
    summarize = steps.get("summarize")
    folds = not isinstance(summarize, Summarize) or isinstance(summarize.eviction, _Fit)
    allowed = None if only is None else frozenset(only)
    ladders = _lighter(steps, _TRIM), _lighter(steps, _TRIM, _PRUNE)
    settled = -1  # units older than the previous pass's oldest change saw its final state
    while True:  # a lighter unit can free the preamble, so repeat to a fixed point
        oldest: int | None = None  # this pass's oldest change
        newer_gone = False  # a newer stating user turn has left (UnitCost.states)
        for i in range(len(work.actions) - 1, -1, -1):
            if i < settled and oldest is None:
                return  # nothing changed since they were tried: they fail again
            flags, action = work.flags[i], work.actions[i]
            held = action is _KEEP or (action is _FOLD and not folds) or flags.droppable
            if not held and (allowed is None or i in allowed) and not (flags.states and newer_gone):
                ladder = ladders[flags.protection is not Protection.TAIL]
                if _relax_one(work, i, ladder):
                    oldest = i
                if allowed is None and work.actions[i] is _TRIM:
                    break  # the newest output takes the room left, not older units (`_planner` 6)
            newer_gone = newer_gone or (flags.states and work.actions[i] in _GONE)
        if oldest is None:
            return
        settled = oldest


def _relax_one(work: Work, i: int, ladder: Sequence[Action]) -> bool:
    """Give unit `i` the lightest action of `ladder` that still fits; whether it changed."""
    action = work.actions[i]
    if action in _GONE and _cannot_return(work, i):
        return False
    for lighter in ladder:
        if lighter is action:
            return False
        if work.cost(i, lighter) is not None and work.try_set(i, lighter):
            return True
    return False


def _cannot_return(work: Work, i: int) -> bool:
    """Whether removed unit `i` fits under no action at all: even its floor, with the
    preamble and runs its return would leave, is over the goal. Only a quick way to the
    answer `_relax_one` would reach by trying each action, without measuring the unit; the
    floor (a token count, never negative) is asked for only when the room left decides."""
    room = work.goal - work.body - work.overhead_if_kept(i)
    return room < 0 or work.costs.floor(i, room) > room


def _lighter(steps: Chain, *middle: Action) -> list[Action]:
    """The actions from the lightest, with `middle` for pruning: a tail unit trims; another
    unit trims when its costs offer a trim (the newest output), else it prunes."""
    return [_KEEP] + [a for a in (*middle, _MASK) if steps.get(_STEP[a])]


_STEP = {_PRUNE: "prune", _TRIM: "prune", _MASK: "mask"}
