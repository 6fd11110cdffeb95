"""Caches across calls never change an output: cold, warm and prefix-warm runs digest alike."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from bench.baselines import exact_tokens
from bench.common import corpus
from bench.sessions import generate, wire
from bench.synthetic import history

import contextfold as cf
from bench import digest

RECORDED = Path(__file__).with_name("corpus_digests.json")


def _cases() -> list[tuple[str, list[dict[str, object]]]]:
    out = [(f"synthetic/{n}", history(n, 3)) for n in (60, 300)]
    out += [(f"session/{style}", wire(generate(1, "dev", style))) for style in ("agent", "chat")]
    return out


def test_warm_and_prefix_warm_calls_give_the_cold_output() -> None:
    for name, messages in _cases():
        budget = max(1, exact_tokens(messages) // 4)
        cf.clear_caches()
        cold = digest.digest(cf.compact(messages, budget, model="gpt-4o"))
        warm = digest.digest(cf.compact(messages, budget, model="gpt-4o"))
        cf.clear_caches()
        cf.compact(messages[: len(messages) * 2 // 3], budget, model="gpt-4o")
        prefix_warm = digest.digest(cf.compact(messages, budget, model="gpt-4o"))
        assert cold == warm == prefix_warm, name


def test_check_names_every_case_that_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = list(itertools.islice(digest.generated_cases(quick=True), 3))
    found = {name: digest.digest(run()) for name, run in cases}
    assert len(set(found.values())) == len(found)  # three budgets, three outputs
    monkeypatch.setattr(digest, "digests", lambda quick=False, only_corpus=False: dict(found))
    recorded = tmp_path / "digests.json"
    assert digest.main(["--write", str(recorded)]) == 0
    assert digest.main(["--check", str(recorded)]) == 0
    changed = dict(found)
    first = sorted(changed)[0]
    changed[first] = "0" * 64
    recorded.write_text(json.dumps(changed))
    capsys.readouterr()
    assert digest.main(["--check", str(recorded)]) == 1
    assert f"differs: {first}" in capsys.readouterr().out


@pytest.mark.corpus
def test_every_corpus_output_is_the_recorded_one() -> None:
    """Speed work changes no output: every compaction of the real corpus (10/25/50% with
    exact counts, the heuristic, chars/4, as Anthropic and Responses) digests as recorded (payload,
    report and every archive record; bench/digest.py rules 1 and 4)."""
    if not corpus():
        pytest.skip("the corpus (../shared/corpus) is not on this machine")
    recorded: dict[str, str] = json.loads(RECORDED.read_text())
    found = digest.digests(only_corpus=True)
    assert set(found) == set(recorded)
    differ = sorted(name for name, value in found.items() if recorded[name] != value)
    assert not differ, (
        f"{len(differ)} of {len(found)} corpus outputs changed, e.g. {differ[:3]}; when the "
        "change is intended, record them again: "
        "python -m bench.digest --corpus --write tests/bench/corpus_digests.json"
    )
