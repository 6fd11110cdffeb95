"""bench.oneshot in a tiny mode: every system runs, the floor counts what it claims, the
section names every ratio and target."""

from __future__ import annotations

import pytest
from bench.common import Record
from bench.synthetic import history

import contextfold as cf
from bench import baselines as bl
from bench import oneshot


@pytest.fixture(scope="module")
def result() -> oneshot.Result:
    out = oneshot.Result()
    enc = bl.encoding()
    oneshot.measure_synthetic(60, 2, enc, out)
    oneshot.measure_resend(60, 2, enc, out)
    return out


def test_floor_encodes_every_text_once() -> None:
    messages = history(30, 2)
    enc = bl.encoding()
    expected = 0
    for message in messages:
        for text in oneshot._wire_texts(message):
            expected += len(enc.encode(text, disallowed_special=()))
    assert oneshot.floor(messages, enc) == expected
    call = next(m for m in messages if m.get("tool_calls"))
    texts = oneshot._wire_texts(call)
    assert call["tool_calls"][0]["function"]["arguments"] in texts  # type: ignore[index]


def test_every_system_is_timed(result: oneshot.Result) -> None:
    assert set(result.synthetic) == set(oneshot.SYSTEMS)
    assert all(len(t) == 2 and min(t) >= 0 for t in result.synthetic.values())
    assert result.turns == 2
    assert all(len(t) == 2 for t in result.resend.values())
    memory = result.memory["synthetic"]
    assert memory.size > 0
    assert memory.peak >= memory.result + memory.caches > 0  # the peak covers what is held
    assert memory.result > 0  # the result holds the output and the archive


def test_section_names_ratios_and_targets(result: oneshot.Result) -> None:
    result.imports, result.cli, result.cli_cpu = [0.01], [0.4], [0.3]
    text = oneshot.section(result, "python -m bench.oneshot --size 60")
    assert text.startswith(oneshot.HEADING)
    for name in oneshot.SYSTEMS:
        assert name in text
    for target in ("<= 1.5x", "<= 0.5x", "<= 3x", "target <= 5%", "target < 150 ms", "<= 2x"):
        assert target in text


def test_corpus_pass_is_split_by_source(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        Record("a1", "tau", history(24, 1)),
        Record("b1", "swe", history(40, 2)),
        Record("a2", "tau", history(30, 3)),
    ]
    monkeypatch.setattr(oneshot, "corpus", lambda: records)
    out = oneshot.Result()
    enc = bl.encoding()
    oneshot.measure_corpus(2, enc, out)
    assert out.corpus_n == 3
    assert set(out.sources) == {"tau", "swe"}
    assert (out.sources["tau"].n, out.sources["swe"].n) == (2, 1)
    for name in oneshot.SYSTEMS:  # the pass is the sum of its sources, round by round
        parts = zip(out.sources["tau"].times[name], out.sources["swe"].times[name], strict=True)
        assert out.corpus[name] == [a + b for a, b in parts]
    budgets = [max(1, bl.exact_tokens(r.messages) // 4) for r in records]
    fits = [
        cf.compact(list(r.messages), b, counter=cf.TiktokenCounter(enc)).report.fits
        for r, b in zip(records, budgets, strict=True)
    ]
    assert out.sources["tau"].over == (not fits[0]) + (not fits[2])
    assert out.sources["swe"].over == (not fits[1])
    text = "\n".join(oneshot._source_lines(out))
    assert "| tau | 2 |" in text
    assert "| swe | 1 |" in text
