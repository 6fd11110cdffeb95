"""contextfold: keep long-running LLM agents inside their context window.

The whole public API lives here; every other module is private.
"""

from __future__ import annotations

from ._adapters import FORMATS, Format, detect, parse, render, validate
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
from ._summarizers._anthropic import AnthropicSummarizer
from ._summarizers._cache import CachedSummarizer, SummaryCache
from ._summarizers._fallback import FallbackSummarizer
from ._summarizers._openai import OpenAISummarizer
from ._summarizers._protocol import AsyncSummarizer, Summarizer, SummaryRequest, SummaryResult
from ._summarizers._spec import summarizer_from_spec
from ._tokens._protocol import TokenCounter
from ._validation import Problem

__version__ = "0.1.0"

__all__ = [
    "FORMATS",
    "AmbiguousFormat",
    "AnthropicSummarizer",
    "ArchiveError",
    "AsyncSummarizer",
    "BudgetUnreachable",
    "CachedSummarizer",
    "Card",
    "ConfigurationError",
    "ContextFoldError",
    "Conversation",
    "FallbackSummarizer",
    "Format",
    "Image",
    "InvalidConversation",
    "Marker",
    "Message",
    "Opaque",
    "OpenAISummarizer",
    "Part",
    "Problem",
    "Reasoning",
    "Role",
    "Summarizer",
    "SummarizerError",
    "Summary",
    "SummaryCache",
    "SummaryRequest",
    "SummaryResult",
    "Text",
    "TokenCounter",
    "TokenizerError",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "UnknownReference",
    "__version__",
    "detect",
    "parse",
    "render",
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
