"""What `contextfold serve` adds: latency per request, throughput, memory per session.

Usage: .venv/bin/python -m bench.proxy [--requests N] [--seconds S] [--no-write]

Rules:
1. Three processes on this machine: a minimal OpenAI-compatible upstream (Starlette on
   uvicorn; a fixed answer after `--upstream-ms` of simulated model time, 0 for latency),
   `contextfold serve` in front of it (SQLite store), and the client. Every measurement
   sends the same bodies to the upstream directly and through the proxy, interleaved.
2. Latency: one session continuing turn by turn (each request = the previous one plus an
   assistant turn and a tool result); added latency is the proxied time minus the direct
   time of the same turn, summarized as p50 and p99. Sessions: short (a few messages),
   1,000 messages that fit the window (forwarded byte for byte), and 1,000 messages
   compacted to a 32k window.
3. Throughput: 50 sessions at once (asyncio on uvloop, aiohttp, one connection each), each
   request continuing its session, for `--seconds`; requests per second direct and through
   the proxy, with a 50 ms upstream (a model answers in tens of milliseconds at best), so
   the upstream's ceiling is 50 / 0.05 s = 1,000 req/s; direct and proxied alternate in
   three slices each, so both see the same background load. With it, the CPU seconds per
   request of the proxy, the upstream and the load generator (Linux /proc): on a small
   machine all three share the cores, so the proxy's CPU per request is its cost.
   "Limited by the upstream" is met when the proxy passes at least 90% of the requests
   per second the upstream serves directly to the same load. A bare pass-through (plain
   ASGI and aiohttp, no contextfold) takes the same load in the same slices: what the
   extra hop alone costs on this machine.
4. Memory per idle session: everything the proxy keeps for a session in memory (manager,
   view, caches, the last body's prefix) measured with tracemalloc after 300 sessions of
   20 messages went through the proxy's request path (`Proxy._turn`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from .common import ROOT, machine, table, write_section

ANSWER = {
    "id": "chatcmpl-bench",
    "object": "chat.completion",
    "created": 0,
    "model": "bench",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "ok"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}
WINDOWS = ("bench-fits=1000000", "bench-32k=32768")
SESSIONS, UPSTREAM_MS = 50, 50.0
TARGET_MS, TARGET_SHARE = 5.0, 0.9


def upstream_app(delay: float) -> Any:
    """The upstream of rule 1."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def chat(request: Request) -> JSONResponse:
        await request.body()
        if delay:
            await asyncio.sleep(delay)
        return JSONResponse(ANSWER)

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def _serve(app: Any) -> None:
    """Serve `app` on a free local port, printed as the first line of stderr."""
    import uvicorn

    from contextfold._proxy import bind

    sock = bind("127.0.0.1", 0)
    print(sock.getsockname()[1], file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="error", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


def passthrough_app(upstream_url: str) -> Any:
    """A bare pass-through (rule 3's baseline): plain ASGI on uvicorn and one pooled
    aiohttp session, the same transport as the proxy, with no contextfold in between."""
    import aiohttp

    client: list[aiohttp.ClientSession] = []
    dropped = {b"host", b"content-length"}
    hop = {"content-length", "transfer-encoding", "connection"}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if not client:
            client.append(aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1000)))
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"] if k not in dropped]
        url = upstream_url + scope["path"].removeprefix("/v1")
        async with client[0].post(url, data=b"".join(chunks), headers=headers) as answer:
            content = await answer.read()
            kept = [(k.lower().encode(), v.encode()) for k, v in answer.headers.items()]
        kept = [(k, v) for k, v in kept if k.decode() not in hop]
        kept.append((b"content-length", str(len(content)).encode()))
        await send({"type": "http.response.start", "status": answer.status, "headers": kept})
        await send({"type": "http.response.body", "body": content})

    return app


