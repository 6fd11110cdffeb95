"""LangChain: an agent middleware for `create_agent`, and the recall tool as a LangChain tool.

    from contextfold.integrations.langchain import ContextFoldMiddleware
    agent = create_agent(model, tools, system_prompt=..., middleware=[ContextFoldMiddleware(8000)])

Rules:
1. The middleware wraps each model call (`wrap_model_call` / `awrap_model_call`): the
   request the model sees is the compacted view; the graph state keeps the full history,
   so nothing is lost from the checkpoint and every call starts from the truth.
2. Messages go through langchain_core's own converters (`convert_to_openai_messages`,
   `convert_to_messages`) into the openai-chat adapter: no wire format here. Messages the
   compaction kept unchanged are handed back as the framework's own objects.
3. One `cf.ContextManager` per LangGraph thread (`runtime.execution_info.thread_id`), fed
   only the new messages (see `_threads`); all of them share one archive.
4. The recall tool is registered by the middleware itself (`AgentMiddleware.tools`), so
   the agent's own tool node answers it from that archive. Summaries and markers name it
   only when the model call offers it (`recall=False` and no recall tool: they do not).
5. The provider's reported input tokens calibrate the thread's counter.
6. A thread's manager counts the call's tools and the structured output LangChain adds
   after the middleware ran (`response_format`): a `ToolStrategy`'s output tools as the
   tools they become, a `ProviderStrategy`'s schema as one more definition, and a bare
   schema (`AutoStrategy`, which picks one of the two per model) as its output tool. A
   call offering other tools than the thread's manager counts starts the thread again
   (`_threads` rule 6).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, cast

import contextfold as cf

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain.agents.structured_output import (
        AutoStrategy,
        OutputToolBinding,
        ProviderStrategy,
        ToolStrategy,
    )
    from langchain_core.messages import (
        AIMessage,
        AnyMessage,
        BaseMessage,
        SystemMessage,
        convert_to_messages,
        convert_to_openai_messages,
    )
    from langchain_core.tools import BaseTool, StructuredTool, ToolException
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.runtime import Runtime
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "contextfold.integrations.langchain needs LangChain and LangGraph: "
        "pip install 'contextfold[langchain]'"
    ) from exc

from ._factory import offers_recall
from ._threads import ThreadAccess, Threads, Wire

__all__ = ["ContextFoldMiddleware", "from_wire", "recall_tool", "to_wire"]


def to_wire(message: BaseMessage) -> list[Wire]:
    """One LangChain message as OpenAI chat dicts (langchain_core's own mapping); a message
    holding tool results (Anthropic tool_result blocks) gives them first, as they answer
    the calls just before it."""
    wires: list[Wire] = list(convert_to_openai_messages([message]))
    return sorted(wires, key=lambda wire: wire.get("role") != "tool")


def from_wire(wire: Wire) -> BaseMessage:
    """An OpenAI chat dict (a compaction artifact) as a LangChain message."""
    return convert_to_messages([wire])[0]


def recall_tool(archive: cf.Archive) -> BaseTool:
    """`contextfold_recall` as a LangChain tool answering from `archive`."""
    spec = cf.recall_tool("openai-chat")["function"]
    assert isinstance(spec, dict)

    def recall(ref: str, offset: int | None = None, limit: int | None = None) -> str:
        text, is_error = cf.answer_recall(archive, {"ref": ref, "offset": offset, "limit": limit})
        if is_error:
            raise ToolException(text)  # the tool node sends it back with status "error"
        return text

    return StructuredTool.from_function(
        recall,
        name=cf.RECALL_TOOL_NAME,
        description=str(spec["description"]),
        args_schema=spec["parameters"],
        handle_tool_error=True,
    )


def tool_specs(tools: Sequence[object]) -> list[Wire]:
    """OpenAI function definitions of `tools` (LangChain tools, plain functions, or dicts)
    for token accounting; a provider's built-in tools have none."""
    specs: list[Wire] = []
    for tool in tools:
        try:
            spec = convert_to_openai_tool(tool)  # type: ignore[arg-type]
        except (TypeError, ValueError):  # no function LangChain knows: nothing to count
            continue
        if spec.get("type") == "function":
            specs.append(spec)
    return specs


def output_specs(response_format: object) -> list[Wire]:
    """The structured output's definitions as LangChain sends them, for token accounting
    (rule 6); none without a structured output."""
    if response_format is None:
        return []
    if isinstance(response_format, ProviderStrategy):
        json_schema = response_format.to_model_kwargs()["response_format"]["json_schema"]
        function = {"name": json_schema["name"], "parameters": json_schema["schema"]}
        return [{"type": "function", "function": function}]
    if isinstance(response_format, AutoStrategy):
        response_format = ToolStrategy(response_format.schema)
    elif not isinstance(response_format, ToolStrategy):  # the bare schema
        response_format = ToolStrategy(cast(Any, response_format))
    specs = response_format.schema_specs
    return tool_specs([OutputToolBinding.from_schema_spec(spec).tool for spec in specs])


def thread_key(runtime: Runtime[Any] | None) -> Hashable:
    """The LangGraph thread a model call belongs to (None outside a checkpointed run)."""
    info = None if runtime is None else runtime.execution_info
    return None if info is None else info.thread_id


def split_view(
    pairs: list[tuple[Wire, BaseMessage | None]], system: BaseMessage | None
) -> tuple[SystemMessage | None, list[BaseMessage]]:
    """(system message, the other messages) of a view, originals where unchanged."""
    messages = [original or from_wire(wire) for wire, original in pairs]
    first = messages[0] if messages else None
    if system is not None and isinstance(first, SystemMessage):
        return first, messages[1:]
    return None, messages


def input_tokens(result: Sequence[BaseMessage]) -> int | None:
    """The prompt tokens the provider reported for a model response, if it did."""
    for message in result:
        usage = message.usage_metadata if isinstance(message, AIMessage) else None
        if usage is not None and usage.get("input_tokens", 0) > 0:
            return int(usage["input_tokens"])
    return None


class ContextFoldMiddleware(ThreadAccess, AgentMiddleware):
    """Compacts what each model call sees to `budget` tokens; registers the recall tool."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        recall: bool = True,
        calibrate: bool = True,
        max_threads: int = 1024,
    ) -> None:
        super().__init__()
        cf.ContextManager(budget, model, policy=policy, counter=counter)  # fail early
        self.budget = budget
        self.model = model
        self.policy = policy
        self.summarizer = summarizer
        self.counter = counter
        self._calibrate = calibrate
        self._threads: Threads[BaseMessage] = Threads(to_wire, archive=archive, limit=max_threads)
        self.tools = [recall_tool(self._threads.archive)] if recall else []

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        key = thread_key(request.runtime)
        tools = self._tools(request)
        pairs = self._threads.view(key, _items(request), self._maker(tools), tools)
        response = handler(_compacted(request, pairs))
        self._observe(key, response)
        return response

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        key = thread_key(request.runtime)
        tools = self._tools(request)
        pairs = await self._threads.aview(key, _items(request), self._maker(tools), tools)
        response = await handler(_compacted(request, pairs))
        self._observe(key, response)
        return response

    @staticmethod
    def _tools(request: ModelRequest[Any]) -> list[Wire]:
        """The tools the call sends, structured output included (rule 6)."""
        return [*tool_specs(request.tools), *output_specs(request.response_format)]

    def _maker(self, tools: list[Wire]) -> Callable[[cf.Archive], cf.ContextManager]:
        def make(archive: cf.Archive) -> cf.ContextManager:
            return cf.ContextManager(
                self.budget,
                self.model,
                tools=tools,
                archive=archive,
                policy=self.policy,
                summarizer=self.summarizer,
                counter=self.counter,
                recall_hints=offers_recall(tools),
            )

        return make

    def _observe(self, key: Hashable, response: ModelResponse[Any]) -> None:
        tokens = input_tokens(response.result) if self._calibrate else None
        manager = self._threads.manager(key)
        if tokens is not None and manager is not None:
            manager.observe_usage(tokens)


def _items(request: ModelRequest[Any]) -> list[BaseMessage]:
    system = request.system_message
    return [system, *request.messages] if system is not None else list(request.messages)


def _compacted(
    request: ModelRequest[Any], pairs: list[tuple[Wire, BaseMessage | None]]
) -> ModelRequest[Any]:
    system, messages = split_view(pairs, request.system_message)
    return request.override(system_message=system, messages=cast("list[AnyMessage]", messages))
