"""A pydantic-ai agent that reads a project's files, every model request kept in budget.

Works against any OpenAI-compatible chat completions server (vLLM, llama.cpp, Ollama,
OpenAI itself): it uses `OPENAI_BASE_URL` and `OPENAI_API_KEY` from the environment.

    pip install 'contextfold[pydantic-ai,tiktoken]'
    OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_API_KEY=none \\
        python examples/pydantic_ai_agent.py "Review every module under src/" \\
        --model qwen3-32b --budget 8000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from contextfold.integrations.pydantic_ai import ContextFoldProcessor

SYSTEM = "You are a careful code reviewer. Read the files you need with read_file."
HEADROOM = 512
"""Tokens left for the tool schemas and pydantic-ai's own framing of a request."""


def read_file(path: str) -> str:
    """Read a text file of the project (a path relative to the working directory)."""
    root = Path.cwd().resolve()
    file = (root / path).resolve()
    if not file.is_relative_to(root) or not file.is_file():
        return f"no such file in the project: {path}"
    return file.read_text(encoding="utf-8", errors="replace")


async def review(task: str, model: str, window: int) -> int:
    fold = ContextFoldProcessor(window - HEADROOM, model)  # one per conversation
    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    provider = OpenAIProvider(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "none"))
    async with provider.client:
        agent = Agent(
            OpenAIChatModel(model, provider=provider),
            system_prompt=SYSTEM,
            capabilities=[fold.capability()],
            tools=[read_file, fold.recall_tool()],  # the model can fetch what was folded
        )
        result = await agent.run(task, usage_limits=UsageLimits(request_limit=None))
    print(result.output)
    if fold.report is not None:
        print(f"contextfold: {fold.report.describe()}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("--model", default="gpt-4o")
    parser.add_argument("--budget", type=int, default=8_000, help="context window, in tokens")
    args = parser.parse_args(argv)
    return asyncio.run(review(args.task, args.model, args.budget))


if __name__ == "__main__":
    sys.exit(main())
