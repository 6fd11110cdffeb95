"""The framework-integrations bench on a short loop: the table reads what the runs did."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")

from bench.common import write_section

from bench import integrations_lc as bench


def test_a_short_loop_with_and_without_contextfold(tmp_path: Path) -> None:
    framework = "LangChain create_agent"
    alone = bench.run(framework, "none", turns=6, window=8_192)
    folded = bench.run(framework, "contextfold", turns=6, window=8_192)
    assert alone.refused_at == 5  # four ~2,500-token reads fill the 8k window
    assert not alone.finished
    assert folded.refused_at is None
    assert folded.finished
    assert folded.accepted == 8  # six reads, one recall, the answer
    assert folded.recalled
    assert folded.no_system == folded.no_rules == 0
    section = bench.render([alone, folded], turns=6, window=8_192)
    assert section.startswith(bench.SECTION + "\n")
    assert "| LangChain create_agent | none | no | 4 | #5 (over the window) |" in section
    markdown = tmp_path / "BENCHMARKS.md"
    write_section(section, markdown)
    assert bench.SECTION in markdown.read_text()
