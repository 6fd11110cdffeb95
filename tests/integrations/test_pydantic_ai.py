"""The pydantic-ai integration: pydantic-ai's own agent loop against the strict local model
server stays inside its window for 150 tool turns, keeps the system prompt and the user's
rules in every request, and recalls a folded result through a pydantic-ai `Tool`."""

from __future__ import annotations

import asyncio
import os
import struct
import subprocess
import sys
import zlib
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
    Body,
    ChatModelServer,
    Log,
    Reply,
    rules_everywhere,
    source_file,
)

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

from pydantic_ai import Agent, BinaryContent, ModelHTTPError, TextContent
from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from contextfold.integrations.pydantic_ai import ContextFoldProcessor, recall_tool

SYSTEM = "You are a careful coding agent. Use the tools to read files."
RULES = "Never push to main. The deadline is 2027-03-14."
TASK = f"Review every module. {RULES}"
WINDOW = 8_192
FILE_LINES = 75
"""Lines per file read: about 2,500 tokens (o200k), a third of the window."""
BUDGET = WINDOW - 512  # room for the tool schemas and pydantic-ai's own framing
NO_LIMIT = UsageLimits(request_limit=None)
T = TypeVar("T")


def read_file(path: str) -> str:
    """Read a file of the repository."""
    return source_file(path, FILE_LINES)


def run(
    server: ChatModelServer,
    capabilities: list[Any],
    tools: list[Any],
    go: Callable[[Agent[None, str]], Awaitable[T]],
) -> T:
    """Run `go(agent)` with an agent whose model is the local server (its client closed after)."""

    async def main() -> T:
        provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
        async with provider.client:
            model = OpenAIChatModel("gpt-4o", provider=provider)
            agent = Agent(
                model, system_prompt=SYSTEM, capabilities=capabilities, tools=[read_file, *tools]
            )
            return await go(agent)

    return asyncio.run(main())


def run_task(server: ChatModelServer, fold: ContextFoldProcessor) -> Any:
    """The agent run on TASK with `fold` as its capability and its recall tool."""
    return run(
        server,
        [fold.capability()],
        [fold.recall_tool()],
        lambda agent: agent.run(TASK, usage_limits=NO_LIMIT),
    )


def recalled_pages(log: Log, ref: str) -> list[str]:
    return [
        m["content"]
        for body in log.accepted
        for m in body["messages"]
        if m.get("role") == "tool" and m["content"].startswith(f"[cf:{ref} recalled")
    ]


def test_a_150_turn_agent_run_is_never_refused() -> None:
    script = AgentScript(turns=150)
    fold = ContextFoldProcessor(BUDGET, "gpt-4o")
    with ChatModelServer(script, window=WINDOW) as server:
        result = run_task(server, fold)
    assert result.output == FINAL
    log = server.log
    assert log.refusals == []
    assert len(log.accepted) == 152  # 150 reads, one recall, the final answer
    assert max(log.tokens) <= WINDOW
    system = {"role": "system", "content": SYSTEM}
    assert all(body["messages"][0] == system for body in log.accepted)
    assert rules_everywhere(log, "Never push to main", "2027-03-14")
    (ref,) = script.recalled
    assert recalled_pages(log, ref), "the recalled page never reached the model"
    assert fold.restarts == 0  # every request only added the new messages
    assert fold.report is not None
    assert fold.report.compacted
    summaries = [p for m in result.all_messages() for p in m.parts if isinstance(p, CompactionPart)]
    assert summaries, "the folded turns are summarized in pydantic-ai's own compaction part"


def test_without_the_processor_the_same_loop_is_refused() -> None:
    script = AgentScript(turns=10)
    with ChatModelServer(script, window=WINDOW) as server, pytest.raises(ModelHTTPError):
        run(server, [], [], lambda agent: agent.run(TASK, usage_limits=NO_LIMIT))
    assert server.log.refusals[0].code == "context_length_exceeded"


def png(width: int, height: int) -> bytes:
    """The header of a `width` x `height` PNG: all that the image's token count reads."""
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))


