"""The README's integration examples run end to end against an OpenAI-compatible server."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="langchain-openai is not installed")
pytest.importorskip("litellm", reason="the litellm extra is not installed")

from ..servers.chat_model import FINAL, AgentScript, ChatModelServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")  # LiteLLM's
@pytest.mark.parametrize("name", ["langchain_agent", "langgraph_agent", "litellm_loop"])
def test_example_runs_against_a_local_server(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with ChatModelServer(AgentScript(turns=2), window=8_192) as server:
        module.main(server.base_url, "gpt-4o")
    printed = capsys.readouterr().out.splitlines()
    assert printed == [FINAL, "the history always fit: nothing compacted"]
    assert len(server.log.accepted) == 3
    assert server.log.refusals == []
