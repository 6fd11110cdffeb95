"""Options several commands share: budget, model, format, policy marks and the summarizer.

Rules:
1. A budget is a number of tokens (`8000`, `8_000`), or, where a command allows it, a
   share of each conversation's own size (`40%`).
2. The summarizer is the embedded ledger unless `--summarizer BACKEND:MODEL` names a
   model; `--base-url`, `--fallback` and `--cache` only make sense with it. Keys come
   from the usual environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY) inside the
   library; the CLI never reads, prints or stores them.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Final

import contextfold as cf

from ._io import fail, usage_error
from ._params import option

_TOKENS: Final = re.compile(r"[0-9][0-9_,]*")
_PERCENT: Final = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*%")
SUMMARIZER_PANEL: Final = "Summarizer (default: the embedded ledger, no network)"


@dataclass(frozen=True, slots=True)
class Budget:
    """A budget in tokens, or as a percentage of each conversation's own tokens."""

    tokens: int | None = None
    percent: float | None = None

    def resolve(self, count: Callable[[], int]) -> int:
        """The budget in tokens; `count` gives the conversation's size when it is a share."""
        if self.tokens is not None:
            return self.tokens
        assert self.percent is not None
        return max(1, math.floor(count() * self.percent / 100))

    def __str__(self) -> str:
        return f"{self.tokens:,}" if self.tokens is not None else f"{self.percent:g}%"


def parse_budget(text: str) -> Budget:
    """A budget from the command line: tokens, or a share like `40%`."""
    text = text.strip()
    if _TOKENS.fullmatch(text):
        tokens = int(text.replace("_", "").replace(",", ""))
        if tokens >= 1:
            return Budget(tokens=tokens)
    found = _PERCENT.fullmatch(text)
    if found and 0 < float(found.group(1)) <= 100:
        return Budget(percent=float(found.group(1)))
    usage_error(f"{text!r} is not a budget; give tokens (8000) or a share (40%)")


def parse_tokens(text: str) -> Budget:
    """A budget in tokens (for commands that read one payload: shares are for batch)."""
    found = _TOKENS.fullmatch(text.strip())
    tokens = int(text.strip().replace("_", "").replace(",", "")) if found else 0
    if tokens < 1:
        usage_error(f"{text!r} is not a budget; give a positive number of tokens, e.g. 8000")
    return Budget(tokens=tokens)


def tokens_only(budget: Budget) -> int:
    """The budget in tokens, refusing a percentage (for commands that read one payload)."""
    if budget.tokens is None:
        usage_error(
            f"{budget} is a share; give tokens here, e.g. 8000 (shares are for batch)",
            ("--budget", "-b"),
        )
    return budget.tokens


class FormatName(enum.StrEnum):
    """Wire formats on the command line; `auto` detects."""

    auto = "auto"
    openai_chat = "openai-chat"
    openai_responses = "openai-responses"
    anthropic = "anthropic"

    def option(self) -> str | None:
        """The `format=` argument for the library (None detects)."""
        return None if self is FormatName.auto else self.value


@contextmanager
def hinting_format(payload: object, given: str | None) -> Iterator[None]:
    """Bad input under an explicit --format (`given`) that the payload's own format does
    not explain: the error says which format the payload looks like."""
    try:
        yield
    except cf.InvalidConversation as exc:
        if given is None:
            raise
        try:
            detected = cf.detect(payload)
        except cf.ContextFoldError:
            raise exc from None
        if detected == given:
            raise
        hint = f" (the payload looks like {detected}: drop --format {given})"
        raise cf.InvalidConversation(
            exc.reason + hint, index=exc.index, field=exc.field, format=exc.format
        ) from None


@dataclass(frozen=True, slots=True)
class SummarizerChoice:
    """What `--summarizer`, `--base-url`, `--fallback` and `--cache` asked for."""

    spec: str | None = None
    base_url: str | None = None
    fallback: tuple[str, ...] = ()
    cache: str | None = None

    def check(self) -> None:
        """Usage error when model options come without `--summarizer`."""
        if self.spec is None and (self.base_url or self.fallback or self.cache):
            usage_error("--base-url, --fallback and --cache need --summarizer BACKEND:MODEL")

    def build(self) -> cf.Summarizer | None:
        """The summarizer, or None for the library's embedded default."""
        if self.spec is None:
            return None
        return cf.summarizer_from_spec(
            self.spec,
            base_url=self.base_url,
            fallback=self.fallback,
            cache_path=self.cache,
            last_resort=cf.LedgerSummarizer(),
        )


BudgetOption = Annotated[
    Budget,
    option(
        "--budget",
        "-b",
        parser=parse_tokens,
        metavar="TOKENS",
        help="Token budget the result must fit in.",
    ),
]
ModelOption = Annotated[
    str | None,
    option(
        "--model",
        "-m",
        metavar="MODEL",
        help="Model whose tokenizer counts the tokens (e.g. gpt-4o); default: an estimate.",
    ),
]
FormatOption = Annotated[
    FormatName,
    option("--format", "-f", help="Wire format of the payload.", case_sensitive=False),
]
HighOption = Annotated[
    float | None,
    option(
        "--high",
        min=0.0,
        max=1.0,
        help="High-water mark (agent loops only: one-shot commands reject it).",
    ),
]
LowOption = Annotated[
    float | None,
    option(
        "--low",
        min=0.0,
        max=1.0,
        help="Low-water mark: a payload over budget is compacted down to low x budget.",
    ),
]
StrictOption = Annotated[
    bool, option("--strict", help="Exit with code 1 when the result does not fit.")
]
SpecOption = Annotated[
    str | None,
    option(
        "--summarizer",
        metavar="BACKEND:MODEL",
        help="Summarize with a model: openai:MODEL (any OpenAI-compatible server) or "
        "anthropic:MODEL. Keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY.",
        rich_help_panel=SUMMARIZER_PANEL,
    ),
]
BaseUrlOption = Annotated[
    str | None,
    option(
        "--base-url",
        metavar="URL",
        help="Base URL of the summarizer's server, e.g. http://localhost:8000/v1.",
        rich_help_panel=SUMMARIZER_PANEL,
    ),
]
FallbackOption = Annotated[
    list[str] | None,
    option(
        "--fallback",
        metavar="BACKEND:MODEL[@URL]",
        help="Model to try when the summarizer fails (repeatable); the ledger is last.",
        rich_help_panel=SUMMARIZER_PANEL,
    ),
]
CacheOption = Annotated[
    str | None,
    option(
        "--cache",
        metavar="DB",
        help="SQLite file caching summaries: the same span is never summarized twice.",
        rich_help_panel=SUMMARIZER_PANEL,
    ),
]


DeadlineOption = Annotated[
    float | None,
    option(
        "--deadline",
        min=0.001,
        metavar="SECONDS",
        help="Longest wait for the summarizer per compaction; then the ledger writes the "
        "summary (default 20).",
        rich_help_panel=SUMMARIZER_PANEL,
    ),
]


def policy(high: float | None, low: float | None, deadline: float | None = None) -> cf.Policy:
    """The default policy with the water marks and deadline given on the command line; one
    error line naming the options given when the policy refuses them."""
    given = {"high": high, "low": low, "deadline": deadline}
    chosen = {name: value for name, value in given.items() if value is not None}
    try:
        return cf.Policy().replace(**chosen)
    except cf.ConfigurationError as exc:
        named = [name for name in chosen if name in str(exc)] or list(chosen)
        fail(f"{', '.join(f'--{name} {chosen[name]:g}' for name in named)}: {exc}")
