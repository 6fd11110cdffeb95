"""The OpenAI Agents SDK filter counts every tool the SDK sends, and restarts on any edit.

The Runner's own loop runs against `ResponsesModel`, a local model as strict as the
Responses API: it serializes the tools with the SDK's own converter (what
`OpenAIResponsesModel` sends), counts instructions, input and tools with
`cf.count_tokens`, and refuses a request over its window. The agent's tools come from a
local MCP server (large schemas), hosted tools (file search over many vector stores,
hosted MCP, web search, code interpreter) and one function tool.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import contextfold as cf

from ..servers.chat_model import source_file

agents = pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from agents import (  # noqa: E402
    Agent,
    CodeInterpreterTool,
    FileSearchTool,
    HostedMCPTool,
    ModelResponse,
    Runner,
    Usage,
    WebSearchTool,
    function_tool,
    set_tracing_disabled,
)
from agents.mcp import MCPServer  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.models.openai_responses import Converter  # noqa: E402
from agents.run_config import CallModelData, ModelInputData  # noqa: E402
from mcp.types import CallToolResult, ListPromptsResult, TextContent  # noqa: E402
from mcp.types import Tool as MCPTool  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from typing_extensions import override  # noqa: E402

from contextfold.integrations.openai_agents import ContextFoldFilter  # noqa: E402

SYSTEM = "You are a careful coding agent. Use the tools to read files."
TASK = "Review every module. Never push to main."
WINDOW = 6_000
FINAL = "All modules reviewed."


class Refused(Exception):
    """The provider's context_length_exceeded."""


class ResponsesModel(Model):
    """Reads one file per turn for `turns` turns, then answers; refuses over `window`."""

    def __init__(self, window: int, turns: int) -> None:
        self.window = window
        self.turns = turns
        self.tokens: list[int] = []
        self.tool_names: list[str] = []

    @override
    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        **_: Any,
    ) -> ModelResponse:
        sent = [dict(t) for t in Converter.convert_tools(tools, handoffs).tools]
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        system = [{"role": "system", "content": system_instructions}]
        request = {"model": "gpt-4o", "input": [*system, *items], "tools": sent}
        tokens = cf.count_tokens(request, "gpt-4o", format="openai-responses")
        if tokens > self.window:
            raise Refused(f"{tokens} tokens > the {self.window}-token window")
        self.tokens.append(tokens)
        self.tool_names = [str(t.get("name", t["type"])) for t in sent]
        turn = len(self.tokens)
        usage = Usage(requests=1, input_tokens=tokens, output_tokens=1, total_tokens=tokens + 1)
        return ModelResponse(output=[_reply(turn, self.turns)], usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the test runs unstreamed")


def _reply(turn: int, turns: int) -> Any:
    if turn > turns:
        text = ResponseOutputText(type="output_text", text=FINAL, annotations=[])
        return ResponseOutputMessage(
            id=f"m{turn}", type="message", role="assistant", status="completed", content=[text]
        )
    arguments = json.dumps({"path": f"src/module_{turn:03d}.py"})
    return ResponseFunctionToolCall(
        id=f"fc{turn}", call_id=f"c{turn}", type="function_call", name="read_file",
        arguments=arguments,
    )  # fmt: skip


class LocalMCP(MCPServer):
    """An MCP server in this process offering `tools` (each answers one line)."""

    def __init__(self, tools: list[MCPTool]) -> None:
        super().__init__()
        self._tools = tools

    async def connect(self) -> None:
        return None

    @property
    def name(self) -> str:
        return "local-mcp"

    async def cleanup(self) -> None:
        return None

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[MCPTool]:
        return self._tools

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=f"{tool_name}: done")])

    async def list_prompts(self) -> ListPromptsResult:
        return ListPromptsResult(prompts=[])

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError(name)


def mcp_tools(count: int) -> list[MCPTool]:
    """Tools with wide schemas: about 150 tokens each."""
    about = "A field of the ticket; see the tracker's documentation for its allowed values."
    properties = {f"field_{k}": {"type": "string", "description": about} for k in range(8)}
    schema = {"type": "object", "properties": properties, "required": []}
    return [
        MCPTool.model_validate(
            {"name": f"tracker_{i}", "description": f"Update tracker {i}.", "inputSchema": schema}
        )
        for i in range(count)
    ]


def hosted_tools() -> list[Any]:
    stores = [f"vs_{i:04d}0123456789abcdef" for i in range(60)]
    config: Any = {
        "type": "mcp",
        "server_label": "docs",
        "server_url": "https://docs.example.invalid/mcp",
        "allowed_tools": [f"search_section_{i}" for i in range(40)],
        "require_approval": "never",
    }
    interpreter: Any = {"type": "code_interpreter", "container": {"type": "auto"}}
    return [
        FileSearchTool(vector_store_ids=stores, max_num_results=5),
        HostedMCPTool(tool_config=config),
        WebSearchTool(search_context_size="high"),
        CodeInterpreterTool(tool_config=interpreter),
    ]


@function_tool
def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, 30)


@pytest.fixture(autouse=True)
def _no_tracing() -> None:
    set_tracing_disabled(True)


def test_mcp_and_hosted_tools_are_counted_so_no_request_outgrows_the_window() -> None:
    model = ResponsesModel(WINDOW, turns=25)
    fold = ContextFoldFilter(WINDOW, "gpt-4o")
    agent: Agent[Any] = Agent(
        name="reviewer",
        instructions=SYSTEM,
        model=model,
        tools=[read_file, *hosted_tools()],
        mcp_servers=[LocalMCP(mcp_tools(10))],
    )
    # Before the MCP and hosted tools were counted, turn 13 was refused (6,122 tokens).
    result = asyncio.run(Runner.run(agent, TASK, run_config=fold.run_config(), max_turns=60))
    assert result.final_output == FINAL
    assert len(model.tokens) == 26
    assert max(model.tokens) <= WINDOW
    assert {"tracker_0", "file_search", "mcp", "web_search", "read_file"} <= set(model.tool_names)
    assert fold.manager is not None
    assert model.tokens[-1] == fold.manager.tokens()  # counted exactly what went out
    assert fold.report is not None
    assert fold.report.compacted
    assert fold.restarts == 0


def test_a_history_edited_in_the_middle_starts_again() -> None:
    fold = ContextFoldFilter(50_000, "gpt-4o")
    agent: Agent[Any] = Agent(name="a", instructions=SYSTEM, tools=[read_file])

    def call(items: list[Any]) -> ModelInputData:
        data = CallModelData(ModelInputData(input=items, instructions=SYSTEM), agent, None)
        return asyncio.run(fold(data))

    items: list[Any] = [{"role": "user", "content": TASK}]
    for i in range(4):
        items += [
            {"type": "function_call", "call_id": f"c{i}", "name": "read_file", "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"c{i}", "output": f"file {i}"},
        ]
    call(list(items))
    restarts = fold.restarts
    edited = [dict(item) for item in items]  # copies, as a session read back gives them
    assert call(edited).input == items  # equal copies continue
    assert fold.restarts == restarts
    edited[4] = {**edited[4], "output": "file 1, redacted"}  # first and last unchanged
    sent = call([*edited, {"role": "user", "content": "Go on."}])
    assert fold.restarts == restarts + 1  # the edit is seen: the manager starts again
    fourth: Any = sent.input[4]
    assert fourth["output"] == "file 1, redacted"
    fewer = [*edited[:3], *edited[5:]]  # an exchange taken out
    assert call(fewer).input == fewer
    assert fold.restarts == restarts + 2
