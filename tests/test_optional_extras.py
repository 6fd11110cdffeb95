"""The core works with none of the optional extras installed (STYLE rule 15)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKED = ("tiktoken", "tokenizers", "typer", "rich", "openai", "anthropic", "httpx", "pydantic")

SCRIPT = textwrap.dedent(
    f"""
    import importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {BLOCKED!r}:
                raise ImportError(f"blocked: {{name}}")
            return None

    sys.meta_path.insert(0, Block())
    import contextfold as cf

    messages = [{{"role": "system", "content": "Be brief."}}]
    for i in range(30):
        messages.append({{"role": "user", "content": f"question {{i}} " * 40}})
        messages.append({{"role": "assistant", "content": f"answer {{i}} " * 60}})
    counter = cf.counter_for("gpt-4o", "openai-chat")
    assert "heuristic" in counter.name, counter.name  # tiktoken is missing: the fallback
    total = cf.count_tokens(messages, "gpt-4o")
    result = cf.compact(messages, total // 4, "gpt-4o")
    assert result.report.fits and cf.validate(result.payload) == []
    manager = cf.ContextManager(total // 4, "gpt-4o")
    manager.extend(messages)
    assert manager.view()
    loaded = [m for m in sys.modules if m.split(".")[0] in {BLOCKED!r}]
    assert not loaded, loaded
    print("ok")
    """
)


def test_core_runs_without_any_extra() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "ok"
