"""Issue 12, fault 11: everything compaction archives is reachable from the output itself.

The model sees only the payload, so every reference a report lists must be reachable
from the references written in the payload: directly, or by recalling one and following
the references its text names (a folded span lists its messages and the statements the
user replaced; a dense card names its sources and the card before it).

One exception, where two promises meet: when the output fits but has less room left than
the smallest pointer (a card header naming one reference), the budget wins (I3). When the
output does not fit anyway, the pointer is added all the same.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given

import contextfold as cf
from contextfold import Archive
from contextfold._messages import REF_PATTERN, message_text

from ..corpus import records
from .test_flow_properties import COUNTER, Case, cases, compact

REF = re.compile(rf"(?<![0-9a-z]){REF_PATTERN}(?![0-9a-f])")


def reachable(texts: list[str], archive: Archive) -> set[str]:
    """References named in `texts`, and in what recalling them returns, transitively."""
    seen: set[str] = set()
    todo = [ref for text in texts for ref in REF.findall(text)]
    while todo:
        ref = todo.pop()
        if ref in seen or ref not in archive:
            continue
        seen.add(ref)
        todo += REF.findall(archive.recall_text(ref))
    return seen


POINTER = "[cf:rules] (see r0123456789)"


def no_room_for_a_pointer(report: cf.Report, pointer: int) -> bool:
    return report.fits and report.budget - report.tokens_after < pointer


@given(cases())
def test_every_archived_reference_is_reachable_from_the_output(case: Case) -> None:
    archive = Archive()
    out = compact(case, archive=archive)
    found = reachable([message_text(m) for m in out.messages], archive)
    pointer = COUNTER.count(cf.Message("user", (cf.Card(POINTER),)))
    if not no_room_for_a_pointer(out.report, pointer):
        assert set(out.report.refs) <= found, sorted(set(out.report.refs) - found)


@pytest.mark.corpus
@pytest.mark.parametrize("share", [0.1, 0.25, 0.5])
def test_corpus_compactions_leave_nothing_out_of_reach(share: float) -> None:
    chosen = records()[::8]
    if not chosen:
        pytest.skip("corpus not found")
    for record in chosen:
        messages = record["messages"]
        budget = int(share * cf.count_tokens(messages, "gpt-4o"))
        result = cf.compact(messages, budget, "gpt-4o")
        found = reachable([json.dumps(result.payload)], result.archive)
        missing = set(result.report.refs) - found
        pointer = cf.count_tokens([{"role": "user", "content": POINTER}], "gpt-4o")
        if not no_room_for_a_pointer(result.report, pointer):
            assert not missing, (record["id"], share, sorted(missing))
