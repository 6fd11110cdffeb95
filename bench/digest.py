"""Digests of `compact` outputs: speed work must leave every output byte-identical.

Rules:
1. A case is a conversation, a format and a budget fraction of its exact o200k tokens; its
   digest is the sha256 of the rendered payload, the report and every archive record (the
   stored JSON text), as sorted-key JSON.
2. Cases: the real corpus at 10/25/50% with exact counts (and at 25% with the default
   heuristic counter, with chars/4 (`QuarterCounter`, a counter that offers no floor), and
   converted to Anthropic and Responses), generated tool-heavy histories and generated
   chatty sessions (user statements: the card) at 10/25/50% (the histories at 25% with
   chars/4 too).
3. `--write FILE` records the digests, `--check FILE` compares with a recorded file and
   names every case that differs. Run it before and after a change.
4. `--corpus` keeps to the corpus cases: tests/bench/corpus_digests.json records them, and
   tests/bench/test_digest.py checks every output against it (an intended change of
   output is recorded again with `--corpus --write tests/bench/corpus_digests.json`).

Usage: .venv/bin/python -m bench.digest (--write | --check) FILE [--quick] [--corpus]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import contextfold as cf

from .baselines import QuarterCounter, exact_tokens
from .common import corpus
from .sessions import SPLITS, generate, wire
from .synthetic import history

FRACTIONS = (0.10, 0.25, 0.50)
Case = tuple[str, Callable[[], cf.CompactResult[Any]]]


def digest(result: cf.CompactResult[Any]) -> str:
    """Rule 1: one hash over payload, report and archive records."""
    store = result.archive.store
    records = {ref: store.get(ref) for ref in result.archive.refs()}
    data = {"payload": result.payload, "report": result.report.to_dict(), "archive": records}
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _one(payload: Any, budget: int, **kw: Any) -> Callable[[], cf.CompactResult[Any]]:
    return lambda: cf.compact(payload, budget, **kw)


def _fractions(name: str, messages: list[Any]) -> Iterator[Case]:
    tokens = exact_tokens(messages)
    for share in FRACTIONS:
        yield f"{name}@{share:.2f}", _one(messages, max(1, int(tokens * share)), model="gpt-4o")


def corpus_cases(per_file: int | None = None) -> Iterator[Case]:
    """Rule 2, the real corpus."""
    for record in corpus(per_file=per_file):
        name = f"corpus/{record.id}"
        yield from _fractions(name, record.messages)
        budget = max(1, exact_tokens(record.messages) // 4)
        yield f"{name}@0.25/heuristic", _one(record.messages, budget)
        yield f"{name}@0.25/chars4", _one(record.messages, budget, counter=QuarterCounter())
        for target in ("anthropic", "openai-responses"):
            # a body for Anthropic: a bare list has no place for the system prompt
            source = {"messages": record.messages} if target == "anthropic" else record.messages
            try:
                converted = cf.convert(source, target)
            except cf.ContextFoldError:
                continue
            yield f"{name}@0.25/{target}", _one(converted, budget, model="gpt-4o")


def generated_cases(quick: bool = False) -> Iterator[Case]:
    """Rule 2, generated histories and sessions."""
    sizes = (60, 400) if quick else (60, 400, 2_000)
    for size in sizes:
        for seed in range(2):
            messages = history(size, seed)
            yield from _fractions(f"synthetic/{size}/{seed}", messages)
            budget = max(1, exact_tokens(messages) // 4)
            yield (
                f"synthetic/{size}/{seed}@0.25/chars4",
                _one(messages, budget, counter=QuarterCounter()),
            )
    for seed in range(2 if quick else 6):
        for split in SPLITS:
            for style in ("agent", "chat"):
                messages = wire(generate(seed, split, style))
                yield from _fractions(f"session/{seed}/{split}/{style}", messages)


def cases(quick: bool = False) -> Iterator[Case]:
    """Every case, generated first."""
    yield from generated_cases(quick)
    yield from corpus_cases(per_file=5 if quick else None)


def digests(quick: bool = False, only_corpus: bool = False) -> dict[str, str]:
    """Case name -> digest."""
    chosen = corpus_cases() if only_corpus else cases(quick)
    return {name: digest(run()) for name, run in chosen}


def main(argv: list[str] | None = None) -> int:
    """Write or check recorded digests (rule 3)."""
    parser = argparse.ArgumentParser(prog="python -m bench.digest")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path)
    mode.add_argument("--check", type=Path)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--corpus", action="store_true", help="only the corpus cases (rule 4)")
    args = parser.parse_args(argv)
    found = digests(args.quick, args.corpus)
    if args.write:
        args.write.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"{len(found):,} digests written to {args.write}")
        return 0
    recorded: dict[str, str] = json.loads(args.check.read_text())
    differ = sorted(k for k in found if k in recorded and recorded[k] != found[k])
    missing = sorted(set(recorded) - set(found))
    for name in differ:
        print(f"differs: {name}")
    for name in missing:
        print(f"missing: {name}")
    print(f"{len(found):,} cases, {len(differ):,} differ, {len(missing):,} missing")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main())
