"""`serve`: run the compacting proxy, an OpenAI- and Anthropic-compatible server.

Rules:
1. The proxy and its dependencies (the `proxy` extra: Starlette, uvicorn, aiohttp, redis)
   are imported only when `serve` is called; without them it raises ConfigurationError
   naming the extra to install.
2. Settings are keyword arguments, checked here: a bad one is a ConfigurationError saying
   what was expected, before anything listens.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._errors import ConfigurationError


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8787,
    openai_upstream: str = "https://api.openai.com/v1",
    anthropic_upstream: str = "https://api.anthropic.com/v1",
    store: str = "sqlite:contextfold-proxy.db",
    windows: Mapping[str, int] | None = None,
    default_window: int | None = None,
    high: float = 0.9,
    low: float = 0.6,
    session_ttl: float = 3_600.0,
    token: str | None = None,
    max_body: int = 32 * 1024 * 1024,
    recall_rounds: int = 3,
    log_level: str = "warning",
    workers: int = 1,
) -> None:
    """Serve the proxy on `host:port` until interrupted (`port=0`: a free port; the
    address is the first line on stderr)."""
    if not 0 < low < high <= 1:
        raise ConfigurationError(
            f"low and high must satisfy 0 < low < high <= 1, got {low}, {high}"
        )
    if not 0 <= port <= 65_535 or max_body < 1 or recall_rounds < 0 or session_ttl <= 0:
        raise ConfigurationError(
            "port must be 0-65535, max_body and session_ttl positive, recall_rounds >= 0"
        )
    if workers < 1:
        raise ConfigurationError(f"workers must be at least 1, got {workers}")
    bad = {m: w for m, w in (windows or {}).items() if not isinstance(w, int) or w < 1}
    if bad:
        raise ConfigurationError(f"windows must be positive token counts, got {bad}")
    try:
        from ._proxy import Config, run  # noqa: PLC0415 - the proxy extra is optional
    except ImportError as exc:
        raise ConfigurationError(
            f"serve needs the proxy extra: pip install 'contextfold[proxy]' ({exc})"
        ) from exc
    config = Config(
        openai_upstream=openai_upstream,
        anthropic_upstream=anthropic_upstream,
        store=store,
        windows=dict(windows or {}),
        default_window=default_window,
        high=high,
        low=low,
        ttl=session_ttl,
        token=token,
        max_body=max_body,
        recall_rounds=recall_rounds,
    )
    run(config, host, port, log_level, workers)
