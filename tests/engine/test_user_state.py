"""What the user said survives tight budgets, current (issue 10).

The example is the issue's own: a system prompt, eleven statements with chatty filler,
74 messages, ending with a request to continue. Properties then run generated sessions
(the survival benchmark's generator) through five rounds of compact-append-compact.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._statements._kinds import is_update

pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

MODEL = "gpt-4o"
STATEMENTS = (
    "The staging database is at pg-stage-04.internal port 6432.",
    "Please never push directly to main; open a PR instead.",
    "I prefer answers as short bullet lists.",
    "The ticket for this work is BILL-2291.",
    "Our deadline is 2027-03-14, it cannot move.",
    "Use Python 3.12 for all new scripts.",
    "Actually, use Python 3.13 for new scripts, not 3.12.",
    "The on-call engineer this week is Priya Raman.",
    "Next step after the schema change: backfill the invoices table.",
    "Don't run migrations on Fridays.",
    "The monthly spend cap is $4,800. Never exceed it without my approval.",
)
KEYS = (
    "pg-stage-04.internal",
    "never push directly to main",
    "short bullet lists",
    "BILL-2291",
    "2027-03-14",
    "3.13",
    "Priya Raman",
    "backfill the invoices table",
    "Fridays",
    "$4,800",
)
FILLERS = (2, 3, 2, 2, 3, 2, 2, 3, 2, 2, 2)


def issue_example() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful engineering assistant."}
    ]
    for statement, fillers in zip(STATEMENTS, FILLERS, strict=True):
        messages.append({"role": "user", "content": statement})
        messages.append({"role": "assistant", "content": "Noted, I'll keep that in mind."})
        for _ in range(fillers):
            messages.append({"role": "user", "content": "Sounds good."})
            messages.append({"role": "assistant", "content": "Great, let me know what's next."})
    messages.append({"role": "user", "content": "Summarize where we are and continue."})
    return messages


def _artifacts(payload: object) -> list[str]:
    assert isinstance(payload, list)
    return [
        m["content"]
        for m in payload
        if isinstance(m["content"], str) and m["content"].startswith("[cf:")
    ]


@pytest.mark.parametrize(("share", "needed"), [(0.2, 8), (0.3, 10), (0.5, 10)])
def test_the_issue_example_keeps_the_users_values(share: float, needed: int) -> None:
    messages = issue_example()
    assert len(messages) == 74
    budget = int(share * cf.count_tokens(messages, MODEL))
    result = cf.compact(messages, budget, MODEL)
    assert result.report.fits
    assert result.report.tokens_after <= budget
    text = json.dumps(result.payload)
    kept = [key for key in KEYS if key in text]
    assert len(kept) >= needed, (share, sorted(set(KEYS) - set(kept)))
    for artifact in _artifacts(result.payload):
        assert "Use Python 3.12 for all new scripts." not in artifact
        for line in artifact.splitlines():
            assert "3.12" not in line or "3.13" in line, line  # never current
        assert "Noted, I'll keep that in mind." not in artifact  # filler is not state


def test_the_summary_does_not_repeat_the_card() -> None:
    messages = issue_example()
    budget = int(0.5 * cf.count_tokens(messages, MODEL))
    result = cf.compact(messages, budget, MODEL)
    card = next(a for a in _artifacts(result.payload) if a.startswith("[cf:rules]"))
    summaries = [a for a in _artifacts(result.payload) if a.startswith("[cf:summary]")]
    said = [line[2:].rsplit(" (", 1)[0] for line in card.splitlines()[1:]]
    for summary in summaries:
        for statement in said:
            assert statement not in summary


def _chat(*texts: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for text in texts:
        out.append({"role": "user", "content": text})
        out.append({"role": "assistant", "content": "Noted. " + "More detail here. " * 30})
    return out


def test_an_update_in_view_retires_the_card_statement_even_without_a_compaction() -> None:
    archive = cf.Archive()
    first = _chat("The deadline is 2027-03-14.", "Keep going.", "Keep going.", "Keep going.")
    budget = cf.count_tokens(first, MODEL) // 2
    compacted = cf.compact(first, budget, MODEL, archive=archive).payload
    assert isinstance(compacted, list)
    assert any("2027-03-14" in a for a in _artifacts(compacted) if a.startswith("[cf:rules]"))
    later = [*compacted, {"role": "user", "content": "Change of plan: the deadline is 2027-04-02."}]
    again = cf.compact(later, budget * 3, MODEL, archive=archive)
    assert again.report.tokens_after <= budget * 3
    for artifact in _artifacts(again.payload):
        assert "2027-03-14" not in artifact
    assert any(again.recall(ref) == "The deadline is 2027-03-14." for ref in again.report.refs)


@pytest.mark.parametrize(
    ("rule", "lifted"),
    [
        ("Never push to main.", "You can push to main now."),
        ("Please never push to main; open a PR.", "You can push to main from now on."),
        ("Don't touch the legacy/ folder.", "Forget what I said about the legacy folder."),
        ("Never deploy on Fridays.", "Ignore my earlier rule about Fridays."),
        ("Never deploy on Fridays.", "Never mind the Friday rule."),
    ],
)
def test_a_permission_or_retraction_in_view_retires_the_card_rule(rule: str, lifted: str) -> None:
    archive = cf.Archive()
    first = _chat(rule, "Keep going.", "Keep going.", "Keep going.")
    budget = cf.count_tokens(first, MODEL) // 2
    compacted = cf.compact(first, budget, MODEL, archive=archive).payload
    assert isinstance(compacted, list)
    assert any(rule in a for a in _artifacts(compacted) if a.startswith("[cf:rules]"))
    later = [*compacted, {"role": "user", "content": lifted}]
    again = cf.compact(later, budget * 3, MODEL, archive=archive)
    assert lifted in json.dumps(again.payload)
    for artifact in _artifacts(again.payload):
        assert rule not in artifact
    assert any(again.recall(ref) == rule for ref in again.report.refs)


def test_an_older_task_kept_in_view_never_retires_a_newer_statement() -> None:
    archive = cf.Archive()
    task = "Use Python 3.12 for all new scripts, and fix the importer."
    first = _chat(task, "Actually, use Python 3.13 for new scripts, not 3.12.", "ok", "ok")
    budget = cf.count_tokens(first, MODEL) // 2
    result = cf.compact(first, budget, MODEL, archive=archive, pins=[1])
    text = json.dumps(result.payload)
    assert "3.13" in text
    again = cf.compact(result.payload, budget, MODEL, archive=archive)
    assert "3.13" in json.dumps(again.payload)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    split=st.sampled_from(("dev", "held-out")),
    share=st.sampled_from((0.1, 0.2, 0.3, 0.5)),
    style=st.sampled_from(("agent", "chat")),
)
@example(seed=186, split="dev", share=0.1, style="chat")  # a deadline changed, then back
def test_generated_sessions_keep_rules_and_never_show_stale_values(
    seed: int, split: str, share: float, style: str
) -> None:
    """Five rounds of compact-append-compact on a generated chatty session: within the
    budget, no superseded value shown as current on the card or in the summary (but for a
    plain restatement still in view), no distractor promoted to user state, and (from 20%
    on) every rule still there."""
    sessions = pytest.importorskip("bench.sessions")
    tight = pytest.importorskip("bench.tight")
    session = sessions.generate(seed, split, style)
    counter = cf.TiktokenCounter("o200k_base")
    whole = sessions.wire(session)
    budget = int(share * cf.count_tokens(whole, MODEL))
    archive = cf.Archive()
    current: list[dict[str, Any]] = [session.system]
    for round_ in range(1, sessions.SEGMENTS + 1):
        result = cf.compact(
            current + session.segments[round_ - 1], budget, counter=counter, archive=archive
        )
        assert result.report.fits
        assert result.report.tokens_after <= budget
        payload = result.payload
        assert isinstance(payload, list)
        current = payload
        cell = tight.Cell.empty()
        tight.score(session, round_, current, cell)
        assert cell.promoted == 0
        text = "\n".join(t for m in current for t in tight._texts(m))
        lines, _ = tight._artifact_lines(current)
        said_so_far = [s for s in session.statements if s.segment <= round_]
        newest = {(s.kind, s.subject): s for s in said_so_far}  # statements are in order
        for said in said_so_far:
            now = newest[said.kind, said.subject]  # the subject's value now decides
            if said.replaces is None or said.replaces == now.value:
                continue  # a later statement restored `old` (A, B, A): it is current again
            old, new = said.replaces, now.value
            shown = any(tight.found(old, ln) and not tight.found(new, ln) for ln in lines)
            if shown or (tight.found(old, text) and not tight.found(new, text)):
                # the one case left: a plain restatement (no "actually", "change of plan")
                # still in view verbatim while nothing was compacted; an update always retires
                assert not is_update(now.sentence), (round_, now)
                assert now.sentence in text, (round_, now)
        if share >= 0.2:
            assert cell.present["rule"] == cell.held["rule"], round_


def test_statements_naming_places_and_people_beyond_ascii_reach_the_card() -> None:
    """Names in other scripts or with accents are values like ASCII ones: before, "München"
    or "東京" read as no value, so the fact was no statement and left only a summary line
    (or nothing) behind."""
    said = (
        "Our office is in München.",
        "Use the 東京 region for storage.",
        "The client is Société Générale.",
        "Never deploy on Fridays.",
    )
    messages = [*_chat(*said), {"role": "user", "content": "Go on."}]
    budget = cf.count_tokens(messages, MODEL) // 2
    result = cf.compact(messages, budget, MODEL)
    card = [a for a in _artifacts(result.payload) if a.startswith("[cf:rules]")]
    assert result.report.fits
    assert len(card) == 1
    for statement in said:
        assert statement in card[0]
