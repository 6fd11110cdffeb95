"""`contextfold.serve`: settings are checked before anything listens, and without the
proxy extra it names the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

import contextfold as cf


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"high": 0.5, "low": 0.7}, "0 < low < high <= 1"),
        ({"port": 70_000}, "port must be 0-65535"),
        ({"windows": {"m": 0}}, "positive token counts"),
    ],
)
def test_bad_settings_are_configuration_errors(options: dict[str, object], said: str) -> None:
    with pytest.raises(cf.ConfigurationError, match=said.replace("<", ".").replace("+", ".")):
        cf.serve(**options)  # type: ignore[arg-type]


def test_without_the_proxy_extra_serve_names_it() -> None:
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "import contextfold as cf\n"
        "try:\n    cf.serve(port=0)\n"
        "except cf.ConfigurationError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'contextfold[proxy]'" in done.stdout
