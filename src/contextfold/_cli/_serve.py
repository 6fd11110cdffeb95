"""`contextfold serve`: run the compacting proxy (the `proxy` extra).

Rules:
1. Options map one to one onto the proxy's Config. A value out of an option's declared
   range is typer's usage error; one the proxy refuses exits 2 with one line. Either way
   the message names the option.
2. The proxy package is imported only here, only when the command runs; without the
   extra the command says which extra to install.
3. The first stderr line is the listening address (`--port 0` picks a free port).
"""

from __future__ import annotations

import enum
from typing import Annotated, Final

from contextfold import ContextFoldError
from contextfold import serve as serve_proxy

from ._io import fail
from ._params import option

EXAMPLE: Final = (
    "\b\nExample:\n"
    "  contextfold serve --port 8787 --openai-upstream https://api.openai.com/v1 \\\n"
    "      --anthropic-upstream https://api.anthropic.com/v1 --window my-model=32768\n"
    "  # then: OpenAI(base_url='http://127.0.0.1:8787/v1'),\n"
    "  #       Anthropic(base_url='http://127.0.0.1:8787')"
)

Host = Annotated[str, option("--host", help="Address to listen on.")]
Port = Annotated[
    int, option("--port", min=0, max=65_535, help="Port to listen on; 0 picks a free one.")
]
OpenAIUp = Annotated[
    str,
    option("--openai-upstream", metavar="URL", help="OpenAI-compatible base URL (…/v1)."),
]
AnthropicUp = Annotated[
    str, option("--anthropic-upstream", metavar="URL", help="Anthropic base URL (…/v1).")
]
Store = Annotated[
    str,
    option(
        "--store",
        metavar="URL",
        help="sqlite:PATH (one process) or redis://HOST:PORT/DB (replicas share it).",
    ),
]
Windows = Annotated[
    list[str] | None,
    option(
        "--window",
        metavar="MODEL=TOKENS",
        help="Context window of a model (repeatable; a name ending in * is a prefix).",
    ),
]
DefaultWindow = Annotated[
    int | None,
    option("--default-window", min=1, help="Window for models nobody knows (else: no compaction)."),
]
High = Annotated[
    float, option("--high", min=0.0, max=1.0, help="Compact past this fraction of the budget.")
]
Low = Annotated[float, option("--low", min=0.0, max=1.0, help="...down to this fraction.")]
Ttl = Annotated[float, option("--session-ttl", help="Seconds a session may stay idle.")]
Token = Annotated[
    str | None,
    option(
        "--token",
        envvar="CONTEXTFOLD_PROXY_TOKEN",
        help="Require clients to send this in x-contextfold-token.",
    ),
]
MaxBody = Annotated[int, option("--max-body-mb", min=1, help="Largest request body accepted.")]
Rounds = Annotated[int, option("--recall-rounds", min=0, help="Recall rounds per request.")]


class Level(enum.StrEnum):
    """Log levels `--log-level` takes (uvicorn's names)."""

    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


LogLevel = Annotated[Level, option("--log-level", help="How much to log.", case_sensitive=False)]
Workers = Annotated[
    int,
    option(
        "--workers",
        min=1,
        help="Processes serving the port; sessions move between them via the store.",
    ),
]


def serve(
    *,
    host: Host = "127.0.0.1",
    port: Port = 8787,
    openai_upstream: OpenAIUp = "https://api.openai.com/v1",
    anthropic_upstream: AnthropicUp = "https://api.anthropic.com/v1",
    store: Store = "sqlite:contextfold-proxy.db",
    window: Windows = None,
    default_window: DefaultWindow = None,
    high: High = 0.9,
    low: Low = 0.6,
    session_ttl: Ttl = 3600.0,
    token: Token = None,
    max_body_mb: MaxBody = 32,
    recall_rounds: Rounds = 3,
    log_level: LogLevel = Level.warning,
    workers: Workers = 1,
) -> None:
    """Run an OpenAI- and Anthropic-compatible proxy that keeps every request in its window."""
    if not 0 < low < high <= 1:
        fail(f"--low {low:g}, --high {high:g}: need 0 < low < high <= 1")
    if not session_ttl > 0:
        fail(f"--session-ttl {session_ttl:g}: give the seconds a session may stay idle, above 0")
    try:
        windows = dict(_window(w) for w in window or [])
    except ValueError as exc:
        fail(f"--window: {exc}")
    try:
        serve_proxy(
            host=host,
            port=port,
            openai_upstream=openai_upstream,
            anthropic_upstream=anthropic_upstream,
            store=store,
            windows=windows,
            default_window=default_window,
            high=high,
            low=low,
            session_ttl=session_ttl,
            token=token,
            max_body=max_body_mb * 1024 * 1024,
            recall_rounds=recall_rounds,
            log_level=log_level.value,
            workers=workers,
        )
    except (ContextFoldError, OSError, ValueError) as exc:  # a taken port, a bad store ...
        fail(f"serve: {exc}")


def _window(text: str) -> tuple[str, int]:
    """`MODEL=TOKENS` as given to `--window`; ValueError saying what is wrong."""
    model, sep, tokens = text.partition("=")
    if not sep or not model.strip() or not tokens.strip().isdigit() or int(tokens) < 1:
        raise ValueError(f"expected MODEL=TOKENS (e.g. gpt-4o=128000), got {text!r}")
    return model.strip(), int(tokens)
