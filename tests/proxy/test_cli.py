"""`contextfold serve` on the command line: its help shows a working example, bad options
are one line and exit 2, and `--port 0` prints the address it listens on first."""

from __future__ import annotations

import subprocess
import sys

import httpx

from .conftest import cli_env
from .processes import contextfold_serve
from .upstream import Upstream


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "contextfold", "serve", *args]
    return subprocess.run(command, capture_output=True, text=True, env=cli_env(), check=False)


def test_help_shows_a_working_example() -> None:
    done = _serve("--help")
    assert done.returncode == 0
    assert "contextfold serve --port 8787 --openai-upstream" in done.stdout
    assert "OpenAI(base_url='http://127.0.0.1:8787/v1')" in done.stdout


def test_bad_options_are_one_line_and_exit_2() -> None:
    for args, said in (
        (("--window", "gpt-4o"), "expected MODEL=TOKENS"),
        (("--high", "0.5", "--low", "0.7"), "--low 0.7, --high 0.5: need 0 < low < high <= 1"),
        (("--session-ttl", "0"), "--session-ttl 0: "),
        (("--store", "ftp://x"), "use sqlite:PATH"),
    ):
        done = _serve("--port", "0", *args)
        assert done.returncode == 2, done.stderr
        lines = [line for line in done.stderr.splitlines() if line.startswith("contextfold:")]
        assert len(lines) == 1, done.stderr
        assert said in lines[0]
        assert "Traceback" not in done.stderr


def test_out_of_range_values_name_their_option() -> None:
    for args, said in (
        (("--port", "99999"), "Invalid value for '--port'"),
        (("--workers", "0"), "Invalid value for '--workers'"),
        (("--recall-rounds", "-1"), "Invalid value for '--recall-rounds'"),
        (("--log-level", "loud"), "Invalid value for '--log-level'"),
    ):
        done = _serve("--port", "0", *args)
        assert done.returncode == 2, done.stderr
        assert said in done.stderr
        assert "Traceback" not in done.stderr


def test_port_0_listens_on_a_free_port_named_first(upstream: Upstream, tmp_path: object) -> None:
    with contextfold_serve(upstream.url, "--store", f"sqlite:{tmp_path}/p.db") as served:
        assert httpx.get(served.url + "/healthz").json()["status"] == "ok"
        assert httpx.get(served.url + "/v1/models").json()["data"]
