"""contextfold for the OpenAI Agents SDK: a model-input filter, a session and the recall tool.

Rules:
1. `ContextFoldFilter` is a `RunConfig.call_model_input_filter`: before every model call it
   hands the SDK's input items (OpenAI Responses items) to one `cf.ContextManager` and
   sends the manager's view instead. The SDK's own history is never changed: the filter
   only decides what goes out, so a run's result and a session keep every item.
2. A call costs O(new items): the filter keeps the items it has fed, and when the next
   input starts with all of them (the same objects, or equal copies; one list comparison,
   see `_threads` rule 2) only the new items are added. Any other input (another
   conversation, a history edited anywhere, other instructions or tools) starts the
   manager again from the whole input; the archive is kept, so references shown earlier
   still recall.
3. The agent's instructions are the system prompt: the manager counts them with every tool
   the SDK sends, serialized by the SDK's own Responses converter: the agent's function
   tools, its MCP servers' tools (as the SDK listed them for the call, rule 7), its hosted
   tools (web and file search, hosted MCP, code interpreter, ...: their configuration as
   sent; what the provider adds for them on its side cannot be seen here, and the
   calibration hooks learn it), the tools its handoffs become and its structured output's
   schema (`output_type`, counted as one more tool definition). It keeps the user's
   rules right after them, but they still go out as `instructions`, as the SDK sent them.
4. `ContextFoldSession` keeps one filter per session next to the session's items (in
   memory, or in any `Session` it wraps): `Runner.run(..., session=s,
   run_config=s.run_config())`. Its items are the whole history; only requests shrink.
5. The recall tool is a `FunctionTool` answering from the filter's archive; a bad call
   gets an error text the model can act on, never an exception. Summaries and markers
   name it only when the agent offers it.
6. `hooks()` calibrates: the input tokens the provider reports for each call teach the
   manager how its counts compare (what the SDK adds in converting the items included).
7. The filter asks no MCP server for its tools itself where the SDK's listing can be read:
   the SDK lists them before every model call (once per run with `cache_tools_list=True`),
   and a server of the SDK's keeps its latest listing (`cached_tools`), which the filter
   converts as the SDK does. A server with a `tool_filter`, names prefixed with the
   server's (`include_server_in_tool_names`) or a server of your own is listed through
   the SDK again, and answers from its own cache when it keeps one.
"""

from __future__ import annotations

import threading
from typing import Any

import contextfold as cf

from ._factory import manager_factory, offers_recall
from ._locks import holding

try:
    from agents import (
        Agent,
        AgentOutputSchema,
        AgentOutputSchemaBase,
        FunctionTool,
        Handoff,
        ModelResponse,
        RunConfig,
        RunContextWrapper,
        RunHooks,
        Tool,
        TResponseInputItem,
        handoff,
    )
    from agents.exceptions import UserError
    from agents.mcp import MCPServer, MCPUtil
    from agents.memory import Session, SessionSettings
    from agents.models.openai_responses import Converter
    from agents.run_config import CallModelData, ModelInputData
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "contextfold.integrations.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'contextfold[openai-agents]'"
    ) from exc

__all__ = ["ContextFoldFilter", "ContextFoldSession", "recall_tool"]

_FORMAT = "openai-responses"


def recall_tool(archive: cf.Archive) -> FunctionTool:
    """The recall tool as an Agents SDK `FunctionTool` answering from `archive`."""
    spec = cf.recall_tool(_FORMAT)

    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        text, _is_error = cf.answer_recall(archive, arguments)
        return text

    parameters = spec["parameters"]
    assert isinstance(parameters, dict)
    return FunctionTool(
        name=cf.RECALL_TOOL_NAME,
        description=str(spec["description"]),
        params_json_schema=parameters,
        on_invoke_tool=invoke,
        strict_json_schema=True,
    )


