"""LangGraph: a `pre_model_hook` for the prebuilt ReAct agent (`create_react_agent`).

    hook = ContextFoldHook(8000, prompt=SYSTEM)
    agent = create_react_agent(model, [*tools, hook.recall_tool], prompt=SYSTEM,
                               pre_model_hook=hook, checkpointer=...)

Rules:
1. The hook returns `{"llm_input_messages": view}`: the model sees the compacted view
   while the graph state (and its checkpoint) keeps the full history.
2. `create_react_agent` adds its `prompt` after the hook, so the hook is told the prompt
   to budget for it and to place the user-state card after it, and leaves it out of
   what it returns. A system message at the head of the state instead is kept as is.
3. Same conversion, per-thread managers and shared archive as the LangChain middleware.
4. The hook cannot see the agent's tools: it is told them (`tools=`), and whether the
   agent is given `hook.recall_tool` (`recall=`, default True). The recall tool is
   counted, and named in summaries and markers, only when it is.
5. `create_react_agent(response_format=...)` asks for the structured response with the
   whole state, past the hook: that call is not compacted (LangChain's `create_agent`
   middleware covers it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import contextfold as cf

from ._threads import ThreadAccess, Threads
from .langchain import from_wire, recall_tool, to_wire, tool_specs

try:
    from langchain_core.messages import BaseMessage, SystemMessage
    from langchain_core.tools import BaseTool
    from langgraph.config import get_config
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "contextfold.integrations.langgraph needs LangGraph: pip install 'contextfold[langchain]'"
    ) from exc

__all__ = ["ContextFoldHook"]


class ContextFoldHook(ThreadAccess):
    """A `pre_model_hook` compacting what the model sees to `budget` tokens."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        prompt: str | None = None,
        tools: Sequence[BaseTool | Callable[..., Any] | dict[str, Any]] = (),
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        recall: bool = True,
        max_threads: int = 1024,
    ) -> None:
        cf.ContextManager(budget, model, policy=policy, counter=counter)  # fail early
        self.budget = budget
        self.model = model
        self.prompt = prompt
        self.policy = policy
        self.summarizer = summarizer
        self.counter = counter
        self._threads: Threads[BaseMessage] = Threads(to_wire, archive=archive, limit=max_threads)
        self.recall_tool = recall_tool(self._threads.archive)
        """`contextfold_recall` as a LangChain tool: give it to the agent with your tools."""
        self._recall = recall
        self._tools = tool_specs([*tools, *([self.recall_tool] if recall else [])])
        self.__name__ = "contextfold_pre_model_hook"  # the graph node's name

    def __call__(self, state: Any) -> dict[str, list[BaseMessage]]:
        messages = state["messages"] if isinstance(state, dict) else state.messages
        head = [SystemMessage(self.prompt)] if self.prompt is not None else []
        pairs = self._threads.view(_thread_id(), [*head, *messages], self._make)
        view = [original or from_wire(wire) for wire, original in pairs]
        return {"llm_input_messages": view[len(head) :]}

    def _make(self, archive: cf.Archive) -> cf.ContextManager:
        return cf.ContextManager(
            self.budget,
            self.model,
            tools=self._tools,
            archive=archive,
            policy=self.policy,
            summarizer=self.summarizer,
            counter=self.counter,
            recall_hints=self._recall,
        )


def _thread_id() -> Hashable:
    """The thread of the graph run calling the hook (None outside a checkpointed run)."""
    configurable = get_config().get("configurable") or {}
    return configurable.get("thread_id")
