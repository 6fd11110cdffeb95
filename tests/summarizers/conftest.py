"""Fixtures for the summarizer tests: a real local LLM server and isolated credentials."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .llm_server import LLMServer


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A fresh server on 127.0.0.1 for one test."""
    with LLMServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's keys or base URLs."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