async def _tool_specs(agent: Agent[Any], context: Any) -> list[dict[str, object]]:
    """Every tool the SDK sends with the agent's request, as its Responses converter
    serializes it (rule 3): MCP tools first, then the agent's tools, then its handoffs."""
    tools: list[Tool] = [t for t in agent.tools if _enabled(t)]
    if agent.mcp_servers:
        mcp = _listed_mcp_tools(agent)
        if mcp is None:
            mcp = await agent.get_mcp_tools(RunContextWrapper(context))
        tools = [*mcp, *tools]
    handoffs = [item if isinstance(item, Handoff) else handoff(item) for item in agent.handoffs]
    try:
        converted = Converter.convert_tools(tools, handoffs).tools
    except UserError:  # a configuration the SDK rejects as a whole: count each tool alone
        converted = [spec for tool in tools for spec in _one_tool(tool)]
        converted += Converter.convert_tools([], handoffs).tools
    return [*(dict(spec) for spec in converted), *_output_schema(agent)]


def _output_schema(agent: Agent[Any]) -> list[dict[str, object]]:
    """The agent's structured output schema as the tool definition it is counted as."""
    output = agent.output_type
    if output is None or output is str:
        return []
    try:
        schema = output if isinstance(output, AgentOutputSchemaBase) else AgentOutputSchema(output)
        if schema.is_plain_text():
            return []
        parameters = schema.json_schema()
    except UserError:  # an output type the SDK rejects: the run fails on its own
        return []
    return [
        {"type": "function", "name": "final_output", "description": "", "parameters": parameters}
    ]


def _listed_mcp_tools(agent: Agent[Any]) -> list[Tool] | None:
    """The agent's MCP tools from the listings the SDK made for this call, converted as
    the SDK converts them; None when one cannot be read so (rule 7)."""
    if agent.mcp_config.get("include_server_in_tool_names"):
        return None
    strict = bool(agent.mcp_config.get("convert_schemas_to_strict", False))
    tools: list[Tool] = []
    for server in agent.mcp_servers:
        listed = _listing(server)
        if listed is None:
            return None
        tools += [MCPUtil.to_function_tool(tool, server, strict, agent) for tool in listed]
    return tools


def _listing(server: MCPServer) -> list[Any] | None:
    """The server's latest listing as the SDK keeps it, when no filter applies to it."""
    if getattr(server, "tool_filter", None) is not None:
        return None
    listed = getattr(server, "cached_tools", None)
    return listed if isinstance(listed, list) else None


def _enabled(tool: Tool) -> bool:
    """False only for a function tool switched off outright (a callable switch may turn it
    on for this call, so it is counted: the count errs high)."""
    return not isinstance(tool, FunctionTool) or tool.is_enabled is not False


def _one_tool(tool: Tool) -> list[Any]:
    try:
        return list(Converter.convert_tools([tool], []).tools)
    except UserError:  # not sendable alone either: its name, at least, goes out
        return [{"type": "function", "name": tool.name, "description": "", "parameters": {}}]


