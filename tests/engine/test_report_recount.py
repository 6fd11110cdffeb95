"""The report's recount: `_finish` counts the rendered output again and the report says
that count, whichever the flow reported."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import cast

import pytest

import contextfold as cf


def test_report_recount_replaces_a_stale_count(monkeypatch: pytest.MonkeyPatch) -> None:
    from contextfold import _compact
    from contextfold._engine._flow import Outcome

    payload = [
        {"role": "system", "content": "You are terse."},
        *({"role": "user", "content": f"question {i} " * 30} for i in range(6)),
        {"role": "user", "content": "the latest question"},
    ]
    honest = cf.compact(payload, 60, model="gpt-4o")
    assert honest.report.compacted
    real_run = cast(Callable[..., Outcome], getattr(_compact, "run"))  # noqa: B009

    def stale(*args: object, **kwargs: object) -> Outcome:
        outcome = real_run(*args, **kwargs)
        report = dataclasses.replace(outcome.report, tokens_after=1, fits=True)
        return dataclasses.replace(outcome, report=report)

    monkeypatch.setattr(_compact, "run", stale)
    result = cf.compact(payload, 60, model="gpt-4o")
    assert result.report.tokens_after == honest.report.tokens_after != 1
    assert result.report.fits == honest.report.fits
