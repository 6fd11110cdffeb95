"""Agent loops: what every compaction archives stays reachable from the view it sends.

A later compaction replaces the card and the summary an earlier one made. The messages
those artifacts kept reachable (a dense card's block names the span it folded; a summary
names its span) must stay reachable through the new ones, whatever the new card's form:
a dense card that gave way to a summary with no card took the only way back to the
messages the first compaction folded. (A card whose statements the user's newer words in
view retire is listed with the statements it retired, though the view need not name
them: `test_user_state`.)
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings

import contextfold as cf

from ..engine.test_flow_properties import POINTER
from ..engine.test_reachability import no_room_for_a_pointer, reachable
from .test_long_loops import BRIDGE, RETIRED
from .test_loop_properties import Loop, _body, _request_point, _wire, loops


def _compactions(loop: Loop) -> list[tuple[cf.Report, str, cf.Archive]]:
    """Each compaction's report with the view it sent, as JSON text."""
    manager = cf.ContextManager(
        loop.budget, format=loop.format, system=loop.system, policy=loop.policy
    )
    out = []
    wire: list[Any] = _wire(loop.messages, loop.format)
    for i, item in enumerate(wire):
        manager.add(item, pin=i in loop.pins)
        if not _request_point(loop.messages, i):
            continue
        before = manager.last_report
        view = manager.view()
        report = manager.last_report
        if report is not None and report is not before and report.compacted:
            out.append((report, json.dumps(_body(manager, view, loop.format)), manager.archive))
    return out


def _pointer(fmt: str) -> int:
    """Tokens of a bare card header, with a bridge on either side where turns alternate."""
    counter = cf.counter_for(None, fmt)
    bridges = 2 * counter.count(cf.Message("assistant", (cf.Text(BRIDGE),)))
    return counter.count(cf.Message("user", (cf.Card(POINTER),))) + bridges * (fmt == "anthropic")


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(loops())
def test_every_reference_a_loop_reports_is_reachable_from_its_view(loop: Loop) -> None:
    for report, view, archive in _compactions(loop):
        if no_room_for_a_pointer(report, _pointer(loop.format)):
            continue  # the budget wins (`_flow` rule 7)
        missing = set(report.refs) - reachable([view], archive)
        missing = {r for r in missing if archive.entry(r).label not in RETIRED}
        assert not missing, [(r, archive.recall_text(r)[:80]) for r in sorted(missing)]