class ContextFoldFilter:
    """A `call_model_input_filter` that keeps every model call within `budget` tokens."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        **options: object,
    ) -> None:
        self.budget = budget
        self.model = model
        self.archive = archive if archive is not None else cf.Archive()
        self._make = manager_factory(
            budget,
            model,
            format=_FORMAT,
            archive=self.archive,
            policy=policy,
            summarizer=summarizer,
            counter=counter,
            options=options,
        )
        self.manager: cf.ContextManager | None = None
        """The manager behind the latest call (None before the first)."""
        self.restarts = 0
        """Times an input did not extend the previous one and the manager started again."""
        self._key: tuple[str | None, list[dict[str, object]]] | None = None
        self._fed: list[object] = []
        """Every input item fed to the manager, in order (rule 2)."""
        self._lock = threading.Lock()
        self._new(None, [])  # bad settings fail here, not at the first model call
        self.manager = None

    @property
    def report(self) -> cf.Report | None:
        """The report of the latest compaction (None until one ran)."""
        return None if self.manager is None else self.manager.last_report

    def recall_tool(self) -> FunctionTool:
        """The recall tool answering from this filter's archive; add it to the agent's tools."""
        return recall_tool(self.archive)

    def run_config(self, **options: Any) -> RunConfig:
        """A `RunConfig` with this filter (and any other RunConfig options)."""
        return RunConfig(call_model_input_filter=self, **options)

    def hooks(self) -> RunHooks[Any]:
        """Run hooks that calibrate the counts with the provider's reported input tokens
        (rule 6): `Runner.run(..., run_config=fold.run_config(), hooks=fold.hooks())`."""
        return _Calibration(self)

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """Compact the input of one model call (rules 1-3)."""
        instructions = data.model_data.instructions
        items = data.model_data.input
        tools = await _tool_specs(data.agent, data.context)
        async with holding(self._lock):
            manager = self._manager_for(instructions, tools, items)
            manager.extend(items[len(self._fed) :])
            self._fed.extend(items[len(self._fed) :])
            view = await manager.aview()
        start = 1 if instructions is not None and view else 0
        sent: list[TResponseInputItem] = list(view[start:])
        return ModelInputData(input=sent, instructions=instructions)

    def _manager_for(
        self, instructions: str | None, tools: list[dict[str, object]], items: list[Any]
    ) -> cf.ContextManager:
        key = (instructions, tools)
        fed = self._fed
        extends = (
            self.manager is not None
            and key == self._key
            and len(items) >= len(fed)
            and items[: len(fed)] == fed
        )
        if not extends:
            self.restarts += self._key is not None
            self._key = key
            self._fed = []
            self._new(instructions, tools)
        assert self.manager is not None
        return self.manager

    def _new(self, instructions: str | None, tools: list[dict[str, object]]) -> None:
        hints = offers_recall(tools)  # markers name the recall tool only when it is offered
        self.manager = self._make(system=instructions, tools=tools, recall_hints=hints)


class _Calibration(RunHooks[Any]):
    """Feeds each response's input tokens to the manager whose view was just sent."""

    def __init__(self, fold: ContextFoldFilter) -> None:
        self._fold = fold

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        manager = self._fold.manager
        if manager is not None and response.usage.input_tokens > 0:
            manager.observe_usage(response.usage.input_tokens)


class ContextFoldSession:
    """An Agents SDK `Session` whose runs send compacted requests (rule 4)."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        budget: int,
        model: str | None = None,
        *,
        inner: Session | None = None,
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        **options: object,
    ) -> None:
        self.session_id = session_id
        self.inner = inner
        self.filter = ContextFoldFilter(
            budget,
            model,
            policy=policy,
            summarizer=summarizer,
            counter=counter,
            archive=archive,
            **options,
        )
        self._items: list[TResponseInputItem] = []

    @property
    def archive(self) -> cf.Archive:
        """Where everything compaction folded away is kept."""
        return self.filter.archive

    @property
    def report(self) -> cf.Report | None:
        """The report of the latest compaction (None until one ran)."""
        return self.filter.report

    def recall_tool(self) -> FunctionTool:
        """The recall tool answering from this session's archive."""
        return self.filter.recall_tool()

    def run_config(self, **options: Any) -> RunConfig:
        """A `RunConfig` whose model-input filter is this session's."""
        return self.filter.run_config(**options)

    def hooks(self) -> RunHooks[Any]:
        """Run hooks calibrating this session's counts (see `ContextFoldFilter.hooks`)."""
        return self.filter.hooks()

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The whole history (the latest `limit` items when given)."""
        if self.inner is not None:
            return await self.inner.get_items(limit)
        return list(self._items if limit is None else self._items[-limit:] if limit else [])

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append items to the history."""
        if self.inner is not None:
            await self.inner.add_items(items)
        else:
            self._items.extend(items)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the newest item (the next call starts the manager again)."""
        if self.inner is not None:
            return await self.inner.pop_item()
        return self._items.pop() if self._items else None

    async def clear_session(self) -> None:
        """Forget the history (the archive keeps what was folded)."""
        if self.inner is not None:
            await self.inner.clear_session()
        self._items.clear()