@dataclass(frozen=True)
class Served:
    url: str
    pid: int

    def cpu(self) -> float:
        """CPU seconds the process used so far (0 where /proc is missing)."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def _process(command: list[str], parse: Any) -> Iterator[Served]:
    process = subprocess.Popen(command, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stderr is not None
    try:
        yield Served(parse(process.stderr.readline().decode()), process.pid)
    finally:
        process.terminate()
        process.wait(20)
        process.stderr.close()


def upstream(delay_ms: float) -> Any:
    command = [sys.executable, "-m", "bench.proxy", "--serve-upstream", str(delay_ms)]
    return _process(command, lambda line: f"http://127.0.0.1:{int(line)}/v1")


def passthrough(upstream_url: str) -> Any:
    command = [sys.executable, "-m", "bench.proxy", "--serve-passthrough", upstream_url]
    return _process(command, lambda line: f"http://127.0.0.1:{int(line)}/v1")


def proxy(upstream_url: str, store: str) -> Any:
    command = [sys.executable, "-m", "contextfold", "serve", "--port", "0", "--store", store]
    command += ["--openai-upstream", upstream_url]
    for window in WINDOWS:
        command += ["--window", window]
    return _process(command, lambda line: line.split()[-1] + "/v1")


# --- sessions -------------------------------------------------------------------------------


def _turn(n: int, words: int = 60) -> list[dict[str, Any]]:
    """One agent turn: a tool call and its result (~`words` * 2 tokens)."""
    call = {"id": f"call_{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    text = " ".join(f"line{n}_{i} value={i * n}" for i in range(words))
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"call_{n}", "content": text},
    ]


def session(messages: int, tag: str) -> list[dict[str, Any]]:
    """A session of about `messages` messages."""
    items: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a benchmark agent."},
        {"role": "user", "content": f"Session {tag}: read everything."},
    ]
    turn = 0
    while len(items) < messages:
        items += _turn(turn)
        turn += 1
    return items


def _body(model: str, items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"model": model, "messages": items, "max_tokens": 256}).encode()


def latency(base: str, proxied: str, model: str, messages: int, requests: int) -> list[float]:
    """Added seconds per request for one continuing session (rule 2)."""
    items = session(messages, f"{model}-{messages}")
    added = []
    with httpx.Client(timeout=60) as client:
        for n in range(requests + 5):
            items += _turn(10_000 + n)
            body = _body(model, items)
            times = []
            for url in (base, proxied):
                start = time.perf_counter()
                client.post(url + "/chat/completions", content=body).raise_for_status()
                times.append(time.perf_counter() - start)
            if n >= 5:  # the first requests start the session and warm the counters
                added.append(times[1] - times[0])
    return added


async def _sessions_for(url: str, seconds: float, sessions: int) -> int:
    """Requests done by `sessions` concurrent continuing sessions in `seconds` (rule 3);
    each session is its own agent with its own client, made before the clock starts."""
    import aiohttp

    done = 0
    json_type = {"content-type": "application/json"}

    async def one(client: aiohttp.ClientSession, index: int, stop: float) -> None:
        nonlocal done
        items, n = session(10, f"{url}-{index}-{time.time()}"), 0
        while time.perf_counter() < stop:
            items += _turn(n)
            n += 1
            body = _body("bench-32k", items)
            async with client.post(url + "/chat/completions", data=body, headers=json_type) as r:
                r.raise_for_status()
                await r.read()
            done += 1
            if len(items) > 60:  # a new session now and then, as new conversations start
                items = session(10, f"{url}-{index}-{time.time()}")

    clients = [
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) for _ in range(sessions)
    ]
    try:
        stop = time.perf_counter() + seconds
        await asyncio.gather(*(one(c, i, stop) for i, c in enumerate(clients)))
    finally:
        for client in clients:
            await client.close()
    return done


def throughput(
    up: Served, via: Served, seconds: float, rounds: int = 3, bare: Served | None = None
) -> dict[str, float]:
    """Requests per second and CPU milliseconds per request, direct, proxied and (with
    `bare`) through the bare pass-through (rule 3), in `rounds` interleaved slices so all
    see the same background load."""
    try:
        import uvloop

        run_loop: Any = uvloop.run
    except ImportError:
        run_loop = asyncio.run
    hops = {"direct": None, "proxied": via, **({"bare": bare} if bare else {})}
    targets = {"direct": up.url, "proxied": via.url, **({"bare": bare.url} if bare else {})}
    for url in targets.values():  # warm: imports, tokenizer, connections
        run_loop(_sessions_for(url, min(1.0, seconds), SESSIONS))
    done = dict.fromkeys(targets, 0)
    cpu = {f"{who}_{name}": 0.0 for who in ("upstream", "client", "hop") for name in targets}
    for _ in range(rounds):
        for name, url in targets.items():
            hop = hops[name]
            marks = (up.cpu(), hop.cpu() if hop else 0.0, time.process_time())
            done[name] += run_loop(_sessions_for(url, seconds / rounds, SESSIONS))
            cpu[f"upstream_{name}"] += up.cpu() - marks[0]
            cpu[f"hop_{name}"] += (hop.cpu() if hop else 0.0) - marks[1]
            cpu[f"client_{name}"] += time.process_time() - marks[2]
    out: dict[str, float] = {name: count / seconds for name, count in done.items()}
    for name in targets:
        count = max(1, done[name])
        out[f"upstream_cpu_{name}"] = cpu[f"upstream_{name}"] / count * 1e3
        out[f"client_cpu_{name}"] = cpu[f"client_{name}"] / count * 1e3
        out[f"hop_cpu_{name}"] = cpu[f"hop_{name}"] / count * 1e3
    out["proxy_cpu"] = out["hop_cpu_proxied"]
    return out


def memory_per_session(count: int = 300) -> float:
    """Bytes held per idle session (rule 4)."""
    from contextfold._proxy._app import Proxy
    from contextfold._proxy._config import Config
    from contextfold._proxy._wire import ENDPOINTS

    endpoint = ENDPOINTS["/v1/chat/completions"]
    with tempfile.TemporaryDirectory() as folder:
        proxy = Proxy(Config(store=f"sqlite:{folder}/m.db"))
        proxy._turn({}, endpoint, _body("gpt-4o", session(20, "warm")))
        bodies = [_body("gpt-4o", session(20, f"memory-{index}")) for index in range(count)]
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for body in bodies:
            proxy._turn({}, endpoint, body)
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        proxy.sessions.close()
    return held / count


# --- the section ------------------------------------------------------------------------------


def _ms(values: list[float], q: float) -> str:
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3:.2f} ms"


def run(requests: int, seconds: float, idle: int = 300) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        with upstream(0) as up, proxy(up.url, f"sqlite:{folder}/latency.db") as via:
            for name, model, messages in (
                ("short session (~10 messages)", "bench-fits", 10),
                ("1,000 messages, fits (forwarded as sent)", "bench-fits", 1_000),
                ("1,000 messages, compacted to a 32k window", "bench-32k", 1_000),
            ):
                results[name] = latency(up.url, via.url, model, messages, requests)
        with (
            upstream(UPSTREAM_MS) as up,
            proxy(up.url, f"sqlite:{folder}/load.db") as via,
            passthrough(up.url) as bare,
        ):
            results["load"] = load = throughput(up, via, seconds, bare=bare)
            load["loadavg"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0
            results["throughput"] = (load["direct"], load["proxied"])
    results["memory"] = memory_per_session(idle)
    return results


def _met(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def section(results: dict[str, Any], command: str) -> str:
    rows = [
        (name, _ms(added, 0.5), _ms(added, 0.99), len(added))
        for name, added in results.items()
        if isinstance(added, list)
    ]
    long = [sorted(v)[len(v) // 2] * 1e3 for k, v in results.items() if k.startswith("1,000")]
    load = results["load"]
    direct, proxied = load["direct"], load["proxied"]
    share = proxied / direct
    ceiling = SESSIONS / (UPSTREAM_MS / 1e3)
    lines = [
        "## Proxy overhead (`contextfold serve`)",
        "",
        f"`{command}` ({machine()}). A local OpenAI-compatible upstream answers at once "
        f"(latency) or after {UPSTREAM_MS:g} ms (throughput); client, proxy (SQLite store) "
        "and upstream are three processes on this machine. Added latency = time through the "
        "proxy minus time direct, for the same body, interleaved; each session continues turn "
        "by turn.",
        "",
        *table(("continuing session", "added p50", "added p99", "requests"), rows),
        "",
        f"Target p50 under {TARGET_MS:g} ms for a continuing 1,000-message session: "
        f"{_met(bool(long) and max(long) < TARGET_MS)} (worst 1,000-message p50 "
        f"{max(long, default=0.0):.2f} ms).",
        "",
        f"Throughput, {SESSIONS} concurrent sessions, {UPSTREAM_MS:g} ms upstream (its ceiling: "
        f"{ceiling:,.0f} req/s): {direct:,.0f} req/s direct, {proxied:,.0f} req/s through the "
        f"proxy ({share:.0%} of direct). CPU per request: proxy {load['proxy_cpu']:.2f} ms, "
        f"upstream {load['upstream_cpu_proxied']:.2f} ms, load generator "
        f"{load['client_cpu_proxied']:.2f} ms (all three share the machine's cores; load "
        f"average {load['loadavg']:.1f} at the end of the run). At that CPU per request one core "
        f"runs the proxy at about {1e3 / max(load['proxy_cpu'], 1e-3):,.0f} req/s.",
        "",
        f"The same load through a bare pass-through (plain ASGI on uvicorn and aiohttp, the "
        f"proxy's transport with no contextfold in between): {load['bare']:,.0f} req/s "
        f"({load['bare'] / direct:.0%} of direct) at {load['hop_cpu_bare']:.2f} ms of CPU per "
        f"request; the proxy passes {proxied / max(load['bare'], 1e-9):.0%} of what the bare "
        "hop passes (each share moves by several points from run to run on this machine).",
        "",
        f"Target, throughput limited by the upstream (through the proxy at least "
        f"{TARGET_SHARE:.0%} of direct): {_met(share >= TARGET_SHARE)}.",
        "",
        f"Memory per idle session (view, caches, manager, last body's prefix; 20 messages): "
        f"{results['memory'] / 1024:,.0f} KiB.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--serve-upstream", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--serve-passthrough", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_upstream is not None:
        _serve(upstream_app(args.serve_upstream / 1000))
        return 0
    if args.serve_passthrough is not None:
        _serve(passthrough_app(args.serve_passthrough))
        return 0
    results = run(args.requests, args.seconds)
    command = ".venv/bin/python -m bench.proxy"
    if (args.requests, args.seconds) != (200, 10.0):
        command += f" --requests {args.requests} --seconds {args.seconds:g}"
    text = section(results, command)
    print(text)
    if not args.no_write:
        write_section(text, Path(os.environ.get("CONTEXTFOLD_BENCHMARKS", ROOT / "BENCHMARKS.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
