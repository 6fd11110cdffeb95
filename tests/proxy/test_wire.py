"""`_wire`: the proxy counts a request as the core counts the same body: its items, its
tools plus the recall tool, and its structured-output schema (as JSON text, `_tokens.
_accounting` rule 6, not as one more tool definition)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import contextfold as cf
from contextfold._proxy._config import open_store
from contextfold._proxy._sessions import Sessions
from contextfold._proxy._wire import ENDPOINTS, fixed_of, with_recall_tool

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        f"finding_{i}": {"type": "string", "description": f"What the review found in area {i}."}
        for i in range(12)
    },
    "required": ["finding_0"],
}
FORMS: dict[str, dict[str, Any]] = {
    "/v1/chat/completions": {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "review", "strict": True, "schema": SCHEMA},
        }
    },
    "/v1/responses": {
        "text": {"format": {"type": "json_schema", "name": "review", "schema": SCHEMA}}
    },
    "/v1/messages": {"output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}},
}
TOOL = {"name": "read_file", "description": "Read a file.", "parameters": {"type": "object"}}
TOOLS: dict[str, list[dict[str, Any]]] = {
    "/v1/chat/completions": [{"type": "function", "function": TOOL}],
    "/v1/responses": [{"type": "function", **TOOL}],
    "/v1/messages": [
        {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}
    ],
}


def _body(path: str, model: str) -> dict[str, Any]:
    items = [{"role": "user", "content": "Review the parser and report what you find."}]
    body: dict[str, Any] = {"model": model, "tools": TOOLS[path], **FORMS[path]}
    if path == "/v1/responses":
        return {**body, "input": items, "instructions": "Be brief."}
    if path == "/v1/messages":
        return {**body, "messages": items, "system": "Be brief.", "max_tokens": 512}
    return {**body, "messages": [{"role": "system", "content": "Be brief."}, *items]}


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5"])
@pytest.mark.parametrize("path", sorted(FORMS))
def test_the_proxy_counts_a_request_as_the_core_counts_its_body(
    path: str, model: str, tmp_path: Path
) -> None:
    """Before, the proxy counted the schema as one more tool definition: 444 tokens for the
    chat body with gpt-4o where the core counts 560 (and 8 more for Anthropic's)."""
    endpoint = ENDPOINTS[path]
    body = _body(path, model)
    sessions = Sessions(open_store(f"sqlite:{tmp_path / 's.db'}", 60.0), cf.Policy(), 60.0)
    items = body[endpoint.items]
    turn = sessions.turn(endpoint, body, items, 100_000, None)
    sent = {**body, "tools": with_recall_tool(body["tools"], endpoint.format)}
    assert turn.tokens == cf.count_tokens(sent, model, format=endpoint.format)
    without = {k: v for k, v in sent.items() if k not in FORMS[path]}
    assert turn.tokens > cf.count_tokens(without, model, format=endpoint.format)


def test_a_restored_session_counts_the_schema_as_it_did(tmp_path: Path) -> None:
    endpoint = ENDPOINTS["/v1/chat/completions"]
    body = _body("/v1/chat/completions", "gpt-4o")
    sessions = Sessions(open_store(f"sqlite:{tmp_path / 's.db'}", 60.0), cf.Policy(), 60.0)
    manager = sessions.turn(endpoint, body, body["messages"], 100_000, None).live.manager
    restored = cf.ContextManager.restore(manager.snapshot())
    assert restored.request_fields == {"response_format": body["response_format"]}
    assert restored.tokens() == manager.tokens()


def test_another_output_format_is_another_root() -> None:
    endpoint = ENDPOINTS["/v1/responses"]
    body = _body("/v1/responses", "gpt-4o")
    other = {**body, "text": {"format": {"type": "json_schema", "name": "r", "schema": {}}}}
    assert fixed_of(body, endpoint) != fixed_of(other, endpoint)
    plain = {k: v for k, v in body.items() if k != "text"}
    assert fixed_of(plain, endpoint)[3] is None
