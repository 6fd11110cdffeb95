"""The engine's seam to token accounting: pick a counter, measure fixed overhead, and
the default summarizer (the embedded ledger, counting with that counter)."""

from __future__ import annotations

from .._errors import ConfigurationError, ContextFoldError
from .._messages import Conversation
from .._summarizers._ledger import LedgerSummarizer
from .._summarizers._protocol import Summarizer
from .._tokens._accounting import fixed_overhead as _fixed_overhead
from .._tokens._api import counter_for
from .._tokens._protocol import TokenCounter


def resolve_counter(model: str | None, format: str, counter: TokenCounter | None) -> TokenCounter:
    """The caller's counter, or the best offline counter for `model` in `format`."""
    if counter is None:
        return counter_for(model, format)
    if isinstance(counter, str | bytes) or not callable(getattr(counter, "count", None)):
        raise ConfigurationError(
            f"counter must be a token counter (an object with count(message) -> int), got "
            f"{counter!r}; pass cf.counter_for(model), cf.HeuristicCounter() or "
            "cf.TiktokenCounter('o200k_base'), or leave it out to pick one from the model"
        )
    return counter


def counter_name(counter: TokenCounter) -> str:
    """A short name for reports."""
    return str(getattr(counter, "name", type(counter).__name__))


def fixed_overhead(conversation: Conversation, counter: TokenCounter) -> int:
    """Tokens outside the messages: reply priming and tool schemas."""
    return _fixed_overhead(conversation, counter)


def default_summarizer(counter: TokenCounter) -> LedgerSummarizer:
    """The embedded ledger, measuring its bound with `counter` when it can count bare text."""
    count_text = getattr(counter, "count_text", None)
    if not callable(count_text):
        return LedgerSummarizer()
    try:
        count_text("probe")
    except ContextFoldError:  # e.g. a calibrated wrapper around a message-only counter
        return LedgerSummarizer()
    return LedgerSummarizer(count_text=count_text)


def reads_whole_spans(summarizer: Summarizer) -> bool:
    """Whether `summarizer` takes a folded span in one request (`Settings.whole_spans`): the
    embedded ledger bounds its own reading; any other is sent chunks it can take in."""
    return isinstance(summarizer, LedgerSummarizer)
