"""contextfold: keep long-running LLM agents inside their context window.

The whole public API lives here; every other module is private.
"""

from __future__ import annotations

from ._adapters import FORMATS, Format, detect, parse, render, validate
from ._adapters._convert import convert
from ._archive import Archive, ArchiveEntry
from ._compact import CompactResult, acompact, compact
from ._errors import (
    AmbiguousFormat,
    ArchiveError,
    BudgetUnreachable,
    ConfigurationError,
    ContextFoldError,
    InvalidConversation,
    SummarizerError,
    TokenizerError,
    UnknownReference,
)
from ._manager import ContextManager
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
from ._policy import Policy
from ._recall_tool import RECALL_TOOL_NAME, answer_recall, recall_tool
from ._report import Report, SummaryInfo
from ._storage import ArchiveStore, MemoryStore, SqliteStore
from ._strategies._eviction import Eviction, evict_fraction, fit, max_of, min_of, retain_last
from ._strategies._steps import Chain, chain, drop, mask, prune, summarize
from ._summarizers._anthropic import AnthropicSummarizer
from ._summarizers._cache import CachedSummarizer, SummaryCache
from ._summarizers._fallback import FallbackSummarizer
from ._summarizers._ledger import LedgerSummarizer
from ._summarizers._openai import OpenAISummarizer
from ._summarizers._protocol import AsyncSummarizer, Summarizer, SummaryRequest, SummaryResult
from ._summarizers._spec import summarizer_from_spec
from ._tokens._accounting import count_conversation, fixed_overhead
from ._tokens._api import count_tokens, counter_for
from ._tokens._calibrated import CalibratedCounter
from ._tokens._counters import HeuristicCounter, HFTokenizerCounter, TiktokenCounter
from ._tokens._protocol import ConversationCounter, TokenCounter
from ._validation import Problem

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
    "Role",
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
    "UnknownReference",
    "__version__",
    "acompact",
    "answer_recall",
    "chain",
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
    "summarize",
    "summarizer_from_spec",
    "validate",
]

# Public objects report `contextfold` as their module, as httpx does, so reprs, docs and
# pickles name the public path rather than the private module they happen to live in.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type) or callable(_obj):
        _obj.__module__ = "contextfold"
del _name, _obj
