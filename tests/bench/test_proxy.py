"""The proxy benchmark in a tiny mode: every row is measured and the section comes out."""

from __future__ import annotations

import pytest

pytest.importorskip("uvicorn", reason="the proxy extra is not installed")

from bench import proxy


def test_every_row_is_measured_and_written() -> None:
    results = proxy.run(requests=3, seconds=0.5, idle=5)
    rows = [name for name, value in results.items() if isinstance(value, list)]
    assert len(rows) == 3
    assert all(len(results[name]) == 3 for name in rows)
    direct, proxied = results["throughput"]
    assert direct > 0
    assert proxied > 0
    assert results["load"]["proxy_cpu"] >= 0
    assert results["load"]["bare"] > 0  # the bare pass-through took the same load
    assert results["memory"] > 1_000  # a session holds its view: kilobytes, not bytes
    text = proxy.section(results, "cmd")
    assert text.startswith("## Proxy overhead (`contextfold serve`)\n")
    assert all(f"| {name} |" in text for name in rows)
    assert "Target, throughput limited by the upstream" in text
    assert "bare pass-through" in text