def test_images_from_the_user_and_from_tools_are_counted_as_the_model_bills_them() -> None:
    image = BinaryContent(png(1024, 1024), media_type="image/png")  # 765 tokens (gpt-4o, high)

    def screenshot(path: str) -> BinaryContent:
        """Take a screenshot of a file."""
        return image

    window = 4_000
    script = AgentScript(turns=12, tool="screenshot")
    fold = ContextFoldProcessor(window - 512, "gpt-4o")
    prompt: list[str | BinaryContent] = [TASK, image]
    with ChatModelServer(script, window=window) as server:
        result = run(
            server,
            [fold.capability()],
            [screenshot, fold.recall_tool()],
            lambda agent: agent.run(prompt, usage_limits=NO_LIMIT),
        )
    assert result.output == FINAL
    assert server.log.refusals == []
    assert max(server.log.tokens) <= window
    assert rules_everywhere(server.log, "Never push to main", "2027-03-14")
    assert fold.report is not None
    assert fold.report.compacted


def test_text_files_from_the_user_and_from_tools_are_counted_as_the_text_they_are_sent_as() -> None:
    def attach(path: str, lines: int) -> BinaryContent:
        return BinaryContent(source_file(path, lines).encode(), media_type="text/x-python")

    def open_file(path: str) -> BinaryContent:
        """Open a file of the repository."""
        return attach(path, 30)  # about 1,000 tokens, inlined in a user message

    window = 4_000
    script = AgentScript(turns=10, tool="open_file")
    fold = ContextFoldProcessor(window - 512, "gpt-4o")
    notes = TextContent(source_file("notes.txt", 15), metadata={"from": "the app"})
    prompt: list[str | BinaryContent | TextContent] = [TASK, notes, attach("main.py", 15)]
    with ChatModelServer(script, window=window) as server:
        result = run(
            server,
            [fold.capability()],
            [open_file, fold.recall_tool()],
            lambda agent: agent.run(prompt, usage_limits=NO_LIMIT),
        )
    assert result.output == FINAL
    assert server.log.refusals == []
    assert max(server.log.tokens) <= window
    assert rules_everywhere(server.log, "Never push to main", "line 14 of notes.txt")
    assert fold.report is not None
    assert fold.report.compacted


def test_the_thinking_a_model_is_sent_back_is_counted() -> None:
    """A reasoning model (Qwen3, DeepSeek-R1 on vLLM or Ollama) writes <think> text that
    pydantic-ai keeps as a ThinkingPart and sends back with the response."""
    agent_script = AgentScript(turns=12)
    steps = " ".join(f"step {i}: weigh option {i} against the rules" for i in range(250))

    def thinking(body: Body) -> Reply:
        reply = agent_script(body)
        return Reply(text=f"<think>\n{steps}\n</think>\n{reply.text}", calls=reply.calls)

    window = 6_000
    fold = ContextFoldProcessor(window - 512, "gpt-4o")
    with ChatModelServer(thinking, window=window) as server:
        result = run_task(server, fold)
    assert result.output.endswith(FINAL)
    assert server.log.refusals == []
    assert max(server.log.tokens) <= window
    assert rules_everywhere(server.log, "Never push to main", "2027-03-14")


def test_a_continued_conversation_adds_only_the_new_messages() -> None:
    script = AgentScript(turns=12)
    fold = ContextFoldProcessor(BUDGET, "gpt-4o")

    async def two_runs(agent: Agent[None, str]) -> list[ModelMessage]:
        first = await agent.run(TASK, usage_limits=NO_LIMIT)
        script.turns, script.recalled = 17, ["done"]
        second = await agent.run(
            "Read five more.", message_history=first.all_messages(), usage_limits=NO_LIMIT
        )
        return second.all_messages()

    with ChatModelServer(script, window=WINDOW) as server:
        history = run(server, [fold.capability()], [fold.recall_tool()], two_runs)
    assert server.log.refusals == []
    assert fold.restarts == 0
    assert rules_everywhere(server.log, "Never push to main", "2027-03-14")
    first = history[0]
    assert isinstance(first, ModelRequest)
    assert first.parts[0] == SystemPromptPart(SYSTEM, timestamp=first.parts[0].timestamp)  # type: ignore[union-attr]


