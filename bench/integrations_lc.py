"""LangChain, LangGraph and LiteLLM agent loops with and without contextfold.

Usage: .venv/bin/python -m bench.integrations_lc [--turns 150] [--window 8192] [--no-write]

Rules:
1. Every run is the framework's real agent loop (`create_agent`, `create_react_agent`, or
   the plain `litellm.completion` loop a LiteLLM user writes) against the strict local
   server of tests/servers (127.0.0.1; refuses over-window requests and broken tool
   pairings with the provider's 400). The scripted agent reads one ~2,500-token file per
   turn for `--turns` turns, recalls a folded result once if it is offered the recall
   tool, and then answers.
2. The setups: the framework with nothing (its default), the framework's own trimming as
   its documentation shows it (langchain_core `trim_messages` with strategy "last",
   `count_tokens_approximately`, `start_on="human"`, `end_on=("human", "tool")`, max
   tokens = the window; LangChain's `SummarizationMiddleware` triggered at 80% of the window
   with its default `keep`; LiteLLM's `litellm.utils.trim_messages` with max_tokens = the
   window), and contextfold's integration at budget = the window.
3. A refusal ends the run (as it ends the user's agent); the table shows the agent request
   that was refused first. Requests that a summarizer makes (no tools) are not agent
   requests and are not counted. "system" and "rules" count the accepted agent requests
   that did not carry the system prompt (first message) or the user's rules.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from tests.servers.chat_model import (
    READ_FILE,
    AgentScript,
    Body,
    ChatModelServer,
    Reply,
    source_file,
)

import contextfold as cf

from .common import machine, table, write_section

SYSTEM = "You are a careful coding agent. Use the tools to read files."
RULES = ("Never push to main", "2027-03-14")
TASK = "Review every module. Never push to main. The deadline is 2027-03-14."
LINES = 75
"""Lines per file: about 2,500 tokens (o200k)."""
ROOM = 512
"""Tokens the trimming baselines leave free for the tool schemas and the reply priming."""
SECTION = "## Framework integrations: LangChain, LangGraph, LiteLLM"


class Script(AgentScript):
    """The shared agent; a request without tools is a summarizer's, answered briefly."""

    def __call__(self, body: Body) -> Reply:
        if not body.get("tools"):
            return Reply(text="Summary: the agent has been reading the repository's modules.")
        return super().__call__(body)


@dataclass(frozen=True)
class Outcome:
    """One run of one setup."""

    framework: str
    setup: str
    accepted: int
    refused_at: int | None
    refused_for: str
    finished: bool
    no_system: int
    no_rules: int
    recalled: bool
    peak: int
    seconds: float


_WHY = {"context_length_exceeded": "over the window", "invalid_request_error": "tool pairing"}


def _has_rules(body: Body) -> bool:
    return all(any(rule in _text(m) for m in body["messages"]) for rule in RULES)


def _text(message: Body) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else str(content or "")


def outcome(
    framework: str, setup: str, server: ChatModelServer, script: Script, seconds: float
) -> Outcome:
    log = server.log
    agent = [(b, t) for b, t in zip(log.accepted, log.tokens, strict=True) if b.get("tools")]
    system = {"role": "system", "content": SYSTEM}
    refused = len(agent) + 1 if server.log.refusals else None
    return Outcome(
        framework,
        setup,
        len(agent),
        refused,
        _WHY.get(log.refusals[0].code, log.refusals[0].code) if log.refusals else "",
        refused is None and script.reads >= script.turns and len(agent) > script.turns,
        sum(1 for b, _ in agent if b["messages"][0] != system),
        sum(
            1 for b, _ in agent if not all(any(r in _text(m) for m in b["messages"]) for r in RULES)
        ),
        bool(script.recalled),
        max((t for _, t in agent), default=0),
        seconds,
    )


# --- the runs -----------------------------------------------------------------------


def _chat_model(server: ChatModelServer) -> Any:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    key = SecretStr("bench")
    return ChatOpenAI(model="gpt-4o", base_url=server.base_url, api_key=key, max_retries=0)


