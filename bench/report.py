"""The BENCHMARKS.md sections this package owns, assembled from measured results.

Rules:
1. Each section starts with its `## ` heading, then the command, date and machine.
2. Targets are checked against the numbers in the same section and stated as met or missed,
   with the measured value; nothing is claimed that the tables do not show.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from . import cost, loop, reference, rounds, speed
from .billing import PRICINGS, Bill
from .common import Shares, header, median_ratio, seconds, table

SPEED = "## Speed and scaling"
COST = "## Cost under prompt caching"
SURVIVAL = "## What survives compaction"


@dataclass(frozen=True)
class Profile:
    """A hot-spot profile of one workload."""

    title: str
    functions: Shares
    modules: Shares


def _profile_lines(profiles: Sequence[Profile]) -> list[str]:
    out: list[str] = []
    for profile in profiles:
        out += [
            f"Where the time goes: {profile.title} (cProfile; a function's own time plus "
            "the library code it calls):",
            "",
        ]
        rows = [
            [module, f"{m_share:.0%}", function, f"{f_share:.0%}"]
            for (module, m_share), (function, f_share) in zip(
                profile.modules, profile.functions, strict=False
            )
        ]
        out += [*table(["module", "share", "function", "share"], rows, "lrlr"), ""]
    return out


def speed_targets(
    one_shot: speed.OneShot,
    loops: dict[tuple[int, str], loop.LoopRun],
    profiles: Sequence[Profile] = (),
) -> list[str]:
    """The three speed targets, met or missed, with the numbers and the gap (rule 2)."""
    return [
        _linear_target(one_shot),
        *_loop_target(loops),
        _exact_target(one_shot, profiles),
        _cheap_finding(one_shot),
    ]


def _linear_target(one_shot: speed.OneShot) -> str:
    spans = [
        (g, name, a, b)
        for name in speed.SYSTEMS
        if name.startswith("contextfold")
        for a, b, g in speed.growth(one_shot, name)
    ]
    worst = max([x for x in spans if x[2] >= 1_000] or spans)
    verdict = "met" if worst[0] <= 11 else "missed"
    return (
        f"- Linear growth (10x messages <= 11x time, from 1,000 messages up): {verdict}; "
        f"worst {worst[0]:.1f}x per 10x ({worst[1]}, {worst[2]:,} -> {worst[3]:,})."
    )


def _loop_target(loops: dict[tuple[int, str], loop.LoopRun]) -> list[str]:
    largest = max((size for size, _ in loops), default=0)
    if not largest:
        return []
    cheap, exact = loops[(largest, "cheap")], loops[(largest, "exact")]
    ratios = loop.amortized_ratio(cheap), loop.amortized_ratio(exact)
    verdict = "met" if min(ratios) >= 50 else "missed"
    text = (
        f"- Agent loop at {largest:,} messages, per-turn cost >= 50x below trim_messages: "
        f"{verdict}; {ratios[0]:.0f}x with cheap counters, {ratios[1]:.0f}x with tiktoken "
        "(means, compactions included)."
    )
    if ratios[0] < 50:
        need = statistics.fmean(cheap.lc_turns) / 50
        spent = sum(t for t, c in zip(cheap.cf_turns, cheap.compacted, strict=True) if c)
        quiet = [t for t, c in zip(cheap.cf_turns, cheap.compacted, strict=True) if not c]
        text += (
            f" With cheap counters it needs a mean of {seconds(need)} per turn (now "
            f"{seconds(statistics.fmean(cheap.cf_turns))}): the {sum(cheap.compacted)} turns "
            f"that compacted take {spent / sum(cheap.cf_turns):.0%} of ContextManager's time, "
            f"the others have a median of {seconds(statistics.median(quiet or [0.0]))}, so "
            "cheaper or rarer compactions close it (the what-if policy in the cost section "
            "compacts more deeply and so more rarely)."
        )
    return [text]


def _exact_target(one_shot: speed.OneShot, profiles: Sequence[Profile]) -> str:
    sizes = sorted(one_shot.times)
    times = one_shot.times
    ratios = [
        median_ratio(times[s][speed.CF_DEFAULT_EXACT], times[s][speed.LC_EXACT]) for s in sizes
    ]
    drops = [median_ratio(times[s][speed.CF_DROP_EXACT], times[s][speed.LC_EXACT]) for s in sizes]
    verdict = "met" if max(ratios[1:] or ratios) <= 0.5 else "missed"
    text = (
        "- One-shot with exact counts at least 2x faster than trim_messages + tiktoken "
        f"(from 1,000 messages up): {verdict} for the default policy (contextfold/trim = "
        f"{', '.join(f'{r:.2f}x' for r in ratios)} at {', '.join(f'{s:,}' for s in sizes)} "
        f"messages); drop-oldest, which does trim_messages' job: "
        f"{', '.join(f'{r:.2f}x' for r in drops)}."
    )
    exact = next((p for p in profiles if "tiktoken" in p.title), None)
    if verdict == "missed" and exact is not None:
        summarizer = sum(share for module, share in exact.modules if "_summarizers/" in module)
        text += (
            " The gap is the default policy's extra work: in the profile below the embedded "
            f"summarizer (`_summarizers/*`) takes at least {summarizer:.0%} of the time; a "
            "summary that is cheaper to build (or built from fewer folded messages) closes it."
        )
    return text


def _cheap_finding(one_shot: speed.OneShot) -> str:
    sizes = sorted(one_shot.times)
    times = one_shot.times

    def span(name: str) -> str:
        values = [median_ratio(times[s][name], times[s][speed.LC_CHEAP]) for s in sizes]
        return f"{min(values):.0f}-{max(values):.0f}x"

    return (
        "- With cheap counters contextfold is slower than trim_messages at every size: "
        f"default + HeuristicCounter {span(speed.CF_DEFAULT_HEURISTIC)}, default + chars/4 "
        f"{span(speed.CF_DEFAULT_QUARTER)}, drop-oldest + chars/4 "
        f"{span(speed.CF_DROP_QUARTER)} the time of trim_messages with "
        "count_tokens_approximately (chars / 4), which only binary-searches the cut point on "
        "messages already converted; contextfold parses and renders the wire format, groups "
        "units, archives what it removes and (default) builds a summary."
    )


def speed_section(
    one_shot: speed.OneShot,
    loops: dict[tuple[int, str], loop.LoopRun],
    loop_config: loop.LoopConfig,
    *,
    profiles: Sequence[Profile],
    command: str,
    plot_path: str,
) -> str:
    """The speed and scaling section."""
    lines = header(SPEED, command)
    lines += [
        "Synthetic histories shaped like the corpus (bench/synthetic.py: a ~6,000-character "
        "system prompt, user requests, one to four tool calls per request with results of "
        "200-20,000 characters, log-normal around the corpus median, and a closing reply). "
        "Budget: 25% of the history's exact o200k tokens, the same for every system. "
        "contextfold gets the wire messages (parse and render timed); trim_messages gets "
        "LangChain messages converted beforehand (not timed) and runs with strategy `last`, "
        '`include_system=True`, `start_on="human"`. contextfold compacts to its low-water '
        "mark (60% of the budget), trim_messages to the budget. The tiktoken counters share "
        "one `o200k_base` Encoding; LangChain's is what a user would write (no cache), "
        "contextfold's caches per text and is fresh each run. Default policy = prune, mask, "
        "summarize (embedded ledger), drop.",
        "",
        "### One-shot compaction",
        "",
        *speed.one_shot_lines(one_shot),
        "",
        f"![time against messages]({plot_path})",
        "",
        "### Agent loop",
        "",
        *loop.loop_lines(loops, loop_config),
        "",
        "### Targets",
        "",
        *speed_targets(one_shot, loops, profiles),
        "",
        *_profile_lines(profiles),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def cost_section(
    results: dict[float, cost.Bills],
    long: dict[str, Bill],
    long_size: tuple[int, int],
    command: str,
    plot_path: str,
) -> str:
    """The prompt-caching cost section."""
    lines = header(COST, command)
    lines += [
        "Every corpus conversation replayed as an agent loop: one request per assistant turn, "
        "holding the history before it as each strategy sends it. Billing per request, exact "
        "o200k counts: the longest common prefix with the previous request is a cache read, "
        "the rest a cache write (Anthropic 1.25x) or uncached input (OpenAI 1x); output "
        "tokens are equal across strategies and left out. Summarizer tokens: the embedded "
        "ledger makes no model call, so 0 (taken from the reports). The budget is the "
        "system prompt plus a share of the rest of the whole conversation's tokens. "
        "trim_messages keeps the system prompt and starts on a user or assistant message "
        "(SWE-agent conversations have one user message). Costs are relative to "
        'trim_messages every turn at the same budget; "past the budget" bills only the '
        "requests whose full history no longer fits. The what-if row is a configuration, "
        "not the default.",
        "",
    ]
    for share, bills in results.items():
        lines += [f"### Budget: system prompt + {share:.0%} of the rest", "", *cost.lines(bills)]
    lines += ["### A long loop", "", *cost.long_lines(long, *long_size), ""]
    lines += ["### Target", "", *_cost_targets(results, long), ""]
    lines += [f"![cost relative to trim_messages]({plot_path})", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _ratios(ours: Bill, trim: Bill) -> str:
    return ", ".join(
        f"{p.name.split(' (')[0]} {ours.cost(p) / trim.cost(p):.2f}x" for p in PRICINGS
    )


def _cost_targets(results: dict[float, cost.Bills], long: dict[str, Bill]) -> list[str]:
    """The 0.25x target on the corpus and on the long loop, with the what-if and the floor."""
    out = []
    names = cost.STRATEGIES
    for share, bills in results.items():
        by_name = bills["all"]
        ours, trim = by_name[names[3]], by_name[names[1]]
        met = all(ours.cost(p) <= 0.25 * trim.cost(p) for p in PRICINGS)
        out.append(
            f"- Corpus, budget share {share:.0%}: contextfold default at most 0.25x the cost of "
            f"per-turn trimming: {'met' if met else 'missed'}; {_ratios(ours, trim)}. What-if "
            f"(low=0.4, no prune tier): {_ratios(by_name[names[4]], trim)}. No compaction at "
            f"all (over budget, reference): {_ratios(by_name[names[0]], trim)}."
        )
    ours, trim = long[names[3]], long[names[1]]
    met = all(ours.cost(p) <= 0.25 * trim.cost(p) for p in PRICINGS)
    out.append(
        f"- Long synthetic loop: {'met' if met else 'missed'}; {_ratios(ours, trim)}. What-if: "
        f"{_ratios(long[names[4]], trim)}."
    )
    floor = ", ".join(
        f"{p.name.split(' (')[0]} {ours.tokens * p.read / trim.cost(p):.2f}x" for p in PRICINGS
    )
    out.append(
        "- Even if every token contextfold sends in the long loop were a cache read, its cost "
        f"would be {floor} of trimming's: where cached reads cost half (GPT-4o), 0.25x can "
        "only come from sending fewer tokens (a lower low-water mark), not from more cache "
        "hits."
    )
    return out


def survival_section(
    scores: reference.Scores, survival: rounds.Survival, command: str, plots: tuple[str, str]
) -> str:
    """The what-survives section."""
    lines = header(SURVIVAL, command)
    lines += [
        "### Future reference",
        "",
        *_rules(reference.__doc__),
        "",
        "Share of needed facts still present (mean tokens used / budget in brackets). "
        "contextfold's strategies keep the protected tail (system prompt, latest user "
        "message, newest turn) even when it alone is over the budget, and say so "
        "(`fits: false`); trim_messages drops it instead. The last column counts "
        "compactions over the budget.",
        "",
        *reference.lines(scores),
        "",
        f"![future reference]({plots[0]})",
        "",
        "### Repeated rounds",
        "",
        *_rules(rounds.__doc__),
        "",
        "Share of plants whose key survives, by round (contextfold's drop-oldest and mask-only "
        "policies still carry the constraint card, so they keep what the card catches):",
        "",
        *rounds.lines(survival),
        "",
        f"By phrasing, round {rounds.ROUNDS}:",
        "",
        *rounds.phrasing_lines(survival),
        "",
        *_round_losses(survival),
        "",
        f"![repeated rounds]({plots[1]})",
        "",
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _rules(doc: str | None) -> list[str]:
    """The numbered rules of a module docstring, as markdown list lines."""
    return (doc or "").split("Rules:", 1)[-1].strip().splitlines()


def _round_losses(survival: rounds.Survival) -> list[str]:
    found = []
    for kind in rounds.KINDS:
        for round_ in range(1, rounds.ROUNDS + 1):
            ours = rounds.cell(survival, "contextfold default", round_, kind)[1]
            for strategy in rounds.STRATEGIES[:-1]:
                theirs = rounds.cell(survival, strategy, round_, kind)[1]
                if theirs > ours:
                    found.append(
                        f"- {kind}, round {round_}: {strategy} keeps {theirs}, "
                        f"contextfold default {ours}"
                    )
    if not found:
        return [
            "contextfold default keeps at least as many plants as every baseline, in every "
            "kind and round."
        ]
    return ["contextfold default keeps fewer plants than a baseline here:", "", *found]
