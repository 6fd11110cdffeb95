"""`contextfold serve` as a real process: started, its address read from stderr, stopped."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .conftest import WINDOWS, cli_env


@dataclass
class Served:
    url: str
    process: subprocess.Popen[bytes]
    stderr: list[str] = field(default_factory=list)


@contextmanager
def contextfold_serve(upstream_url: str, *options: str) -> Iterator[Served]:
    """Run `contextfold serve --port 0 ...` until the block ends; its stderr is collected."""
    windows = [arg for model, size in WINDOWS.items() for arg in ("--window", f"{model}={size}")]
    command = [sys.executable, "-m", "contextfold", "serve", "--port", "0"]
    command += ["--openai-upstream", upstream_url, "--anthropic-upstream", upstream_url]
    process = subprocess.Popen(
        [*command, *windows, *options], stderr=subprocess.PIPE, env=cli_env()
    )
    assert process.stderr is not None
    first = process.stderr.readline().decode()
    assert first.startswith("contextfold serve listening on http://127.0.0.1:"), first
    served = Served(first.split()[-1], process, [first])
    stream = process.stderr
    reader = threading.Thread(
        target=lambda: served.stderr.extend(line.decode() for line in stream), daemon=True
    )
    reader.start()
    try:
        yield served
    finally:
        process.terminate()
        process.wait(20)
        reader.join(5)
        stream.close()
