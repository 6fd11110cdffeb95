"""What the card keeps of the user's statements at tight budgets, in real and synthetic hosts.

Usage: PYTHONPATH=src:. .venv/bin/python -m bench.card_hunt [--hosts N] [--verbose]

Rules:
1. Each scenario of `bench.card_hunt_cases` is embedded in a host conversation: corpus
   conversations (tau-bench airline and SWE-agent) and `bench.synthetic` tool-heavy
   histories. Its steps are spread over the host's first two thirds, each at a boundary
   (before a user message): a user step as a user message and a short acknowledgement, an
   assistant step as assistant text, a tool step as a call and its result. A closing user
   request ends the conversation, so no step is in the protected latest message.
2. The budget is the system prompt and the closing request plus 10%, 20% or 30% of the
   rest of the conversation's tokens (gpt-4o counts): a corpus system prompt alone can be
   over 10% of the whole.
   `compact` runs once on the whole conversation; `manager` feeds a `ContextManager` the
   same messages, asking for the view after every user message.
3. Scores, per run (a value the host itself contains is not scored): a `keep` value is
   lost when it appears nowhere in the output; a `stale` pair is shown when the old
   value appears on an artifact line (card or summary) without the new one, or anywhere
   while the new one appears nowhere; a `gone` value (retracted) is stale when it shows on
   a card line; a `foreign` value is promoted when it shows on a card line, or, when a tool
   or the assistant said it, on a summary line about the user's statements (the user's
   own chit-chat or question may be listed among their requests, never as a rule).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import contextfold as cf

from .card_hunt_cases import HELD_OUT, SCENARIOS, Scenario
from .common import corpus
from .synthetic import history

Wire = dict[str, Any]
SHARES = (0.1, 0.2, 0.3)
MODEL = "gpt-4o"
USER_SECTIONS = ("user", "goals")
CLOSING = {"role": "user", "content": "Thanks. Please carry on with the task."}


def hosts(count: int) -> list[tuple[str, list[Wire]]]:
    """`count` corpus conversations of each source and `count` synthetic histories."""
    records = corpus()
    out: list[tuple[str, list[Wire]]] = []
    for source in ("tau", "swe"):
        mine = [r for r in records if r.source == source]
        out += [(f"{source}:{r.id}", r.messages) for r in mine[3 : 3 + count]]
    out += [(f"synthetic:{seed}", history(60, seed)) for seed in range(count)]
    return out


def _step(kind: str, text: str, number: int) -> list[Wire]:
    if kind == "user":
        return [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]
    if kind == "assistant":
        return [{"role": "assistant", "content": text}]
    call = f"call_hunt{number}"
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call,
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "NOTES.md"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call, "content": text},
    ]


def _boundary(host: Sequence[Wire], i: int) -> bool:
    """Whether a message may go before `host[i]`: no tool exchange is open there."""
    before = host[i - 1]
    return host[i]["role"] in ("user", "assistant") and not before.get("tool_calls")


def embed(scenario: Scenario, host: Sequence[Wire]) -> list[Wire]:
    """The host with the scenario's steps at boundaries in its first two thirds (rule 1)."""
    bounds = [i for i in range(2, len(host)) if _boundary(host, i) and i <= 2 * len(host) // 3]
    bounds = bounds or [len(host) - 1]
    steps = scenario.steps
    places = [
        bounds[min(len(bounds) - 1, k * len(bounds) // len(steps))] for k in range(len(steps))
    ]
    out: list[Wire] = []
    for i, message in enumerate(host):
        for k, (kind, text) in enumerate(steps):
            if places[k] == i:
                out += _step(kind, text, k)
        out.append(message)
    if out[-1].get("tool_calls"):
        out.append({"role": "assistant", "content": "Done."})  # pragma: no cover
    return [*out, CLOSING]


def _texts(message: Wire) -> Iterator[str]:
    content = message.get("content")
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        yield from (str(p.get("text", "")) for p in content if isinstance(p, dict))
    for call in message.get("tool_calls") or ():
        yield str(call.get("function", {}).get("arguments", ""))


def found(value: str, text: str) -> bool:
    return re.search(rf"(?<![\w$€£]){re.escape(value)}(?!\w)", text) is not None


def _lines(output: Sequence[Wire]) -> tuple[list[str], list[str], list[str]]:
    """(artifact lines, card lines, user-state lines: the card and user summary sections)."""
    every: list[str] = []
    card: list[str] = []
    user: list[str] = []
    for message in output:
        for text in _texts(message):
            if not text.startswith("[cf:"):
                continue
            is_card = text.startswith("[cf:rules]")
            in_user = is_card
            for line in text.splitlines():
                if line.startswith("## "):
                    in_user = is_card or any(w in line.lower() for w in USER_SECTIONS)
                every.append(line)
                card += [line] if is_card else []
                user += [line] if in_user else []
    return every, card, user


def score(scenario: Scenario, host_text: str, output: Sequence[Wire]) -> Counter[str]:
    """One run's counts (rule 3), with the failures named for `--verbose`."""
    everything = "\n".join(t for m in output for t in _texts(m))
    every, card, user = _lines(output)
    out: Counter[str] = Counter()
    name = scenario.name

    def count(total: str, bad: str, failed: bool, what: str) -> None:
        out[total] += 1
        if failed:
            out[bad] += 1
            out[f"{what} {name}"] += 1

    for value in (v for v in scenario.keep if not found(v, host_text)):
        count("kept", "lost", not found(value, everything), f"lost: {value} in")
    for old, new in ((o, n) for o, n in scenario.stale if not found(o, host_text)):
        shown = any(found(old, x) and not found(new, x) for x in every) or (
            found(old, everything) and not found(new, everything)
        )
        count("updates", "stale", shown, f"stale: {old}->{new} in")
    for value in scenario.gone:
        revived = any(found(value, x) and not _retracting(x) for x in card)
        count("retracted", "stale", revived, f"revived: {value} in")
    said = " ".join(text for kind, text in scenario.steps if kind == "user")
    for value in (v for v in scenario.foreign if not found(v, host_text)):
        lines = card if found(value, said) else user
        count("foreign", "promoted", any(found(value, x) for x in lines), f"promoted: {value} in")
    return out


def _retracting(line: str) -> bool:
    return re.search(r"(?i)forget|no longer|never mind|drop the", line) is not None


def run_compact(messages: list[Wire], budget: int) -> list[Wire]:
    result = cf.compact(messages, budget, model=MODEL, format="openai-chat")
    payload = result.payload
    assert isinstance(payload, list)
    return payload


def run_manager(messages: list[Wire], budget: int) -> list[Wire]:
    manager = cf.ContextManager(budget, MODEL)
    pending: list[Wire] = []
    for message in messages:
        pending.append(message)
        if message["role"] == "user":
            manager.extend(pending)
            pending = []
            manager.view()
    manager.extend(pending)
    return list(manager.view())


def run(scenarios: Sequence[Scenario], count: int, verbose: bool) -> dict[str, Counter[str]]:
    """Counts per (mode, share) over every host and scenario (rules 1-3)."""
    totals: dict[str, Counter[str]] = {}
    for host_name, host in hosts(count):
        host_text = json.dumps(host)
        for scenario in scenarios:
            messages = embed(scenario, host)
            total = cf.count_tokens(messages, MODEL, format="openai-chat")
            fixed = cf.count_tokens([messages[0], CLOSING], MODEL, format="openai-chat")
            for share in SHARES:
                for mode, fn in (("compact", run_compact), ("manager", run_manager)):
                    output = fn(messages, fixed + int(share * (total - fixed)))
                    counts = score(scenario, host_text, output)
                    totals.setdefault(f"{mode} {share:.0%}", Counter()).update(counts)
                    failures = [key for key in counts if ": " in key]
                    for key in failures if verbose else ():
                        print(f"{host_name} {mode} {share:.0%} {key}")
    return totals


def report(totals: dict[str, Counter[str]]) -> None:
    print("run          kept  lost  updates  stale(+revived)  foreign  promoted")
    whole: Counter[str] = Counter()
    for key, c in totals.items():
        whole.update(c)
        print(
            f"{key:12} {c['kept']:5} {c['lost']:5} {c['updates']:8} {c['stale']:16}"
            f" {c['foreign']:8} {c['promoted']:9}"
        )
    print(
        f"total: lost {whole['lost']}/{whole['kept']}, stale {whole['stale']}/"
        f"{whole['updates'] + whole['retracted']}, promoted {whole['promoted']}/{whole['foreign']}"
    )
    for key in sorted((k for k in whole if ": " in k), key=lambda k: -whole[k]):
        print(f"  {whole[key]:3} {key}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hosts", type=int, default=1)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--only", default="", help="scenario names containing this")
    parser.add_argument("--held-out", action="store_true", help="the second set of phrasings")
    args = parser.parse_args(argv)
    scenarios = [s for s in (HELD_OUT if args.held_out else SCENARIOS) if args.only in s.name]
    report(run(scenarios, args.hosts, args.verbose))


if __name__ == "__main__":
    main()
