"""Large inputs show what `compact` is doing on a terminal, and nothing on a pipe (issue 15)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

from .conftest import EXECUTABLE, clean_env


def large_session(path: Path) -> None:
    """A session of just over 8 MB: many read_file results."""
    listing = "\n".join(f"{i:5d}  def handler_{i}(request): return None" for i in range(4_000))
    messages: list[dict[str, object]] = [{"role": "user", "content": "Read every file."}]
    for n in range(50):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": listing})
    messages.append({"role": "user", "content": "Summarize."})
    path.write_text(json.dumps(messages))
    assert path.stat().st_size > 8 * 1024 * 1024


def compact(path: Path, stderr: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [EXECUTABLE, "compact", str(path), "--budget", "20000", "--model", "gpt-4o"],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        env={**clean_env(), "TERM": "xterm", "COLUMNS": "100"},
    )


def read_all(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65_536)
        except OSError:  # the terminal closed with the child
            return out
        if not chunk:
            return out
        out += chunk


def test_a_large_input_shows_its_phases_on_a_terminal(tmp_path: Path) -> None:
    session = tmp_path / "large.json"
    large_session(session)
    main, child = pty.openpty()
    process = compact(session, child)
    os.close(child)
    shown = read_all(main).decode("utf-8", "replace")  # read while it runs: no full buffer
    os.close(main)
    assert process.wait(timeout=300) == 0, shown
    assert "compacting" in shown
    assert "MB)" in shown
    assert "tokens (budget 20,000, fits)" in shown


def test_a_pipe_gets_the_summary_only(tmp_path: Path) -> None:
    session = tmp_path / "large.json"
    large_session(session)
    process = compact(session, subprocess.PIPE)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0
    assert "compacting" not in stderr.decode()
    assert b"\x1b" not in stderr
