"""Access to the shared real-conversation corpus (../shared/corpus), skipped when absent."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

CORPUS_DIR = Path(
    os.environ.get(
        "CONTEXTFOLD_CORPUS", Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    )
)
FILES = ("swe_agent_claude4_sonnet.jsonl", "tau_bench_gpt4o_airline.jsonl")


@cache
def records() -> tuple[dict[str, object], ...]:
    """Every corpus record (one conversation each), or () when the corpus is absent."""
    out: list[dict[str, object]] = []
    for name in FILES:
        path = CORPUS_DIR / name
        if path.exists():
            with path.open(encoding="utf-8") as fh:
                out.extend(json.loads(line) for line in fh if line.strip())
    return tuple(out)


def require() -> tuple[dict[str, object], ...]:
    """The records, or skip the calling test when the corpus is not on this machine."""
    found = records()
    if not found:
        pytest.skip(f"corpus not found at {CORPUS_DIR}")
    return found


def conversations() -> Iterator[tuple[str, list[dict[str, object]]]]:
    """(id, messages) for every corpus conversation; skips when the corpus is absent."""
    for record in require():
        messages = record["messages"]
        assert isinstance(messages, list)
        yield str(record["id"]), messages
