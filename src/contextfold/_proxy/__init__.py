"""`contextfold serve`: an OpenAI- and Anthropic-compatible proxy that compacts every
request on its way upstream.

An outer layer: it uses only the public `contextfold` API, and this package (Starlette,
uvicorn, aiohttp, redis, prometheus_client: the `proxy` extra) is imported only by
`contextfold.serve`.

Rules:
1. `run` binds the socket itself, so `port=0` picks a free port, and prints
   `contextfold serve listening on http://HOST:PORT` as the first line of stderr before
   it serves.
2. Logs go to stderr through the `contextfold.proxy` logger; no log line carries request
   headers or bodies.
3. With `workers` > 1, uvicorn's supervisor runs that many processes on the one socket,
   each building its own app from the config. They share sessions through the store as
   replicas do (`_sessions` rule 3): a session may move between workers. `/metrics` then
   counts per worker.
4. A serving process holds many long-lived objects (sessions, views, caches), and each
   full pass of the garbage collector over them stalls every request in flight (measured
   under load: eleven full passes of ~140 ms in 20 s). So the process freezes what it
   holds at start-up and collects less often (`GC_THRESHOLDS`); objects are still freed
   by reference counting the moment nothing holds them.
"""

from __future__ import annotations

import functools
import gc
import socket
import sys
from typing import Final

import uvicorn
from starlette.applications import Starlette
from uvicorn.supervisors import Multiprocess

from ._app import create_app
from ._config import Config

__all__ = ["GC_THRESHOLDS", "Config", "bind", "create_app", "run", "served_app"]

GC_THRESHOLDS: Final = (50_000, 20, 100)
"""Allocations before a young collection, and young/middle collections before the next
generation's (CPython's defaults: 700, 10, 10); rule 4."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host:port` (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto named explicitly: asyncio sets TCP_NODELAY only on sockets that say they are
    # TCP, and without it every answer waits out a delayed ACK (~40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2_048)
    sock.set_inheritable(True)
    return sock


def served_app(config: Config) -> Starlette:
    """The app for a serving process, its garbage collector tuned (rule 4)."""
    app = create_app(config)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    return app


def run(
    config: Config,
    host: str = "127.0.0.1",
    port: int = 8_787,
    log_level: str = "warning",
    workers: int = 1,
) -> None:
    """Run the proxy until interrupted (rules 1 and 3)."""
    app = served_app(config) if workers == 1 else None
    sock = bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"contextfold serve listening on http://{shown}:{bound}", file=sys.stderr, flush=True)
    if app is not None:
        server_config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on")
        uvicorn.Server(server_config).run(sockets=[sock])
        return
    factory = functools.partial(served_app, config)
    server_config = uvicorn.Config(
        factory,
        factory=True,
        workers=workers,
        log_level=log_level,
        access_log=False,
        lifespan="on",
    )
    Multiprocess(server_config, sockets=[sock]).run()
