"""Without its framework an integration fails to import with the extra to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import importlib, importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == sys.argv[1]:
                raise ImportError(f"blocked: {name}")
            return None

    sys.meta_path.insert(0, Block())
    import contextfold.integrations  # the package itself needs nothing
    try:
        importlib.import_module(sys.argv[2])
    except ImportError as exc:
        print(exc)
    """
)


@pytest.mark.parametrize(
    ("framework", "module", "extra"),
    [
        ("agents", "contextfold.integrations.openai_agents", "contextfold[openai-agents]"),
        ("pydantic_ai", "contextfold.integrations.pydantic_ai", "contextfold[pydantic-ai]"),
        ("langchain", "contextfold.integrations.langchain", "contextfold[langchain]"),
        ("langchain_core", "contextfold.integrations.langchain", "contextfold[langchain]"),
        ("langgraph", "contextfold.integrations.langchain", "contextfold[langchain]"),
        ("langgraph", "contextfold.integrations.langgraph", "contextfold[langchain]"),
        ("litellm", "contextfold.integrations.litellm", "contextfold[litellm]"),
    ],
)
def test_the_error_names_the_extra(framework: str, module: str, extra: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT, framework, module],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert f"pip install '{extra}'" in ran.stdout
