"""The bench smoke tests need the bench extra (langchain-core); they skip cleanly without it."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core", reason="the bench extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")
