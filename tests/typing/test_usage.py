"""A strict caller's script type-checks against contextfold's public types (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

USAGE = Path(__file__).with_name("usage.py")


def test_typed_usage_passes_mypy_strict() -> None:
    api = pytest.importorskip("mypy.api")
    pytest.importorskip("openai")
    pytest.importorskip("anthropic")
    out, err, status = api.run(["--strict", str(USAGE)])
    assert status == 0, out + err
    assert "cast(" not in USAGE.read_text()
