"""The OpenAI Agents SDK filter counts an MCP server's tools without listing them again.

The SDK lists every MCP server's tools itself before each model call (once per run when
the server caches its list, `cache_tools_list=True`). The filter reads the listing the SDK
just made rather than asking the server a second time: an MCP server here is a real MCP
server (the `mcp` package's, over streamable HTTP on 127.0.0.1) that counts the listings
it answers, reached through the SDK's own `MCPServerStreamableHttp`.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn serves the local MCP server")
pytest.importorskip("mcp.server.mcpserver", reason="the local MCP server is mcp 2's")

from agents import Agent, Runner, set_tracing_disabled  # noqa: E402
from agents.mcp import MCPServerStreamableHttp, create_static_tool_filter  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import Tool as MCPTool  # noqa: E402

from contextfold.integrations.openai_agents import ContextFoldFilter  # noqa: E402

from .test_openai_agents_tools import FINAL, SYSTEM, TASK, ResponsesModel, read_file  # noqa: E402

WINDOW = 6_000
TURNS = 8


class CountingServer(MCPServer):
    """An MCP server offering wide tracker tools that counts the listings it answers."""

    def __init__(self) -> None:
        super().__init__("tracker")
        self.listings = 0
        about = "A field of the ticket; see the tracker's documentation for its allowed values."
        for i in range(6):

            def update(**fields: str) -> str:
                return "updated"

            self.add_tool(update, name=f"tracker_{i}", description=f"Update tracker {i}. {about}")

    async def list_tools(self) -> list[MCPTool]:
        self.listings += 1
        return await super().list_tools()


@contextmanager
def serving(server: CountingServer) -> Iterator[str]:
    """`server` over streamable HTTP on 127.0.0.1; yields its URL."""
    logging.getLogger("mcp").setLevel(logging.WARNING)
    app = server.streamable_http_app(stateless_http=True, json_response=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=http.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not http.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        http.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(autouse=True)
def _no_tracing() -> None:
    set_tracing_disabled(True)


def run(url: str, fold: ContextFoldFilter, model: ResponsesModel, **mcp: Any) -> Any:
    strict = mcp.pop("strict", False)

    async def main() -> Any:
        async with MCPServerStreamableHttp({"url": url}, **mcp) as server:
            agent: Agent[Any] = Agent(
                name="reviewer", instructions=SYSTEM, model=model, tools=[read_file],
                mcp_servers=[server], mcp_config={"convert_schemas_to_strict": strict},
            )  # fmt: skip
            return await Runner.run(agent, TASK, run_config=fold.run_config(), max_turns=40)

    return asyncio.run(main())


@pytest.mark.parametrize(
    ("mcp", "listings"),
    [
        ({"cache_tools_list": True}, lambda calls: 1),
        ({"cache_tools_list": False}, lambda calls: calls),
        ({"cache_tools_list": False, "strict": True}, lambda calls: calls),
        # a filtered listing is the SDK's to make: listed again, counted alike
        (
            {"tool_filter": create_static_tool_filter(blocked_tool_names=["tracker_4"])},
            lambda calls: 2 * calls,
        ),
    ],
    ids=["cached-list", "listed-every-call", "strict-schemas", "tool-filter"],
)
def test_the_filter_lists_no_mcp_tools_of_its_own(mcp: dict[str, Any], listings: Any) -> None:
    server = CountingServer()
    model = ResponsesModel(WINDOW, turns=TURNS)
    fold = ContextFoldFilter(WINDOW, "gpt-4o")
    with serving(server) as url:
        result = run(url, fold, model, **mcp)
    assert result.final_output == FINAL
    calls = len(model.tokens)
    assert calls == TURNS + 1
    # Before, the filter listed them again for every call: 18 listings for 9 calls uncached.
    assert server.listings == listings(calls)
    assert {"tracker_0", "tracker_5", "read_file"} <= set(model.tool_names)
    assert ("tracker_4" in model.tool_names) == ("tool_filter" not in mcp)
    assert fold.manager is not None
    assert model.tokens[-1] == fold.manager.tokens()  # counted exactly what went out
    assert fold.restarts == 0
