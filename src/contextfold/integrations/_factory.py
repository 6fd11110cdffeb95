"""How an integration makes its managers: the caller's settings, one shared archive.

Rules:
1. Every manager an integration makes has the caller's budget, model, policy (policy
   fields given as keywords override it), summarizer and counter, and the integration's
   one archive, so a reference shown to the model stays recallable across restarts.
2. The format is the framework's wire format; what varies per manager (a system prompt,
   tools) is passed when it is made.
3. Markers and summaries name the recall tool only when the request offers it
   (`Policy.recall_hints`): `offers_recall` reads the tools as the integration sends them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import contextfold as cf


def manager_factory(
    budget: int,
    model: str | None,
    *,
    format: str,
    archive: cf.Archive,
    policy: cf.Policy | None,
    summarizer: cf.Summarizer | None,
    counter: cf.TokenCounter | None,
    options: Mapping[str, object],
) -> Callable[..., cf.ContextManager[Any]]:
    """A callable making managers with these settings (rule 1); keywords go to each."""
    return functools.partial(
        cf.ContextManager,
        budget,
        model,
        format=format,
        policy=(policy or cf.Policy()).replace(**options) if options else policy,
        summarizer=summarizer,
        counter=counter,
        archive=archive,
    )


def offers_recall(tools: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the recall tool is among `tools` (OpenAI chat or Responses definitions)."""
    for tool in tools:
        function = tool.get("function")
        named = function if isinstance(function, Mapping) else tool
        if named.get("name") == cf.RECALL_TOOL_NAME:
            return True
    return False
