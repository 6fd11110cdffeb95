"""An OpenAI Agents SDK agent that reads a project's files, every model call kept in budget.

Works against any OpenAI-compatible chat completions server (vLLM, llama.cpp, Ollama,
OpenAI itself): it uses `OPENAI_BASE_URL` and `OPENAI_API_KEY` from the environment.

    pip install 'contextfold[openai-agents,tiktoken]'
    OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_API_KEY=none \\
        python examples/openai_agents_agent.py "Review every module under src/" \\
        --model qwen3-32b --budget 8000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

from contextfold.integrations.openai_agents import ContextFoldFilter

INSTRUCTIONS = "You are a careful code reviewer. Read the files you need with read_file."


@function_tool
def read_file(path: str) -> str:
    """Read a text file of the project (a path relative to the working directory)."""
    root = Path.cwd().resolve()
    file = (root / path).resolve()
    if not file.is_relative_to(root) or not file.is_file():
        return f"no such file in the project: {path}"
    return file.read_text(encoding="utf-8", errors="replace")


async def review(task: str, model: str, budget: int, max_turns: int) -> int:
    set_tracing_disabled(True)  # traces would go to OpenAI's platform, not to your server
    fold = ContextFoldFilter(budget, model)  # one per conversation: it holds the history's state
    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    api_key = os.environ.get("OPENAI_API_KEY", "none")
    async with AsyncOpenAI(base_url=base_url, api_key=api_key) as client:
        agent = Agent(
            name="reviewer",
            instructions=INSTRUCTIONS,
            tools=[read_file, fold.recall_tool()],  # the model can fetch what was folded
            model=OpenAIChatCompletionsModel(model=model, openai_client=client),
        )
        result = await Runner.run(
            agent,
            task,
            run_config=fold.run_config(),
            hooks=fold.hooks(),  # calibrates the counts with the reported input tokens
            max_turns=max_turns,
        )
    print(result.final_output)
    if fold.report is not None:
        print(f"contextfold: {fold.report.describe()}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("--model", default="gpt-4o")
    parser.add_argument("--budget", type=int, default=8_000, help="context window, in tokens")
    parser.add_argument("--max-turns", type=int, default=200)
    args = parser.parse_args(argv)
    return asyncio.run(review(args.task, args.model, args.budget, args.max_turns))


if __name__ == "__main__":
    sys.exit(main())