def test_a_history_within_budget_comes_back_as_the_same_objects() -> None:
    fold = ContextFoldProcessor(100_000, "gpt-4o")
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart(SYSTEM), UserPromptPart(TASK)]),
        ModelResponse(parts=[TextPart("Reading."), ToolCallPart("read_file", {"path": "a"}, "c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "print(1)", "c1")]),
        ModelResponse(parts=[ThinkingPart("")]),  # the same wire as the next
        ModelRequest(parts=[UserPromptPart("go on")]),
        ModelResponse(parts=[]),
        ModelRequest(parts=[UserPromptPart("go on")]),
    ]
    out = asyncio.run(fold(list(history)))
    assert len(out) == len(history)
    assert all(a is b for a, b in zip(out, history, strict=True))
    more = [*out, ModelResponse(parts=[TextPart("Done.")])]
    again = asyncio.run(fold(more))
    assert all(a is b for a, b in zip(again, more, strict=True))
    assert fold.restarts == 0
    asyncio.run(fold([ModelRequest(parts=[UserPromptPart("Another conversation.")])]))
    assert fold.restarts == 1


@pytest.mark.filterwarnings("ignore:`RetryPromptPart` is deprecated")
def test_a_retry_answering_a_tool_call_stays_that_calls_answer() -> None:
    """A history built in code (or handed back through `DeferredToolResults`) may hold the
    legacy `RetryPromptPart`: pydantic-ai sends one naming a tool as that call's tool message."""
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(TASK)])]
    for turn in range(12):
        call = f"c{turn}"
        history.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": call}, call)]))
        answer: ModelRequestPart = ToolReturnPart("read_file", source_file(call, 60), call)
        if turn % 3 == 1:
            answer = RetryPromptPart("No such file.", tool_name="read_file", tool_call_id=call)
        history.append(ModelRequest(parts=[answer]))
    history.append(ModelResponse(parts=[TextPart("Read them all.")]))
    fold = ContextFoldProcessor(3_000, "gpt-4o")
    with ChatModelServer(AgentScript(turns=0), window=WINDOW) as server:
        result = run(
            server,
            [fold.capability()],
            [],
            lambda agent: agent.run("Summarize.", message_history=history),
        )
    assert result.output == FINAL
    assert server.log.refusals == []
    assert fold.report is not None
    assert fold.report.compacted
    assert rules_everywhere(server.log, "Never push to main", "2027-03-14")


def test_one_agent_run_from_worker_threads_neither_hangs_nor_mixes_conversations() -> None:
    """A web server's worker threads share one processor, each calling `run_sync` (which
    runs its own event loop) on an agent with its own client."""
    import threading

    def script(body: Body) -> Reply:
        name = "A" if "Conversation A" in str(body["messages"]) else "B"
        return scripts[name](body)

    scripts = {name: AgentScript(turns=10) for name in "AB"}
    fold = ContextFoldProcessor(BUDGET, "gpt-4o")
    failed: list[BaseException] = []
    with ChatModelServer(script, window=WINDOW) as server:

        def conversation(name: str) -> None:
            provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
            model = OpenAIChatModel("gpt-4o", provider=provider)
            agent = Agent(
                model, system_prompt=SYSTEM, capabilities=[fold.capability()], tools=[read_file]
            )
            try:
                agent.run_sync(f"Conversation {name}. {TASK}", usage_limits=NO_LIMIT)
            except BaseException as exc:
                failed.append(exc)

        workers = [threading.Thread(target=conversation, args=(n,), daemon=True) for n in "AB"]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        hung = [worker.name for worker in workers if worker.is_alive()]
    assert hung == []
    assert failed == []
    assert server.log.refusals == []
    bodies = [str(body["messages"]) for body in server.log.accepted]
    assert not any("Conversation A" in b and "Conversation B" in b for b in bodies)


def test_the_recall_tool_answers_and_explains_bad_calls() -> None:
    archive = cf.Archive()
    ref = archive.put("the whole original output")
    tool = recall_tool(archive)
    assert tool.name == cf.RECALL_TOOL_NAME
    assert tool.function(ref=ref, offset=None, limit=None) == "the whole original output"  # type: ignore[call-arg]
    assert "nothing is archived" in tool.function(ref="r0123456789")  # type: ignore[call-arg]


