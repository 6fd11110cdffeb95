"""The OpenAI Agents SDK integration: the SDK's own `Runner` loop against the strict local
model server stays inside its window for 150 tool turns, keeps the system prompt and the
user's rules in every request, and recalls a folded result through a `FunctionTool`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf

from ..servers.chat_model import (
    FINAL,
    AgentScript,
    ChatModelServer,
    Log,
    Reply,
    rules_everywhere,
    source_file,
)

agents = pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from agents import (  # noqa: E402
    Agent,
    FunctionTool,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.memory import Session  # noqa: E402
from agents.run_config import CallModelData, ModelInputData  # noqa: E402
from openai import AsyncOpenAI, BadRequestError  # noqa: E402

from contextfold.integrations.openai_agents import (  # noqa: E402
    ContextFoldFilter,
    ContextFoldSession,
    recall_tool,
)

SYSTEM = "You are a careful coding agent. Use the tools to read files."
RULES = "Never push to main. The deadline is 2027-03-14."
TASK = f"Review every module. {RULES}"
WINDOW = 8_192
FILE_LINES = 75
"""Lines per file read: about 2,500 tokens (o200k), a third of the window."""
T = TypeVar("T")


@pytest.fixture(autouse=True)
def _no_tracing() -> None:
    set_tracing_disabled(True)  # nothing may leave the machine


@function_tool
def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, FILE_LINES)


def run(server: ChatModelServer, tools: list[Any], go: Callable[[Agent[Any]], Awaitable[T]]) -> T:
    """Run `go(agent)` with an agent whose model is the local server (its client closed after)."""

    async def main() -> T:
        async with AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
            model = OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)
            return await go(Agent(name="reviewer", instructions=SYSTEM, tools=tools, model=model))

    return asyncio.run(main())


def recalled_pages(log: Log, ref: str) -> list[str]:
    return [
        m["content"]
        for body in log.accepted
        for m in body["messages"]
        if m.get("role") == "tool" and m["content"].startswith(f"[cf:{ref} recalled")
    ]


def test_a_150_turn_runner_loop_is_never_refused() -> None:
    script = AgentScript(turns=150)
    fold = ContextFoldFilter(WINDOW, "gpt-4o")
    with ChatModelServer(script, window=WINDOW) as server:
        result = run(
            server,
            [read_file, fold.recall_tool()],
            lambda agent: Runner.run(
                agent, TASK, run_config=fold.run_config(), hooks=fold.hooks(), max_turns=200
            ),
        )
    assert result.final_output == FINAL
    log = server.log
    assert log.refusals == []
    assert len(log.accepted) == 152  # 150 reads, one recall, the final answer
    assert max(log.tokens) <= WINDOW
    system = {"role": "system", "content": SYSTEM}
    assert all(body["messages"][0] == system for body in log.accepted)
    assert rules_everywhere(log, "Never push to main", "2027-03-14")
    (ref,) = script.recalled
    assert recalled_pages(log, ref), "the recalled page never reached the model"
    assert fold.restarts == 0  # every call only added the new items
    assert fold.report is not None
    assert fold.report.compacted
    assert re.search(r"1.000x\+0 from \d+ requests", fold.report.counter)  # calibrated, exact
    # The SDK's own history is untouched: every file read is in the result verbatim.
    items: list[Any] = result.to_input_list()
    outputs = [i for i in items if i.get("type") == "function_call_output"]
    assert len(outputs) == 151
    assert outputs[0]["output"] == source_file("src/module_001.py", FILE_LINES)


def test_the_handoff_tools_the_sdk_sends_are_budgeted_for() -> None:
    about = "Knows one area of the code base in depth and reviews changes to it. " * 25
    experts = [Agent(name=f"expert_{i}", handoff_description=about) for i in range(4)]
    window = 4_000
    fold = ContextFoldFilter(window, "gpt-4o")

    async def go(agent: Agent[Any]) -> object:
        triage = agent.clone(handoffs=list(experts))
        result = await Runner.run(triage, TASK, run_config=fold.run_config(), max_turns=50)
        return result.final_output

    with ChatModelServer(AgentScript(turns=10), window=window) as server:
        assert run(server, [read_file], go) == FINAL
    assert server.log.refusals == []
    assert max(server.log.tokens) <= window


def test_without_the_filter_the_same_loop_is_refused() -> None:
    script = AgentScript(turns=10)
    with ChatModelServer(script, window=WINDOW) as server, pytest.raises(BadRequestError):
        run(server, [read_file], lambda agent: Runner.run(agent, TASK, max_turns=50))
    assert server.log.refusals[0].code == "context_length_exceeded"


def call_data(agent: Agent[Any], items: list[Any]) -> CallModelData[Any]:
    return CallModelData(ModelInputData(input=items, instructions=SYSTEM), agent, None)


def turn(i: int, size: int = 180) -> list[Any]:
    call = {"type": "function_call", "call_id": f"c{i}", "name": "read_file", "arguments": "{}"}
    output = {
        "type": "function_call_output",
        "call_id": f"c{i}",
        "output": source_file(str(i), size),
    }
    return [call, output]


def test_each_call_adds_only_the_new_items_and_another_history_restarts() -> None:
    fold = ContextFoldFilter(3_000, "gpt-4o")
    agent: Agent[Any] = Agent(name="a", instructions=SYSTEM, tools=[read_file])
    items: list[Any] = [{"role": "user", "content": TASK}]
    for i in range(12):
        items += turn(i, 60)
        sent = asyncio.run(fold(call_data(agent, list(items))))
        assert sent.instructions == SYSTEM
        assert cf.validate(sent.input, format="openai-responses") == []
        assert sent.input[0] == items[0]  # the rules stay (the latest user message)
    assert fold.restarts == 0
    assert fold.manager is not None
    assert fold.manager.tokens() <= 3_000
    assert fold.report is not None
    assert fold.report.compacted
    other = [{"role": "user", "content": "Another conversation."}, *turn(99, 10)]
    sent = asyncio.run(fold(call_data(agent, other)))
    assert fold.restarts == 1
    assert sent.input == other
    review = "You review tests."
    handoff: Agent[Any] = Agent(name="b", instructions=review, tools=[read_file])
    data = CallModelData(ModelInputData(input=other, instructions=review), handoff, None)
    assert asyncio.run(fold(data)).input == other  # other instructions: started again
    assert fold.restarts == 2


steps = st.lists(
    st.tuples(st.integers(0, 3), st.integers(1, 120), st.booleans()), min_size=1, max_size=30
)


@settings(max_examples=25, deadline=None)
@given(steps)
def test_every_call_is_valid_within_budget_and_keeps_the_instructions(
    plan: list[tuple[int, int, bool]],
) -> None:
    budget = 2_500
    fold = ContextFoldFilter(budget, "gpt-4o")
    agent: Agent[Any] = Agent(name="a", instructions=SYSTEM, tools=[read_file])
    tool = {"type": "function", "name": read_file.name, "parameters": read_file.params_json_schema}
    tools = [{**tool, "description": read_file.description}]
    items: list[Any] = [{"role": "user", "content": TASK}]
    for step, (calls, lines, user) in enumerate(plan):
        for i in range(calls):
            call_id = f"c{step}_{i}"
            items.append({"type": "function_call", "call_id": call_id, "name": "read_file",
                          "arguments": "{}"})  # fmt: skip
        for i in range(calls):
            output = source_file(f"{step}_{i}", lines)
            items.append({"type": "function_call_output", "call_id": f"c{step}_{i}",
                          "output": output})  # fmt: skip
        if not calls:
            items.append({"role": "assistant", "content": "ok " * lines})
        if user:
            items.append({"role": "user", "content": f"next {step}"})
        sent = asyncio.run(fold(call_data(agent, list(items))))
        assert sent.instructions == SYSTEM
        assert cf.validate(sent.input, format="openai-responses") == []
        request = {"input": [{"role": "system", "content": SYSTEM}, *sent.input], "tools": tools}
        tokens = cf.count_tokens(request, "gpt-4o", format="openai-responses")
        assert fold.manager is not None
        assert tokens == fold.manager.tokens()  # what is sent is exactly what the manager counted
        report = fold.report
        assert tokens <= budget or (report is not None and not report.fits)  # never silent
    assert fold.restarts == 0


def test_calls_from_threads_with_their_own_event_loops_neither_hang_nor_fail() -> None:
    """`Runner.run_sync` in worker threads: each thread runs its own event loop."""
    import threading

    fold = ContextFoldFilter(3_000, "gpt-4o")
    agent: Agent[Any] = Agent(name="a", instructions=SYSTEM, tools=[read_file])
    failed: list[BaseException] = []
    finished: list[str] = []

    def conversation(name: str) -> None:
        items: list[Any] = [{"role": "user", "content": f"Conversation {name}. {TASK}"}]
        try:
            for i in range(20):
                items += turn(i, 20)
                sent = asyncio.run(fold(call_data(agent, list(items))))
                assert cf.validate(sent.input, format="openai-responses") == []
        except BaseException as exc:
            failed.append(exc)
        else:
            finished.append(name)

    workers = [threading.Thread(target=conversation, args=(n,), daemon=True) for n in "AB"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert failed == []
    assert sorted(finished) == ["A", "B"]


def test_the_recall_tool_answers_and_explains_bad_calls() -> None:
    archive = cf.Archive()
    ref = archive.put("the whole original output")
    tool = recall_tool(archive)
    assert isinstance(tool, FunctionTool)
    assert tool.name == cf.RECALL_TOOL_NAME
    assert tool.params_json_schema["required"] == ["ref", "offset", "limit"]
    good = json.dumps({"ref": ref, "offset": None, "limit": None})
    assert asyncio.run(tool.on_invoke_tool(None, good)) == "the whole original output"  # type: ignore[arg-type]
    bad: str = asyncio.run(tool.on_invoke_tool(None, '{"ref": 12}'))  # type: ignore[arg-type]
    assert "must be a string" in bad


def test_bad_settings_fail_when_the_filter_is_made() -> None:
    with pytest.raises(cf.ConfigurationError):
        ContextFoldFilter(0)
    with pytest.raises(cf.ContextFoldError):
        ContextFoldSession("s", 8_000, "gpt-4o", high=2.0)


def test_a_session_keeps_the_whole_history_and_sends_it_compacted() -> None:
    session = ContextFoldSession("user-42", WINDOW, "gpt-4o")
    assert isinstance(session, Session)
    script = AgentScript(turns=30)
    with ChatModelServer(script, window=WINDOW) as server:
        config = session.run_config(tracing_disabled=True)

        async def two_runs(agent: Agent[Any]) -> tuple[object, object]:
            first = await Runner.run(agent, TASK, session=session, run_config=config, max_turns=60)
            script.turns, script.recalled = 35, ["done"]  # five more reads, no more recalls
            second = await Runner.run(
                agent, "Read five more.", session=session, run_config=config, max_turns=60
            )
            return first.final_output, second.final_output

        assert run(server, [read_file, session.recall_tool()], two_runs) == (FINAL, FINAL)
    assert server.log.refusals == []
    assert rules_everywhere(server.log, "Never push to main", "2027-03-14")
    items = asyncio.run(session.get_items())
    assert sum(i.get("type") == "function_call_output" for i in items) == 36
    assert session.filter.restarts == 0
    assert session.report is not None
    assert session.report.compacted
    popped = asyncio.run(session.pop_item())
    assert popped == items[-1]
    assert asyncio.run(session.get_items(2)) == items[-3:-1]
    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []


def test_a_streamed_run_goes_through_the_filter_too() -> None:
    script = AgentScript(turns=12)
    fold = ContextFoldFilter(4_096, "gpt-4o")
    with ChatModelServer(script, window=4_096) as server:

        async def streamed(agent: Agent[Any]) -> object:
            result = Runner.run_streamed(agent, TASK, run_config=fold.run_config(), max_turns=50)
            async for _ in result.stream_events():
                pass
            return result.final_output

        assert run(server, [read_file, fold.recall_tool()], streamed) == FINAL
    assert server.log.refusals == []
    assert all(body.get("stream") for body in server.log.accepted)


def test_the_filter_is_a_run_config_filter() -> None:
    fold = ContextFoldFilter(8_000)
    config = fold.run_config(workflow_name="review")
    assert isinstance(config, RunConfig)
    assert config.call_model_input_filter is fold
    assert config.workflow_name == "review"
    assert Reply(text="x").text == "x"


def test_the_example_runs_against_an_openai_compatible_base_url(tmp_path: Path) -> None:
    script = AgentScript(turns=6)
    for i in range(1, 7):
        path = tmp_path / "src" / f"module_{i:03d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(source_file(f"src/module_{i:03d}.py", FILE_LINES), encoding="utf-8")
    example = Path(__file__).parents[2] / "examples" / "openai_agents_agent.py"
    with ChatModelServer(script, window=WINDOW) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test-key"}
        done = subprocess.run(
            [sys.executable, str(example), TASK, "--budget", str(WINDOW), "--model", "gpt-4o"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == FINAL
    assert "contextfold:" in done.stderr  # the report of its compactions
    assert server.log.refusals == []
    tool_results = [
        m for body in server.log.accepted for m in body["messages"] if m["role"] == "tool"
    ]
    assert any("line 0 of src/module_006.py" in str(m["content"]) for m in tool_results)


def test_a_session_can_keep_its_items_in_another_session(tmp_path: Path) -> None:
    from agents import SQLiteSession

    inner = SQLiteSession("user-7", tmp_path / "sessions.db")
    session = ContextFoldSession("user-7", WINDOW, "gpt-4o", inner=inner)
    script = AgentScript(turns=6)
    with ChatModelServer(script, window=WINDOW) as server:
        config = session.run_config()
        final = run(
            server,
            [read_file, session.recall_tool()],
            lambda agent: Runner.run(agent, TASK, session=session, run_config=config),
        )
    assert final.final_output == FINAL
    assert server.log.refusals == []
    stored = asyncio.run(inner.get_items())
    assert asyncio.run(session.get_items()) == stored
    assert sum(i.get("type") == "function_call_output" for i in stored) == 7  # 6 reads, 1 recall
    assert asyncio.run(session.pop_item()) == stored[-1]
    assert len(asyncio.run(inner.get_items())) == len(stored) - 1
    asyncio.run(session.clear_session())
    assert asyncio.run(inner.get_items()) == []
    inner.close()
