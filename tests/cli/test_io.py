"""Bad input: exit 2 and one line naming the file, message index and field; never a traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf

from ..adapters import anthropic_strategies, chat_strategies, responses_strategies
from .conftest import CHAT_EXAMPLE, assert_one_line_error, invoke, run, run_on_a_terminal

BAD_FILES: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("empty", b"", ("empty input",)),
    ("blank", b"  \n\t\n", ("empty input",)),
    ("truncated", CHAT_EXAMPLE.read_bytes()[:5000], ("not valid JSON", "line")),
    ("binary", bytes(range(256)) * 4, ("not UTF-8 text", "byte 0x80", "offset 128")),
    ("number", b"42", ("expected a list of messages or a request body",)),
    ("messages-number", b'{"model": "gpt-4o", "messages": 7}', ("field 'messages'",)),
    (
        "unknown-role",
        b'[{"role": "user", "content": "hi"}, {"role": "wizard", "content": "x"}]',
        ("message 1", "field 'role'", "unknown role 'wizard'"),
    ),
    ("content-number", b'[{"role": "user", "content": 5}]', ("message 0", "field 'content'")),
    ("no-messages", b"[]", ("at least one message is required",)),
    ("nested", b"[" * 100_000 + b"]" * 100_000, ("nested too deeply",)),
]


@pytest.mark.parametrize(("name", "data", "fragments"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_files_are_one_line_errors(
    tmp_path: Path, name: str, data: bytes, fragments: tuple[str, ...]
) -> None:
    path = tmp_path / f"{name}.json"
    path.write_bytes(data)
    assert_one_line_error(run("compact", path, "-b", "1000"), str(path), *fragments)


def test_bad_stdin_is_named_stdin() -> None:
    assert_one_line_error(run("compact", "-b", "1000", stdin=b"{"), "<stdin>", "not valid JSON")


def test_a_terminal_on_stdin_is_not_waited_on() -> None:
    code, screen = run_on_a_terminal("compact", "-b", "1000")
    assert code == 2
    assert "no input: give a FILE, or pipe a JSON payload into stdin" in screen


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    assert_one_line_error(run("compact", missing, "-b", "1000"), str(missing), "No such file")
    assert_one_line_error(run("inspect", tmp_path), str(tmp_path), "Is a directory")


def test_unwritable_report_is_one_line(tmp_path: Path) -> None:
    report = tmp_path / "missing-dir" / "report.json"
    ran = run("compact", CHAT_EXAMPLE, "-b", "5000", "--report", report)
    assert_one_line_error(ran, str(report), "No such file")


def test_tool_result_without_call_is_repaired_and_reported() -> None:
    payload = [
        {"role": "user", "content": "run the tests"},
        {"role": "tool", "tool_call_id": "call_gone", "content": "3 passed"},
        {"role": "assistant", "content": "All green."},
        {"role": "user", "content": "thanks"},
    ]
    ran = run("compact", "-b", "1000", stdin=json.dumps(payload).encode())
    assert ran.code == 0, ran
    assert "Traceback" not in ran.stderr
    out = json.loads(ran.stdout)
    assert cf.validate(out) == []
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    assert "repaired message 1: removed a tool result with no call" in ran.stderr


def test_a_byte_order_mark_is_accepted() -> None:
    payload = b'\xef\xbb\xbf[{"role": "user", "content": "hi"}]'
    ran = run("compact", "-b", "1000", stdin=payload)
    assert ran.code == 0, ran
    assert json.loads(ran.stdout) == [{"role": "user", "content": "hi"}]


def test_lone_surrogates_survive_the_round_trip() -> None:
    text = '[{"role": "user", "content": "half a pair: \\ud800 and \\u00e9"}]'
    ran = run("compact", "-b", "1000", stdin=text.encode())
    assert ran.code == 0, ran
    assert json.loads(ran.stdout) == json.loads(text)


def big_payload(megabytes: int) -> list[dict[str, Any]]:
    """A coding session of `megabytes` MB: every tool result is a distinct 1 MB file view."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(megabytes):
        view = "".join(
            f"{j:6d}\tdef handler_{i}_{j}(request): return respond(request, code={j})\n"
            for j in range(16_000)
        )
        arguments = json.dumps({"path": f"m{i}.py"})
        function = {"name": "view_file", "arguments": arguments}
        call: dict[str, Any] = {"id": f"call_{i}", "type": "function", "function": function}
        messages += [
            {"role": "user", "content": f"Step {i}: show me m{i}.py"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": view},
        ]
    return messages


def test_a_50_mb_payload_is_compacted(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(big_payload(50)))
    assert path.stat().st_size > 50_000_000
    report_file = tmp_path / "report.json"
    started = time.perf_counter()
    ran = run("compact", path, "-b", "100000", "-m", "gpt-4o", "--report", report_file)
    seconds = time.perf_counter() - started
    assert ran.code == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert cf.validate(out) == []
    report = json.loads(report_file.read_text())
    assert report["fits"] is True
    assert report["tokens_after"] <= 100_000 < report["tokens_before"]
    assert seconds < 60, f"50 MB took {seconds:.1f} s"


def _check_outcome(code: int, stdout: str, stderr: str) -> None:
    assert "Traceback" not in stderr
    if code == 2:
        assert stdout == ""
        assert stderr.startswith("contextfold: error: ")
        assert stderr.count("\n") == 1
        return
    assert code == 0, stderr
    # The output is valid in the format the CLI read (named first on stderr): a repaired
    # payload may lose the blocks that told the formats apart.
    fmt = stderr.split(": ", 1)[1].split(",", 1)[0]
    assert cf.validate(json.loads(stdout), format=fmt) == []


def _damaged(value: Any, path: list[Any], replacement: Any) -> Any:
    """`value` with the element at `path` replaced (or deleted when the path ends in a key)."""
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, list) and isinstance(head, int) and value:
        items = list(value)
        items[head % len(items)] = _damaged(items[head % len(items)], rest, replacement)
        return items
    if isinstance(value, dict) and value:
        key = sorted(value)[head % len(value)] if isinstance(head, int) else head
        fields = dict(value)
        if not rest and replacement is None:
            fields.pop(key, None)
        else:
            fields[key] = _damaged(fields[key], rest, replacement)
        return fields
    return replacement


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    payload=st.one_of(
        chat_strategies.message_lists(),
        chat_strategies.bodies(),
        anthropic_strategies.payloads(),
        responses_strategies.bodies(),
    ),
    path=st.lists(st.integers(0, 7), max_size=4),
    replacement=JSON_VALUES,
    budget=st.integers(1, 400),
)
def test_damaged_payloads_never_crash(
    payload: Any, path: list[int], replacement: Any, budget: int
) -> None:
    text = json.dumps(_damaged(payload, path, replacement))
    ran = invoke("compact", "-b", str(budget), stdin=text)
    _check_outcome(ran.code, ran.stdout, ran.stderr)
