"""A LangChain agent whose every model call fits an 8,000-token budget.

Usage: python examples/langchain_agent.py [BASE_URL] [MODEL]
(any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, Ollama; the key comes from
OPENAI_API_KEY). The agent reads this repository's files with a tool; contextfold's
middleware compacts what each model call sees, the graph state keeps the full history, and
the model can fetch anything folded away with the `contextfold_recall` tool.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from contextfold.integrations.langchain import ContextFoldMiddleware

ROOT = Path(__file__).resolve().parents[1]


@tool
def read_file(path: str) -> str:
    """Read a text file of the repository, by its path from the repository's root."""
    file = (ROOT / path).resolve()
    if ROOT not in file.parents or not file.is_file():
        return f"no such file: {path}"
    return file.read_text(encoding="utf-8", errors="replace")


def main(base_url: str, model: str) -> None:
    key = SecretStr(os.environ.get("OPENAI_API_KEY", "not-needed"))
    chat = ChatOpenAI(model=model, base_url=base_url, api_key=key)
    fold = ContextFoldMiddleware(budget=8_000, model=model)  # model: how to count tokens
    agent = create_agent(
        chat,
        [read_file],
        system_prompt="You are a careful code reviewer. Read files with read_file.",
        middleware=[fold],
    )
    task = "Review src/contextfold/_manager.py and the files it imports. Never edit anything."
    result = agent.invoke({"messages": [{"role": "user", "content": task}]})
    print(result["messages"][-1].content)
    report = fold.report()
    print(report.describe() if report else "the history always fit: nothing compacted")


if __name__ == "__main__":
    main(*(sys.argv[1:3] + ["http://localhost:8000/v1", "gpt-4o"][len(sys.argv[1:3]) :]))
