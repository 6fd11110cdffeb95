"""The settings every entry point takes (`compact`, `ContextManager`), checked as they come.

Rules:
1. A setting of the wrong kind is a ConfigurationError naming the argument, what it got and
   what to pass instead, raised before anything runs: a path where an Archive belongs, a
   dict where a Policy belongs, an object with no `summarize`. Before, each failed later
   as an AttributeError or TypeError deep inside compaction (or, for a summarizer, only on
   the call that first needed a summary).
2. None means the default, as it always has; the checks never build anything.
"""

from __future__ import annotations

from typing import NamedTuple

from ._archive import Archive
from ._errors import ConfigurationError
from ._policy import Policy
from ._summarizers._protocol import Summarizer


class Settings(NamedTuple):
    """The checked settings (rule 1)."""

    policy: Policy | None
    archive: Archive | None
    summarizer: Summarizer | None


def checked(policy: object, archive: object, summarizer: object) -> Settings:
    """`policy`, `archive` and `summarizer` when each is of its kind or None (rule 1)."""
    if policy is not None and not isinstance(policy, Policy):
        raise ConfigurationError(
            f"policy must be a contextfold.Policy, got {_shown(policy)}; pass "
            "cf.Policy(low=0.5, ...) or give its fields as keywords (low=0.5)"
        )
    if archive is not None and not isinstance(archive, Archive):
        raise ConfigurationError(
            f"archive must be a contextfold.Archive, got {_shown(archive)}; pass "
            "cf.Archive(cf.SqliteStore('archive.db')) to keep the originals in a file"
        )
    if summarizer is not None and not any(
        callable(getattr(summarizer, name, None)) for name in ("summarize", "asummarize")
    ):
        raise ConfigurationError(
            f"summarizer must have summarize(request) (or async asummarize), got "
            f"{_shown(summarizer)}; pass cf.LedgerSummarizer(), "
            "cf.summarizer_from_spec('openai:MODEL') or leave it out"
        )
    return Settings(policy, archive, summarizer)  # type: ignore[arg-type]


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"