def test_bad_settings_fail_when_the_processor_is_made() -> None:
    with pytest.raises(cf.ConfigurationError):
        ContextFoldProcessor(-5)
    with pytest.raises(cf.ConfigurationError):
        ContextFoldProcessor(8_000, low=0.95, high=0.5)


# --- properties -----------------------------------------------------------------------


def wire(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """The chat messages pydantic-ai's OpenAI model sends for `messages` (tool pairing view)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            calls = [
                {
                    "id": p.tool_call_id,
                    "type": "function",
                    "function": {"name": p.tool_name, "arguments": p.args_as_json_str()},
                }
                for p in message.parts
                if isinstance(p, ToolCallPart)
            ]
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            out.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    **({"tool_calls": calls} if calls else {}),
                }
            )
            continue
        for part in message.parts:
            if isinstance(part, ToolReturnPart):
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": part.tool_call_id,
                        "content": part.model_response_str(),
                    }
                )
            elif isinstance(part, SystemPromptPart):
                out.append({"role": "system", "content": part.content})
            else:
                out.append({"role": "user", "content": str(getattr(part, "content", ""))})
    return out


steps = st.lists(
    st.tuples(st.integers(0, 3), st.integers(1, 120), st.booleans()), min_size=1, max_size=30
)


@settings(max_examples=25, deadline=None)
@given(steps)
def test_every_request_is_valid_within_budget_and_keeps_the_system_prompt(
    plan: list[tuple[int, int, bool]],
) -> None:
    budget = 2_500
    fold = ContextFoldProcessor(budget, "gpt-4o")
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart(SYSTEM), UserPromptPart(TASK)])
    ]
    for turn, (calls, lines, user) in enumerate(plan):
        ids = [f"c{turn}_{i}" for i in range(calls)]
        reply: list[ModelResponsePart] = [ToolCallPart("read_file", {"path": i}, i) for i in ids]
        reply = reply or [TextPart("ok " * lines)]
        history = [*history, ModelResponse(parts=reply)]
        returns = [ToolReturnPart("read_file", source_file(i, lines), i) for i in ids]
        if returns or user:
            history.append(
                ModelRequest(parts=[*returns, *([UserPromptPart(f"next {turn}")] if user else [])])
            )
        history = asyncio.run(fold(history))
        sent = wire(history)
        assert cf.validate(sent, format="openai-chat") == []
        assert sent[0] == {"role": "system", "content": SYSTEM}
        report = fold.report
        tokens = cf.count_tokens(sent, "gpt-4o")
        assert tokens <= budget or (report is not None and not report.fits)  # never silent
    assert fold.restarts == 0


def test_the_example_runs_against_an_openai_compatible_base_url(tmp_path: Path) -> None:
    script = AgentScript(turns=6)
    for i in range(1, 7):
        path = tmp_path / "src" / f"module_{i:03d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(source_file(f"src/module_{i:03d}.py", FILE_LINES), encoding="utf-8")
    example = Path(__file__).parents[2] / "examples" / "pydantic_ai_agent.py"
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


@pytest.mark.parametrize("budget", [3_000, 3_400])
def test_a_summary_counts_with_the_frame_pydantic_ai_sends_it_in(budget: int) -> None:
    """pydantic-ai sends a request's `CompactionPart` inside a `<pyai:conversation_summary>`
    frame with a provenance line (43 tokens for gpt-4o) that the summary's own text does
    not have; with views compacted right up to the budget (low 0.99, high 1.0) every request
    the server counts stays within the processor's budget, the frame included."""
    script = AgentScript(turns=14)
    fold = ContextFoldProcessor(budget, "gpt-4o", low=0.99, high=1.0)
    with ChatModelServer(script, window=budget + 1_000) as server:
        result = run_task(server, fold)
    assert result.output == FINAL
    sent = server.log.accepted
    framed = [b for b in sent if any("pyai:conversation_summary" in str(m) for m in b["messages"])]
    assert framed, "no request carried a summary"
    assert max(server.log.tokens) <= budget
