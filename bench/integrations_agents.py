"""The same agent loop in the OpenAI Agents SDK and pydantic-ai, without and with contextfold.

Rules:
1. The loop is the integration tests' one (tests/servers/chat_model.py): a strict local
   OpenAI chat model server with a `--window`-token context (it refuses over-window requests
   and broken tool pairings with the provider's 400s), and its scripted agent, which reads a
   ~2,500-token file per turn for `--turns` turns, recalls the first folded result it sees
   once, then answers. The system prompt and the user's rules are in the first request.
2. Each framework runs its own agent loop (the installed package) with: nothing (its
   default), its own trimming, and contextfold. Agents SDK: `ToolOutputTrimmer` (its
   built-in `call_model_input_filter`, defaults). pydantic-ai: the keep-the-last-N-messages
   processor of its docs with `ReinjectSystemPrompt`, at N=10 (the docs') and N=4 (small
   enough for this window).
3. Per run: whether the loop finished, requests the server accepted, the first refused
   request (its number and code), accepted requests missing the system prompt or the
   user's rules, the peak prompt tokens, and whether a recall reached the model.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from agents import Agent, OpenAIChatCompletionsModel, RunConfig, function_tool
from agents import Runner as SdkRunner
from agents.extensions import ToolOutputTrimmer
from agents.run_config import CallModelData, CallModelInputFilter, ModelInputData
from agents.tracing import set_tracing_disabled
from agents.version import __version__ as agents_version
from openai import AsyncOpenAI
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import ModelMessage
from pydantic_ai import __version__ as pydantic_ai_version
from pydantic_ai.capabilities import ProcessHistory, ReinjectSystemPrompt
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits
from tests.servers.chat_model import (
    FINAL,
    AgentScript,
    ChatModelServer,
    Log,
    _text_of,
    source_file,
)

import contextfold as cf
from contextfold.integrations.openai_agents import ContextFoldFilter
from contextfold.integrations.pydantic_ai import ContextFoldProcessor

from .common import ROOT, machine, table, write_section

SYSTEM = "You are a careful coding agent. Use the tools to read files."
RULES = ("Never push to main", "2027-03-14")
TASK = "Review every module. Never push to main. The deadline is 2027-03-14."
FILE_LINES = 75
"""Lines per file read: about 2,500 tokens (o200k), a third of an 8k window."""


@dataclass(frozen=True)
class Outcome:
    """What one loop did, as the server saw it."""

    framework: str
    setup: str
    finished: bool
    accepted: int
    first_refusal: str
    no_system: int
    """Accepted requests whose first message is not the system prompt."""
    system_missing: int
    """... of which the system prompt is nowhere in the request."""
    no_rules: int
    peak: int
    recalled: bool
    seconds: float
    ended_by: str
    """The exception that ended the run ("-" when it finished)."""
    hook_time: str
    """Mean time one call of the history hook took ("-" without a hook)."""


@dataclass
class Stopwatch:
    """Seconds spent in a framework hook (the history filter or processor) and its calls."""

    seconds: float = 0.0
    calls: int = 0

    def per_call_ms(self) -> str:
        return f"{1e3 * self.seconds / self.calls:.1f} ms" if self.calls else "-"


Runner = Callable[[ChatModelServer, AgentScript, Stopwatch], Coroutine[Any, Any, object]]


def outcome(framework: str, setup: str, run: Runner, turns: int, window: int) -> Outcome:
    """Run one loop against a fresh server (rule 3)."""
    script = AgentScript(turns=turns)
    start = time.perf_counter()
    watch = Stopwatch()
    with ChatModelServer(script, window=window) as server:
        ended_by, finished = "-", False
        try:
            finished = bool(asyncio.run(run(server, script, watch)) == FINAL)
        except Exception as exc:  # the framework gives up on a refusal: that is the measurement
            finished, ended_by = False, type(exc).__name__
    log = server.log
    refusal = "-"
    if log.refusals:
        refusal = f"#{len(log.accepted) + 1} ({log.refusals[0].code})"
    return Outcome(
        framework,
        setup,
        finished,
        len(log.accepted),
        refusal,
        sum(not _has_system(body) for body in log.accepted),
        sum(not _mentions(body, SYSTEM) for body in log.accepted),
        sum(not _has_rules(body) for body in log.accepted),
        max(log.tokens, default=0),
        _recalled(log, script),
        time.perf_counter() - start,
        ended_by,
        watch.per_call_ms(),
    )


def _has_system(body: dict[str, Any]) -> bool:
    first = body["messages"][0]
    return bool(first.get("role") == "system" and first.get("content") == SYSTEM)


def _mentions(body: dict[str, Any], text: str) -> bool:
    return any(text in _text_of(m) for m in body["messages"])


def _has_rules(body: dict[str, Any]) -> bool:
    return all(_mentions(body, rule) for rule in RULES)


def _recalled(log: Log, script: AgentScript) -> bool:
    return any(
        m.get("role") == "tool" and str(m.get("content", "")).startswith(f"[cf:{ref} recalled")
        for ref in script.recalled
        for body in log.accepted
        for m in body["messages"]
    )


# --- OpenAI Agents SDK ------------------------------------------------------------------


def timed_filter(hook: CallModelInputFilter, watch: Stopwatch) -> CallModelInputFilter:
    """`hook` timed by `watch`."""

    async def timed(data: CallModelData[Any]) -> ModelInputData:
        start = time.perf_counter()
        result = hook(data)
        out = await result if inspect.isawaitable(result) else result
        watch.seconds += time.perf_counter() - start
        watch.calls += 1
        return out

    return timed


def agents_runs(window: int) -> dict[str, Runner]:
    """The Agents SDK loop with no filter, ToolOutputTrimmer, and contextfold."""
    set_tracing_disabled(True)

    @function_tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, FILE_LINES)

    def runner(config: Callable[[], tuple[RunConfig, list[Any]]]) -> Runner:
        async def run(server: ChatModelServer, script: AgentScript, watch: Stopwatch) -> object:
            run_config, extra = config()
            hook = run_config.call_model_input_filter
            if hook is not None:
                run_config.call_model_input_filter = timed_filter(hook, watch)
            async with AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
                model = OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)
                agent = Agent(name="a", instructions=SYSTEM, tools=[read_file, *extra], model=model)
                result = await SdkRunner.run(
                    agent, TASK, run_config=run_config, max_turns=script.turns + 20
                )
                return result.final_output

        return run

    def ours() -> tuple[RunConfig, list[Any]]:
        fold = ContextFoldFilter(window, "gpt-4o")
        return fold.run_config(), [fold.recall_tool()]

    return {
        "no filter (default)": runner(lambda: (RunConfig(), [])),
        "ToolOutputTrimmer()": runner(
            lambda: (RunConfig(call_model_input_filter=ToolOutputTrimmer()), [])
        ),
        "contextfold ContextFoldFilter": runner(ours),
    }


# --- pydantic-ai --------------------------------------------------------------------------

Processor = Callable[[list[ModelMessage]], Awaitable[list[ModelMessage]]]


def timed_processor(hook: Processor, watch: Stopwatch) -> Processor:
    """`hook` timed by `watch` (annotated so pydantic-ai calls it without a RunContext)."""

    async def timed(messages: list[ModelMessage]) -> list[ModelMessage]:
        start = time.perf_counter()
        out = await hook(messages)
        watch.seconds += time.perf_counter() - start
        watch.calls += 1
        return out

    return timed


def pydantic_ai_runs(window: int) -> dict[str, Runner]:
    """The pydantic-ai loop with no processor, keep-last-N, and contextfold."""

    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, FILE_LINES)

    def keep_last(n: int) -> Processor:
        async def keep(messages: list[ModelMessage]) -> list[ModelMessage]:
            return messages[-n:] if len(messages) > n else messages

        return keep

    def runner(setup: Callable[[Stopwatch], tuple[list[Any], list[Any]]]) -> Runner:
        async def run(server: ChatModelServer, script: AgentScript, watch: Stopwatch) -> object:
            capabilities, tools = setup(watch)
            provider = OpenAIProvider(base_url=server.base_url, api_key="k")
            async with provider.client:
                model = OpenAIChatModel("gpt-4o", provider=provider)
                agent = PydanticAgent(
                    model,
                    system_prompt=SYSTEM,
                    capabilities=capabilities,
                    tools=[read_file, *tools],
                )
                result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=None))
                return result.output

        return run

    def ours(watch: Stopwatch) -> tuple[list[Any], list[Any]]:
        fold = ContextFoldProcessor(window - 512, "gpt-4o")
        return [ProcessHistory(timed_processor(fold, watch))], [fold.recall_tool()]

    def trimmed(n: int) -> Callable[[Stopwatch], tuple[list[Any], list[Any]]]:
        return lambda watch: (
            [ProcessHistory(timed_processor(keep_last(n), watch)), ReinjectSystemPrompt()],
            [],
        )

    return {
        "no processor (default)": runner(lambda watch: ([], [])),
        "keep last 10 messages + ReinjectSystemPrompt": runner(trimmed(10)),
        "keep last 4 messages + ReinjectSystemPrompt": runner(trimmed(4)),
        "contextfold ContextFoldProcessor": runner(ours),
    }


def run_all(turns: int, window: int) -> list[Outcome]:
    """Every framework and setup, one loop each."""
    out: list[Outcome] = []
    for framework, runs in (
        ("OpenAI Agents SDK", agents_runs(window)),
        ("pydantic-ai", pydantic_ai_runs(window)),
    ):
        for setup, run in runs.items():
            out.append(outcome(framework, setup, run, turns, window))
    return out


NOTES = (
    "`ToolOutputTrimmer` only trims outputs older than the last `recent_turns` (2) user",
    "messages; an agent working on one task has one user message, so it trims nothing and",
    "the run is refused where the default is. Keeping the last N messages fits the window",
    "only when N is tuned to it, and then the user's rules are gone from every request once",
    "their message is trimmed; `ReinjectSystemPrompt` puts the system prompt at the head of",
    "the first *request* kept, which after trimming follows an assistant turn, so it is",
    "present but not first. Nothing was folded, so there is nothing to recall. The history",
    "hook column is the mean time of one call of the filter or processor (contextfold's",
    "includes its compactions).",
)


def section(outcomes: list[Outcome], turns: int, window: int, command: str) -> str:
    """The BENCHMARKS.md section."""
    rows = [
        (
            o.framework,
            o.setup,
            "yes" if o.finished else f"**no** ({o.ended_by})",
            f"{o.accepted:,}",
            o.first_refusal,
            f"{o.no_system:,} ({o.system_missing:,})",
            f"{o.no_rules:,}",
            f"{o.peak:,}",
            "yes" if o.recalled else "no",
            o.hook_time,
            f"{o.seconds:.1f} s",
        )
        for o in outcomes
    ]
    header = (
        "framework", "setup", "finished", "requests accepted", "first refused request",
        "system prompt not first (absent)", "without the user's rules", "peak prompt tokens",
        "recall", "history hook per request", "wall time",
    )  # fmt: skip
    lines = [
        "## Integrations: OpenAI Agents SDK and pydantic-ai",
        "",
        f"Command: `{command}` ({machine()}; openai-agents {agents_version}, "
        f"pydantic-ai {pydantic_ai_version}, contextfold {cf.__version__}).",
        "",
        *[line.strip() for line in (__doc__ or "").split("Rules:", 1)[1].strip().splitlines()],
        "",
        f"{turns} tool turns, context window {window:,} tokens:",
        "",
        *table(header, rows, "lllrlrrrlrr"),
        "",
        *NOTES,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--window", type=int, default=8_192)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    outcomes = run_all(args.turns, args.window)
    command = ".venv/bin/python -m bench.integrations_agents"
    text = section(outcomes, args.turns, args.window, command)
    print(text)
    if not args.no_write:
        write_section(text, ROOT / "BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
