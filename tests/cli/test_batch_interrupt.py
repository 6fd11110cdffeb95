"""`contextfold batch` under Ctrl-C: it stops at once, leaves OUT as it was, and no workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from .conftest import CHAT_EXAMPLE, EXECUTABLE, clean_env


def _slow_input(path: Path, lines: int) -> None:
    """Distinct conversations (no cache hits), so the batch runs for a while."""
    messages = json.loads(CHAT_EXAMPLE.read_text())["messages"]
    with path.open("w") as fh:
        for n in range(lines):
            tagged = [
                {**m, "content": f"[{n}] {m['content']}"} if m.get("content") else m
                for m in messages
            ]
            fh.write(json.dumps({"id": f"run-{n}", "messages": tagged}) + "\n")


def _wait_for_partial_output(directory: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(p.stat().st_size for p in directory.glob(".out.jsonl.*.tmp")):
            return
        assert process.poll() is None, "the batch ended before it could be interrupted"
        time.sleep(0.02)
    raise AssertionError("no output was written within 60 s")


def test_ctrl_c_stops_the_batch_and_leaves_the_output_untouched(tmp_path: Path) -> None:
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _slow_input(source, 400)
    target.write_text("the previous results\n")
    process = subprocess.Popen(
        [str(EXECUTABLE), "batch", str(source), str(target), "-b", "40%", "-j", "2"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        _wait_for_partial_output(tmp_path, process)
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C on a terminal sends
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    stderr = err.decode()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert "Worker" not in stderr, stderr
    assert stderr.startswith("contextfold: interrupted: "), stderr
    assert f"{target} is unchanged" in stderr
    assert target.read_text() == "the previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]
    time.sleep(0.5)
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return
    raise AssertionError("a worker outlived the interrupted batch")