def _read_file() -> Any:
    from langchain_core.tools import tool

    @tool
    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return source_file(path, LINES)

    return read_file


def _exact(messages: list[Any]) -> int:
    """o200k tokens of LangChain messages (contextfold's offline tiktoken: LangChain's own
    counter would download the encoding)."""
    from langchain_core.messages import convert_to_openai_messages

    return cf.count_tokens(convert_to_openai_messages(messages), "gpt-4o", format="openai-chat")


def _trim(messages: list[Any], window: int, counter: Any = None) -> list[Any]:
    from langchain_core.messages import trim_messages
    from langchain_core.messages.utils import count_tokens_approximately

    trimmed: list[Any] = trim_messages(
        messages,
        strategy="last",
        token_counter=counter or count_tokens_approximately,
        max_tokens=window - ROOM,
        start_on="human",
        end_on=("human", "tool"),
        include_system=True,
    )
    return trimmed


def langchain_run(setup: str, server: ChatModelServer, window: int) -> None:
    """`create_agent` with the setup's middleware."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware, wrap_model_call
    from langchain_core.messages import SystemMessage

    from contextfold.integrations.langchain import ContextFoldMiddleware

    model = _chat_model(server)
    exact = setup.endswith("(exact counter)")

    @wrap_model_call
    def trim(request: Any, handler: Any) -> Any:
        every = [SystemMessage(SYSTEM), *request.messages]
        kept = _trim(every, window, _exact if exact else None)[1:]
        return handler(request.override(messages=kept))

    trigger: tuple[Literal["tokens"], int] = ("tokens", int(0.8 * window))
    middleware: dict[str, list[Any]] = {
        "none": [],
        "trim_messages": [trim],
        "trim_messages (exact counter)": [trim],
        "SummarizationMiddleware": [SummarizationMiddleware(model, trigger=trigger)],
        "SummarizationMiddleware (keep 50%)": [
            SummarizationMiddleware(model, trigger=trigger, keep=("tokens", window // 2))
        ],
        "contextfold": [ContextFoldMiddleware(window, "gpt-4o")],
    }
    agent = create_agent(model, [_read_file()], system_prompt=SYSTEM, middleware=middleware[setup])
    agent.invoke({"messages": [{"role": "user", "content": TASK}]}, {"recursion_limit": 2_000})


def langgraph_run(setup: str, server: ChatModelServer, window: int) -> None:
    """`create_react_agent` with the setup's pre_model_hook."""
    import warnings

    from langgraph.prebuilt import create_react_agent

    from contextfold.integrations.langgraph import ContextFoldHook

    read_file = _read_file()
    tools: list[Any] = [read_file]
    hook: Any = None
    if setup == "trim_messages":

        def hook(state: Any) -> dict[str, Any]:
            return {"llm_input_messages": _trim(state["messages"], window)}

    elif setup == "contextfold":
        hook = ContextFoldHook(window, "gpt-4o", prompt=SYSTEM, tools=[read_file])
        tools.append(hook.recall_tool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # create_react_agent moved
        agent = create_react_agent(_chat_model(server), tools, prompt=SYSTEM, pre_model_hook=hook)
    agent.invoke({"messages": [{"role": "user", "content": TASK}]}, {"recursion_limit": 2_000})


def litellm_run(setup: str, server: ChatModelServer, window: int) -> None:
    """The loop a LiteLLM user writes: completion, run the tools, append, repeat."""
    import json

    import litellm

    from contextfold.integrations.litellm import ContextFold

    litellm.suppress_debug_info = True  # its banner on every error would fill the output
    fold = ContextFold(window, "gpt-4o", recall=True)
    history: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    base = {"model": "openai/gpt-4o", "api_base": server.base_url, "api_key": "bench"}
    for _ in range(10_000):
        if setup == "contextfold":
            response = fold.completion(**base, messages=history, tools=[READ_FILE])
        else:
            sent = history
            if setup == "trim_messages":
                plain = [m if isinstance(m, dict) else m.model_dump() for m in history]
                sent = litellm.utils.trim_messages(plain, "gpt-4o", max_tokens=window - ROOM)
            response = litellm.completion(**base, messages=sent, tools=[READ_FILE])
        message = response.choices[0].message
        history.append(message)
        if not message.tool_calls:
            return
        for call in message.tool_calls:
            answer = fold.answer(call)
            if answer is None:
                path = json.loads(call.function.arguments)["path"]
                answer = {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": source_file(path, LINES),
                }
            history.append(answer)


FRAMEWORKS: dict[str, tuple[Callable[[str, ChatModelServer, int], None], tuple[str, ...]]] = {
    "LangChain create_agent": (
        langchain_run,
        (
            "none",
            "trim_messages",
            "trim_messages (exact counter)",
            "SummarizationMiddleware",
            "SummarizationMiddleware (keep 50%)",
            "contextfold",
        ),
    ),
    "LangGraph create_react_agent": (langgraph_run, ("none", "trim_messages", "contextfold")),
    "LiteLLM completion loop": (litellm_run, ("none", "trim_messages", "contextfold")),
}


def run(framework: str, setup: str, turns: int, window: int) -> Outcome:
    """One setup's loop against a fresh server; a refusal or a crash ends it."""
    script = Script(turns=turns)
    runner, _ = FRAMEWORKS[framework]
    start = time.perf_counter()
    with ChatModelServer(script, window=window) as server:
        try:
            runner(setup, server, window)
        except Exception as exc:  # the framework's own error for a 400: the run ends here
            if not server.log.refusals:
                print(f"{framework} / {setup}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return outcome(framework, setup, server, script, time.perf_counter() - start)


def render(outcomes: list[Outcome], turns: int, window: int) -> str:
    rows = [
        (
            o.framework,
            o.setup,
            "yes" if o.finished else "no",
            f"{o.accepted:,}",
            "-" if o.refused_at is None else f"#{o.refused_at} ({o.refused_for})",
            o.no_system,
            o.no_rules,
            "yes" if o.recalled else "-",
            f"{o.peak:,}",
            f"{o.seconds:.1f}",
        )
        for o in outcomes
    ]
    header = (
        "framework",
        "setup",
        "finished",
        "agent requests accepted",
        "first refusal (why)",
        "without system prompt",
        "without the rules",
        "recalled",
        "peak prompt tokens",
        "seconds",
    )
    lines = [
        SECTION,
        "",
        f"Command: `.venv/bin/python -m bench.integrations_lc --turns {turns} --window {window}`"
        f" ({machine().replace('numbers are medians', 'one run each')}).",
        "",
        f"Each framework's real agent loop against the strict local server (window {window:,}"
        f" tokens, refuses over-window requests and broken tool pairings with a 400); the agent"
        f" reads one ~2,500-token file per turn for {turns} turns, then answers. A refusal ends"
        " the run. Setups: the framework alone; its own trimming as documented (langchain_core"
        " `trim_messages`: strategy last, start on human, end on human or tool, max tokens ="
        f" window - {ROOM} (room for the tool schemas), counted approximately as documented or"
        " exactly (o200k); LiteLLM's `trim_messages` for gpt-4o, max tokens = window -"
        f" {ROOM});"
        " LangChain's `SummarizationMiddleware` (trigger at 80% of the window, its default keep"
        " of 20 messages or keep 50% of the window in tokens); contextfold's integration at"
        " budget = window. LangChain's summarizer calls the same server, which answers them with"
        " one canned line (so whether a real model's summary would carry the rules is not"
        ' measured here); those calls are not agent requests. "Without ..." counts'
        " the accepted agent requests that lack the system prompt (as their first message) or"
        " the user's rules (anywhere).",
        "",
        *table(header, rows, "ll" + "r" * 8),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--window", type=int, default=8_192)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
    outcomes = [
        run(framework, setup, args.turns, args.window)
        for framework, (_, setups) in FRAMEWORKS.items()
        for setup in setups
    ]
    section = render(outcomes, args.turns, args.window)
    print(section)
    if not args.no_write:
        write_section(section)


if __name__ == "__main__":
    main()
