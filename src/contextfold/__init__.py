"""contextfold: keep long-running LLM agents inside their context window.

The whole public API lives here; every other module is private. Names load on first use
(PEP 562 `__getattr__`), so `import contextfold` stays cheap: the engine, the adapters and
the tokenizers are imported when something asks for them.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import TYPE_CHECKING

from ._errors import (
    AmbiguousFormat,
    ArchiveError,
    BudgetUnreachable,
    ConfigurationError,
    ContextFoldError,
    InvalidConversation,
    SummarizerError,
    TokenizerError,
    UnknownModelWarning,
    UnknownReference,
)

if TYPE_CHECKING:
    from ._adapters import (
        FORMATS,
        Format,
        detect,
        parse,
        render,
        validate,
    )
    from ._adapters._convert import (
        convert,
    )
    from ._archive import (
        Archive,
        ArchiveEntry,
    )
    from ._compact import (
        CompactResult,
        acompact,
        compact,
    )
    from ._content_cache import (
        clear_caches,
    )
    from ._manager import (
        ContextManager,
    )
    from ._messages import (
        Card,
        Conversation,
        Image,
        Marker,
        Message,
        Opaque,
        Part,
        Reasoning,
        Role,
        Summary,
        Text,
        ToolCall,
        ToolResult,
        ToolSpec,
    )
    from ._policy import (
        Policy,
    )
    from ._recall_tool import (
        RECALL_TOOL_NAME,
        answer_recall,
        recall_tool,
    )
    from ._report import (
        Report,
        SummaryInfo,
    )
    from ._serve import (
        serve,
    )
    from ._sessions import (
        Resent,
        Sessions,
    )
    from ._storage import (
        ArchiveStore,
        MemoryStore,
        SqliteStore,
    )
    from ._strategies._eviction import (
        Eviction,
        evict_fraction,
        fit,
        max_of,
        min_of,
        retain_last,
    )
    from ._strategies._steps import (
        Chain,
        chain,
        drop,
        mask,
        prune,
        summarize,
    )
    from ._summarizers._anthropic import (
        AnthropicSummarizer,
    )
    from ._summarizers._cache import (
        CachedSummarizer,
        SummaryCache,
    )
    from ._summarizers._fallback import (
        FallbackSummarizer,
    )
    from ._summarizers._ledger import (
        LedgerSummarizer,
    )
    from ._summarizers._openai import (
        OpenAISummarizer,
    )
    from ._summarizers._protocol import (
        AsyncSummarizer,
        Summarizer,
        SummaryRequest,
        SummaryResult,
    )
    from ._summarizers._spec import (
        summarizer_from_spec,
    )
    from ._tokens._accounting import (
        count_conversation,
        fixed_overhead,
    )
    from ._tokens._api import (
        count_tokens,
        counter_for,
    )
    from ._tokens._calibrated import (
        CalibratedCounter,
    )
    from ._tokens._counters import (
        HeuristicCounter,
        HFTokenizerCounter,
        TiktokenCounter,
    )
    from ._tokens._protocol import (
        ConversationCounter,
        TokenCounter,
    )
    from ._validation import (
        Problem,
    )

__version__ = "0.1.0"

__all__ = [
    "FORMATS",
    "RECALL_TOOL_NAME",
    "AmbiguousFormat",
    "AnthropicSummarizer",
    "Archive",
    "ArchiveEntry",
    "ArchiveError",
    "ArchiveStore",
    "AsyncSummarizer",
    "BudgetUnreachable",
    "CachedSummarizer",
    "CalibratedCounter",
    "Card",
    "Chain",
    "CompactResult",
    "ConfigurationError",
    "ContextFoldError",
    "ContextManager",
    "Conversation",
    "ConversationCounter",
    "Eviction",
    "FallbackSummarizer",
    "Format",
    "HFTokenizerCounter",
    "HeuristicCounter",
    "Image",
    "InvalidConversation",
    "LedgerSummarizer",
    "Marker",
    "MemoryStore",
    "Message",
    "Opaque",
    "OpenAISummarizer",
    "Part",
    "Policy",
    "Problem",
    "Reasoning",
    "Report",
    "Resent",
    "Role",
    "Sessions",
    "SqliteStore",
    "Summarizer",
    "SummarizerError",
    "Summary",
    "SummaryCache",
    "SummaryInfo",
    "SummaryRequest",
    "SummaryResult",
    "Text",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerError",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "UnknownModelWarning",
    "UnknownReference",
    "__version__",
    "acompact",
    "answer_recall",
    "chain",
    "clear_caches",
    "compact",
    "convert",
    "count_conversation",
    "count_tokens",
    "counter_for",
    "detect",
    "drop",
    "evict_fraction",
    "fit",
    "fixed_overhead",
    "mask",
    "max_of",
    "min_of",
    "parse",
    "prune",
    "recall_tool",
    "render",
    "retain_last",
    "serve",
    "summarize",
    "summarizer_from_spec",
    "validate",
]

_LAZY: dict[str, str] = {
    "AnthropicSummarizer": "._summarizers._anthropic",
    "Archive": "._archive",
    "ArchiveEntry": "._archive",
    "ArchiveStore": "._storage",
    "AsyncSummarizer": "._summarizers._protocol",
    "CachedSummarizer": "._summarizers._cache",
    "CalibratedCounter": "._tokens._calibrated",
    "Card": "._messages",
    "Chain": "._strategies._steps",
    "CompactResult": "._compact",
    "ContextManager": "._manager",
    "Conversation": "._messages",
    "ConversationCounter": "._tokens._protocol",
    "Eviction": "._strategies._eviction",
    "FORMATS": "._adapters",
    "FallbackSummarizer": "._summarizers._fallback",
    "Format": "._adapters",
    "HFTokenizerCounter": "._tokens._counters",
    "HeuristicCounter": "._tokens._counters",
    "Image": "._messages",
    "LedgerSummarizer": "._summarizers._ledger",
    "Marker": "._messages",
    "MemoryStore": "._storage",
    "Message": "._messages",
    "Opaque": "._messages",
    "OpenAISummarizer": "._summarizers._openai",
    "Part": "._messages",
    "Policy": "._policy",
    "Problem": "._validation",
    "RECALL_TOOL_NAME": "._recall_tool",
    "Reasoning": "._messages",
    "Report": "._report",
    "Resent": "._sessions",
    "Role": "._messages",
    "Sessions": "._sessions",
    "SqliteStore": "._storage",
    "Summarizer": "._summarizers._protocol",
    "Summary": "._messages",
    "SummaryCache": "._summarizers._cache",
    "SummaryInfo": "._report",
    "SummaryRequest": "._summarizers._protocol",
    "SummaryResult": "._summarizers._protocol",
    "Text": "._messages",
    "TiktokenCounter": "._tokens._counters",
    "TokenCounter": "._tokens._protocol",
    "ToolCall": "._messages",
    "ToolResult": "._messages",
    "ToolSpec": "._messages",
    "acompact": "._compact",
    "answer_recall": "._recall_tool",
    "chain": "._strategies._steps",
    "clear_caches": "._content_cache",
    "compact": "._compact",
    "convert": "._adapters._convert",
    "count_conversation": "._tokens._accounting",
    "count_tokens": "._tokens._api",
    "counter_for": "._tokens._api",
    "detect": "._adapters",
    "drop": "._strategies._steps",
    "evict_fraction": "._strategies._eviction",
    "fit": "._strategies._eviction",
    "fixed_overhead": "._tokens._accounting",
    "mask": "._strategies._steps",
    "max_of": "._strategies._eviction",
    "min_of": "._strategies._eviction",
    "parse": "._adapters",
    "prune": "._strategies._steps",
    "recall_tool": "._recall_tool",
    "render": "._adapters",
    "retain_last": "._strategies._eviction",
    "serve": "._serve",
    "summarize": "._strategies._steps",
    "summarizer_from_spec": "._summarizers._spec",
    "validate": "._adapters",
}
"""Public name -> the private module that defines it."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'contextfold' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    _claim(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _claim(obj: object) -> None:
    """Public objects report `contextfold` as their module, as httpx does, so reprs, docs
    and pickles name the public path rather than the private module they live in."""
    if isinstance(obj, type) or callable(obj):
        with contextlib.suppress(AttributeError, TypeError):  # a typing alias: nothing to claim
            obj.__module__ = "contextfold"


for _name in (
    "AmbiguousFormat",
    "ArchiveError",
    "BudgetUnreachable",
    "ConfigurationError",
    "ContextFoldError",
    "InvalidConversation",
    "SummarizerError",
    "TokenizerError",
    "UnknownModelWarning",
    "UnknownReference",
):
    _claim(globals()[_name])
del _name
