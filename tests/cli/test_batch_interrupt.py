"""`contextfold batch` under Ctrl-C: it stops at once, leaves OUT as it was, and no workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
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


_AS_IN_A_TERMINAL = (
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
)
"""Start the command with Ctrl-C's default action, as a terminal's foreground job has it:
a test run started in the background by a shell without job control inherits SIGINT
ignored (POSIX), and so would the batch, which then runs to its end."""


def _signalled(tmp_path: Path, signum: signal.Signals) -> tuple[int, str]:
    """Run a batch into an existing OUT, send `signum` to its process group mid-run."""
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _slow_input(source, 400)
    target.write_text("the previous results\n")
    process = subprocess.Popen(
        [
            *_AS_IN_A_TERMINAL,
            str(EXECUTABLE),
            "batch",
            str(source),
            str(target),
            "-b",
            "40%",
            "-j",
            "2",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        _wait_for_partial_output(tmp_path, process)
        os.killpg(process.pid, signum)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert target.read_text() == "the previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]
    deadline = time.monotonic() + 10  # a dying process may take a moment to release its memory
    while _live_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _live_members(process.pid) == [], "a worker outlived the batch"
    return process.returncode, err.decode()


def _live_members(group: int) -> list[int]:
    """Processes of the group still running (zombies wait for init to reap them)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # it ended while we looked
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            live.append(int(stat.parent.name))
    return live


def test_ctrl_c_stops_the_batch_and_leaves_the_output_untouched(tmp_path: Path) -> None:
    code, stderr = _signalled(tmp_path, signal.SIGINT)  # what Ctrl-C on a terminal sends
    assert code == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert "Worker" not in stderr, stderr
    assert stderr.startswith("contextfold: interrupted: "), stderr
    assert f"{tmp_path / 'out.jsonl'} is unchanged" in stderr


def test_sigterm_ends_the_batch_without_leaving_a_temporary_file(tmp_path: Path) -> None:
    code, stderr = _signalled(tmp_path, signal.SIGTERM)  # `timeout`, a scheduler, systemd
    assert code == -signal.SIGTERM, stderr
