"""A Policy as plain JSON and back (snapshots carry the policy they compacted with).

Rules:
1. Every field is written; steps are a list of `{"kind": ..., <its fields>}` in chain
   order, an eviction is `{"kind": "fit" | "evict_fraction" | "retain_last" | "min_of" |
   "max_of", ...}`.
2. An eviction made outside contextfold's factories cannot be written: it becomes
   `{"kind": "custom", "repr": ...}`, and loading it raises ConfigurationError asking for
   the policy to be passed again.
3. Loading goes through the public factories, so every value is checked as when it was
   made; anything malformed raises InvalidConversation naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._errors import ConfigurationError, InvalidConversation
from ._policy import Policy
from ._strategies._eviction import (
    Eviction,
    _EvictFraction,
    _Fit,
    _MaxOf,
    _MinOf,
    _RetainLast,
    evict_fraction,
    fit,
    max_of,
    min_of,
    retain_last,
)
from ._strategies._steps import Drop, Mask, Prune, Step, Summarize, chain, drop, mask, prune
from ._strategies._steps import summarize as summarize_step

_FIELDS: Final = (
    "high",
    "low",
    "prune_at",
    "keep_last",
    "tail_share",
    "protect_latest_user",
    "repair",
    "deadline",
    "adapt",
    "recall_hints",
)


def dump_policy(policy: Policy) -> dict[str, object]:
    """The policy as JSON data (rule 1)."""
    out: dict[str, object] = {name: getattr(policy, name) for name in _FIELDS}
    out["steps"] = [_dump_step(step) for step in policy.steps.steps]
    return out


def _dump_step(step: Step) -> dict[str, object]:
    match step:
        case Prune():
            return {"kind": "prune", "over": step.over, "keep": step.keep, "head": step.head_share}
        case Mask():
            return {"kind": "mask", "prose_over": step.prose_over}
        case Summarize():
            return {
                "kind": "summarize",
                "reserve": step.reserve,
                "chunk_tokens": step.chunk_tokens,
                "eviction": _dump_eviction(step.eviction),
            }
        case Drop():
            return {"kind": "drop"}


def _dump_eviction(eviction: Eviction) -> dict[str, object]:
    match eviction:
        case _Fit():
            return {"kind": "fit"}
        case _EvictFraction():
            return {"kind": "evict_fraction", "fraction": eviction.fraction}
        case _RetainLast():
            return {"kind": "retain_last", "units": eviction.units}
        case _MinOf() | _MaxOf():
            kind = "min_of" if isinstance(eviction, _MinOf) else "max_of"
            first, second = _dump_eviction(eviction.first), _dump_eviction(eviction.second)
            return {"kind": kind, "first": first, "second": second}
        case _:
            return {"kind": "custom", "repr": repr(eviction)}


def load_policy(data: object) -> Policy:
    """The Policy `data` describes (rules 2 and 3)."""
    obj = _mapping(data, "policy")
    steps = obj.get("steps")
    if not isinstance(steps, list) or not steps:
        raise InvalidConversation("expected a list of steps", field="policy.steps")
    values = {name: obj.get(name) for name in _FIELDS}
    values["adapt"] = obj.get("adapt", True)  # snapshots made before the field existed
    values["recall_hints"] = obj.get("recall_hints", True)  # ditto
    try:
        built = chain(*(_load_step(s, f"policy.steps[{i}]") for i, s in enumerate(steps)))
        return Policy(steps=built, **values)  # type: ignore[arg-type]
    except (ConfigurationError, TypeError) as exc:
        if "custom eviction" in str(exc):
            raise
        raise InvalidConversation(f"not a valid policy: {exc}", field="policy") from None


def _load_step(data: object, where: str) -> Step:
    obj = _mapping(data, where)
    kind = obj.get("kind")
    if kind == "prune":
        return prune(_opt(obj, "over", where), _opt(obj, "keep", where), _num(obj, "head", where))
    if kind == "mask":
        return mask(_int(obj, "prose_over", where))
    if kind == "summarize":
        eviction = _load_eviction(obj.get("eviction"), f"{where}.eviction")
        return summarize_step(
            _opt(obj, "reserve", where), eviction, _opt(obj, "chunk_tokens", where)
        )
    if kind == "drop":
        return drop()
    raise InvalidConversation(f"unknown step kind {kind!r}", field=f"{where}.kind")


def _load_eviction(data: object, where: str) -> Eviction:
    obj = _mapping(data, where)
    kind = obj.get("kind")
    match kind:
        case "fit":
            return fit()
        case "evict_fraction":
            return evict_fraction(_num(obj, "fraction", where))
        case "retain_last":
            return retain_last(_int(obj, "units", where))
        case "min_of" | "max_of":
            first = _load_eviction(obj.get("first"), f"{where}.first")
            second = _load_eviction(obj.get("second"), f"{where}.second")
            return (min_of if kind == "min_of" else max_of)(first, second)
        case "custom":
            raise ConfigurationError(
                f"the snapshot's policy uses a custom eviction ({obj.get('repr')}); "
                "pass policy= to restore()"
            )
    raise InvalidConversation(f"unknown eviction kind {kind!r}", field=f"{where}.kind")


def _mapping(data: object, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InvalidConversation("expected an object", field=where)
    return data


def _int(obj: Mapping[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidConversation("expected an integer", field=f"{where}.{key}")
    return value


def _opt(obj: Mapping[str, Any], key: str, where: str) -> int | None:
    return None if obj.get(key) is None else _int(obj, key, where)


def _num(obj: Mapping[str, Any], key: str, where: str) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidConversation("expected a number", field=f"{where}.{key}")
    return float(value)
