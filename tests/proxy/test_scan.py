"""Reading bodies once: `scan` gives exactly `json.loads`'s value and where the items end,
`scan_rest` reads a continuing body past a known prefix to the same result (Hypothesis
properties over values, formatting and non-ASCII text), and the proxy sends upstream,
byte for byte, what it sent when it parsed every body whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextfold._proxy._config import Config
from contextfold._proxy._prefixes import RUNGS, Prefixes
from contextfold._proxy._scan import scan, scan_rest
from contextfold._proxy._wire import ENDPOINTS

pytest.importorskip("starlette", reason="the proxy extra is not installed")

from starlette.requests import Request

from contextfold._proxy._app import Proxy

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12),
    st.sampled_from(["]", "}", '"]}', "\\", "é€😀", ",]"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
items = st.lists(st.dictionaries(st.text(max_size=5), values, max_size=3), max_size=4)
members = st.dictionaries(st.sampled_from(["model", "tools", "max_tokens", "stream"]), values)
# (separators, ensure_ascii, indent): what different SDKs and hand-written clients send
styles = st.tuples(
    st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]),
    st.booleans(),
    st.sampled_from([None, 1]),
)


def _encode(body: dict[str, Any], style: tuple[tuple[str, str], bool, int | None]) -> bytes:
    separators, ascii_only, indent = style
    text = json.dumps(body, separators=separators, ensure_ascii=ascii_only, indent=indent)
    return text.encode("utf-8")


@given(head=members, old=items, new=items, tail=members, style=styles)
def test_scan_and_scan_rest_read_what_json_loads_reads(
    head: dict[str, Any],
    old: list[Any],
    new: list[Any],
    tail: dict[str, Any],
    style: tuple[tuple[str, str], bool, int | None],
) -> None:
    tail = {k: v for k, v in tail.items() if k not in head}
    first = _encode({**head, "messages": old, **tail}, style)
    scanned = scan(first, "messages")
    assert scanned.body == json.loads(first)
    assert scanned.head == head
    if not old:
        assert scanned.end is None
        return
    assert scanned.end is not None
    prefix = first[: scanned.end]
    assert prefix.endswith(b"}")
    later = _encode({**head, "messages": old + new, **tail}, style)
    assert later.startswith(prefix)
    rest = scan_rest(later, len(prefix), "messages")
    assert rest is not None
    assert rest.items == new
    assert {**head, "messages": old + rest.items, **rest.after} == json.loads(later)
    assert rest.end == scan(later, "messages").end


def test_scan_leaves_what_it_does_not_follow_to_json_loads() -> None:
    assert scan(b"[1, 2]", "messages").end is None
    assert scan(b'{"messages": "hi"}', "messages").body == {"messages": "hi"}
    twice = b'{"messages": [{"a": 1}], "messages": [{"b": 2}]}'
    assert scan(twice, "messages").body == json.loads(twice)
    assert scan(twice, "messages").end is None
    assert (
        scan(b'{"n": 123456789012345678901234567890}', "m").body["n"]
        == 123456789012345678901234567890
    )
    with pytest.raises(json.JSONDecodeError):
        scan(b'{"messages": [', "messages")
    assert scan_rest(b'{"messages": [{"a": 1}, oops', 23, "messages") is None
    assert scan_rest(b'{"messages": [{"a": 1}], "messages": []}', 23, "messages") is None


def test_prefixes_file_by_rung_and_forget() -> None:
    prefixes = Prefixes()
    short, long = b"x" * (RUNGS[-1] - 1), b"y" * (RUNGS[-1] + 10)
    prefixes.file("short", short)
    prefixes.file("long", long)
    assert prefixes.candidates(short + b"more") == []  # short prefixes are not filed
    assert prefixes.candidates(long + b"more") == ["long"]
    prefixes.file("long", long + b"y" * RUNGS[0])  # grown past the next rung: filed again
    assert prefixes.candidates(long + b"y" * RUNGS[0] + b"!") == ["long"]
    prefixes.drop("long")
    assert len(prefixes) == 0


# --- the proxy: reading past the prefix changes nothing upstream -----------------------------


def _request(path: str) -> Request:
    scope = {"type": "http", "method": "POST", "path": path, "query_string": b"", "headers": []}
    return Request(scope)


SYSTEM = "Be brief. " * 400  # past the smallest prefix rung


def _exchange(format: str, turn: int, lines: int) -> list[dict[str, Any]]:
    """One tool call and its result (non-ASCII text: byte offsets differ from characters)."""
    text = "".join(f"{turn}:{i:03d} välue_{turn}_{i} = compute({i})\n" for i in range(lines))
    if format == "anthropic":
        use: dict[str, Any] = {
            "type": "tool_use",
            "id": f"toolu_{turn}",
            "name": "read",
            "input": {},
        }
        result = {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": text}
        return [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    if format == "openai-responses":
        call: dict[str, Any] = {"type": "function_call", "call_id": f"c{turn}", "name": "read"}
        call["arguments"] = "{}"
        return [call, {"type": "function_call_output", "call_id": f"c{turn}", "output": text}]
    call = {"id": f"c{turn}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{turn}", "content": text},
    ]


def _body(format: str, items: list[Any]) -> dict[str, Any]:
    """A body the way each SDK orders it (items before or after the other members)."""
    if format == "anthropic":
        return {"max_tokens": 200, "messages": items, "model": "m", "system": SYSTEM}
    if format == "openai-responses":
        return {"input": items, "instructions": SYSTEM, "model": "m", "max_output_tokens": 200}
    return {"messages": [{"role": "system", "content": SYSTEM}, *items], "model": "m"}


PATHS: dict[str, str] = {e.format: path for path, e in ENDPOINTS.items()}


@pytest.mark.parametrize("format", sorted(PATHS))
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sizes=st.lists(st.integers(20, 60), min_size=8, max_size=24))
def test_reading_past_the_prefix_sends_upstream_what_a_whole_read_sends(
    format: str, sizes: list[int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("scan")
    windows = {"m": 3_000}
    fast = Proxy(Config(store=f"sqlite:{folder / 'fast.db'}", windows=windows))
    whole = Proxy(Config(store=f"sqlite:{folder / 'whole.db'}", windows=windows))
    whole.sessions.known = lambda raw, endpoint, named: None  # type: ignore[method-assign]
    path = PATHS[format]
    endpoint = ENDPOINTS[path]
    history: list[Any] = [{"role": "user", "content": "Read them all."}]
    hits = compacted = 0
    held: int | None = None  # where the previous body's items ended
    try:
        for turn, lines in enumerate(sizes):
            history += _exchange(format, turn, lines)
            raw = json.dumps(_body(format, history)).encode()
            hit = fast.sessions.known(raw, endpoint, None) is not None
            assert hit == (held is not None and held >= RUNGS[-1])  # filed prefixes only
            hits += hit
            got, _ = fast._outgoing(_request(path), endpoint, raw)
            expected, _ = whole._outgoing(_request(path), endpoint, raw)
            assert got.content == expected.content
            compacted += got.rounds is not None
            held = scan(raw, endpoint.items).end
        assert hits > 0
        assert compacted > 0
    finally:
        fast.sessions.close()
        whole.sessions.close()


def test_a_body_for_another_endpoint_does_not_continue_a_session(tmp_path: Path) -> None:
    proxy = Proxy(Config(store=f"sqlite:{tmp_path / 'p.db'}", windows={"m": 3_000}))
    chat, claude = ENDPOINTS["/v1/chat/completions"], ENDPOINTS["/v1/messages"]
    history = [{"role": "user", "content": SYSTEM * 2}, {"role": "assistant", "content": "ok"}]
    proxy._outgoing(_request("/v1/chat/completions"), chat, _raw({"messages": history}))
    more = {"messages": [*history, {"role": "user", "content": "go on"}], "max_tokens": 9}
    assert proxy.sessions.known(_raw(more), chat, None) is not None
    assert proxy.sessions.known(_raw(more), claude, None) is None  # same bytes, other format
    proxy.sessions.close()


def _raw(body: dict[str, Any]) -> bytes:
    return json.dumps({**body, "model": "m"}).encode()
