"""An agent loop on LiteLLM whose every request fits an 8,000-token budget.

Usage: python examples/litellm_loop.py [BASE_URL] [MODEL]
(any OpenAI-compatible server, called as LiteLLM's `openai/<model>`; the key comes from
OPENAI_API_KEY). Any other LiteLLM provider works the same: only `model` changes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no download at import

from contextfold.integrations.litellm import ContextFold

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "You are a careful code reviewer. Read files with read_file."
READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file of the repository, by its path from the root.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}


def read_file(path: str) -> str:
    file = (ROOT / path).resolve()
    if ROOT not in file.parents or not file.is_file():
        return f"no such file: {path}"
    return file.read_text(encoding="utf-8", errors="replace")


def main(base_url: str, model: str) -> None:
    fold = ContextFold(budget=8_000, model=model, recall=True)  # recall: offer the tool
    history: list[Any] = [
        {
            "role": "system",
            "content": "You are a careful code reviewer. Read files with read_file.",
        },
        {"role": "user", "content": "Review src/contextfold/_manager.py. Never edit anything."},
    ]
    key = os.environ.get("OPENAI_API_KEY", "not-needed")
    for _ in range(50):
        response = fold.completion(
            model=f"openai/{model}",
            api_base=base_url,
            api_key=key,
            messages=history,
            tools=[READ_FILE],
            metadata={"contextfold_session": "review-1"},
        )
        message = response.choices[0].message
        history.append(message)
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            answer = fold.answer(call)  # a recall call, answered from the archive
            if answer is None:
                path = json.loads(call.function.arguments).get("path", "")
                answer = {"role": "tool", "tool_call_id": call.id, "content": read_file(path)}
            history.append(answer)
    print(history[-1].content)
    report = fold.report("review-1")
    print(report.describe() if report else "the history always fit: nothing compacted")


if __name__ == "__main__":
    main(*(sys.argv[1:3] + ["http://localhost:8000/v1", "gpt-4o"][len(sys.argv[1:3]) :]))
