"""LangGraph's prebuilt ReAct agent with contextfold as its `pre_model_hook`.

Usage: python examples/langgraph_agent.py [BASE_URL] [MODEL]
(any OpenAI-compatible server; the key comes from OPENAI_API_KEY). The hook hands the
model a compacted view (`llm_input_messages`) while the checkpointed state keeps the
full history; one ContextManager per thread.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from pydantic import SecretStr

from contextfold.integrations.langgraph import ContextFoldHook

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "You are a careful code reviewer. Read files with read_file."


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
    hook = ContextFoldHook(budget=8_000, model=model, prompt=SYSTEM, tools=[read_file])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # it moved to langchain.agents
        agent = create_react_agent(
            chat,
            [read_file, hook.recall_tool],
            prompt=SYSTEM,
            pre_model_hook=hook,
            checkpointer=InMemorySaver(),
        )
    task = "Review src/contextfold/_manager.py and the files it imports. Never edit anything."
    config: RunnableConfig = {"configurable": {"thread_id": "review-1"}}
    result = agent.invoke({"messages": [{"role": "user", "content": task}]}, config)
    print(result["messages"][-1].content)
    report = hook.report("review-1")
    print(report.describe() if report else "the history always fit: nothing compacted")


if __name__ == "__main__":
    main(*(sys.argv[1:3] + ["http://localhost:8000/v1", "gpt-4o"][len(sys.argv[1:3]) :]))
