"""What a compaction leaves in memory: no second copy of the input in the caches.

Each test compacts a conversation, keeps the result (and so the input) alive, and looks
for objects only a cache could still hold: sizes and identities, never timings.
"""

from __future__ import annotations

import gc
import json
import tracemalloc

import contextfold as cf
from contextfold import Archive, Message, Text
from contextfold._engine._apply import Applied
from contextfold._engine._summary import make_span

PROBE = "probe_key_7f"
"""An argument name no other object in the process has as a key."""


def _history(turns: int) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(turns):
        arguments = json.dumps({"path": f"src/module_{i}.py", PROBE: [i, f"v{i}"]})
        function = {"name": "read_file", "arguments": arguments}
        call = {"id": f"call_{i}", "type": "function", "function": function}
        messages += [
            {"role": "user", "content": f"Please look at module {i} and fix the bug in it."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": f"def f{i}(): return {i}\n"},
            {"role": "assistant", "content": f"Module {i} returns {i}; fixed the off-by-one."},
        ]
    messages.append({"role": "user", "content": "Now run the tests."})
    return messages


def _parsed_arguments() -> list[dict[str, object]]:
    """Dicts alive anywhere that hold the probe key: parsed tool-call arguments."""
    gc.collect()
    return [o for o in gc.get_objects() if type(o) is dict and PROBE in o]


def test_no_parsed_tool_arguments_outlive_a_compaction() -> None:
    """The ledger reads each folded call's arguments; what it keeps are facts, not the
    parsed JSON (a second copy of every argument value)."""
    cf.clear_caches()
    history = _history(40)
    result = cf.compact(history, 300, counter=cf.HeuristicCounter())
    assert result.report.summarized > 0
    assert result.report.summarizer == "ledger"
    assert _parsed_arguments() == []
    assert history[2]["tool_calls"]  # the input is still alive, untouched


def test_the_span_listing_is_built_without_a_list_of_its_lines() -> None:
    """What the archived list of folded messages costs while it is stored: its text and
    the archive's canonical copies of it, not also one string per line."""
    applied = Applied()
    for i in range(2_000):
        applied.folded.append(Message("user", (Text(f"Please look at module {i} now."),)))
        applied.folded_refs.append(f"r{i:010x}")
    archive = Archive()
    tracemalloc.start()
    try:
        ref = make_span(applied, None, archive)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = archive.get(ref)
    assert isinstance(text, str)
    assert text.count("\n") == 2_000
    assert peak < 4 * len(text)  # 3.1x; 6.3x with a list of its lines kept meanwhile
