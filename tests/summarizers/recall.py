"""How much of what the agent uses after a cut does a ledger of the part before it keep?

Run `python -m tests.summarizers.recall [max_tokens]` from the repository root for the
per-file table. The measure (`recall`) is used by `test_ledger.py` with a floor.

Method: cut each conversation at its midpoint (moved forward past any tool results so no
exchange is split), ledger messages 1..cut (the system prompt stays in the conversation
and is not folded). "Used" values are identifier-like tokens (`TOKEN`, `identifier_like`)
in the agent's tool-call arguments and replies after the cut. A used value counts when it
appeared before the cut and not in the system prompt. `needed` is the stricter subset not
shown again after the cut before the agent used it (no re-read could recover it). Recall is
the fraction of counted values that are tokens of the ledger text.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import contextfold
from contextfold import Message, SummaryRequest, ToolCall, ToolResult
from contextfold._messages import message_text
from contextfold._summarizers._ledger import LedgerSummarizer

from ..corpus import CORPUS_DIR, FILES

TOKEN: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./:@-]*[A-Za-z0-9_]")


def identifier_like(token: str) -> bool:
    """A token that names or measures something (not an English word)."""
    if len(token) < 3:
        return False
    if any(c.isdigit() or c in "_/@" for c in token) or "." in token:
        return True
    return re.search(r"[a-z][A-Z]", token) is not None or (token.isupper() and token.isalpha())


def tokens(text: str) -> set[str]:
    """The identifier-like tokens of `text`."""
    return {t for t in TOKEN.findall(text) if identifier_like(t)}


def used_tokens(message: Message) -> set[str]:
    """Values the agent uses in `message`: its reply text and its tool-call arguments."""
    out: set[str] = set()
    for part in message.parts:
        if isinstance(part, ToolCall):
            out |= _argument_tokens(part.arguments)
        elif not isinstance(part, ToolResult):
            out |= tokens(message_text(Message("assistant", (part,))))
    return out


def _argument_tokens(arguments: str) -> set[str]:
    try:
        data: object = json.loads(arguments)
    except ValueError:
        return tokens(arguments)
    return set().union(*(tokens(str(leaf)) for leaf in _leaves(data)))


def _leaves(data: object) -> Iterator[object]:
    if isinstance(data, dict):
        for child in data.values():
            yield from _leaves(child)
    elif isinstance(data, list):
        for child in data:
            yield from _leaves(child)
    elif data is not None:
        yield data


def cut_point(messages: list[Message]) -> int:
    """The midpoint, moved forward past tool results so no exchange is split."""
    cut = len(messages) // 2
    while cut < len(messages) and messages[cut].role == "tool":
        cut += 1
    return cut


@dataclass(frozen=True, slots=True)
class Score:
    """One conversation's counts."""

    used: int
    used_kept: int
    needed: int
    needed_kept: int
    ledger_tokens: int
    millis: float


def chat_messages(wire: object) -> list[Message]:
    """Neutral messages for a corpus conversation (OpenAI chat wire messages)."""
    return list(contextfold.parse(wire, format="openai-chat")[1].messages)


def score(messages: list[Message], max_tokens: int, ledger: LedgerSummarizer) -> Score:
    """Ledger the first half of `messages` and count what the second half uses."""
    cut = cut_point(messages)
    span = tuple(messages[1:cut])
    refs = tuple(f"r{i:010x}" for i in range(len(span)))
    start = time.perf_counter()
    result = ledger.summarize(SummaryRequest(span, refs=refs, max_tokens=max_tokens))
    millis = (time.perf_counter() - start) * 1000
    kept = tokens(result.text)
    system = tokens(message_text(messages[0])) if messages[0].role == "system" else set()
    before = set().union(*(tokens(message_text(m)) for m in span)) - system
    used: set[str] = set()
    needed: set[str] = set()
    shown: set[str] = set()
    for message in messages[cut:]:
        if message.role == "assistant":
            now = used_tokens(message) & before
            used |= now
            needed |= now - shown
        shown |= tokens(message_text(message))
    return Score(
        len(used),
        len(used & kept),
        len(needed),
        len(needed & kept),
        ledger.count_text(result.text),
        millis,
    )


def file_scores(name: str, max_tokens: int) -> list[Score]:
    """Scores for every conversation of one corpus file ([] when absent)."""
    path = Path(CORPUS_DIR) / name
    if not path.exists():
        return []
    ledger = LedgerSummarizer()
    with path.open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return [score(chat_messages(r["messages"]), max_tokens, ledger) for r in records]


def ratio(part: int, whole: int) -> float:
    """`part / whole`, or 1.0 for an empty whole."""
    return part / whole if whole else 1.0


def main(argv: list[str]) -> None:
    """Print the per-file table."""
    max_tokens = int(argv[0]) if argv else 1000
    print(f"max_tokens={max_tokens}")
    for name in FILES:
        scores = file_scores(name, max_tokens)
        if not scores:
            continue
        used = sum(s.used for s in scores)
        kept = sum(s.used_kept for s in scores)
        needed = sum(s.needed for s in scores)
        nkept = sum(s.needed_kept for s in scores)
        times = sorted(s.millis for s in scores)
        print(
            f"{name}: conversations={len(scores)} used={used} recall={ratio(kept, used):.3f} "
            f"needed={needed} recall_needed={ratio(nkept, needed):.3f} "
            f"ledger_tokens_mean={sum(s.ledger_tokens for s in scores) / len(scores):.0f} "
            f"ms_median={times[len(times) // 2]:.1f} ms_max={times[-1]:.1f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
