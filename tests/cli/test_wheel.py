"""A wheel built from the checkout works without it (issue 15): installed in a fresh venv,
it runs the README's first command on its bundled example and shows its license.

Offline: the wheel is built with the hatchling the dev extra installs (no build
isolation), installed without dependencies, and the fresh venv borrows only the
third-party packages (typer, rich, tiktoken) of the test's own environment.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in args], check=False, cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv holding only the wheel (and borrowed third parties)."""
    pytest.importorskip("hatchling")
    pytest.importorskip("typer")
    pytest.importorskip("tiktoken")
    work = tmp_path_factory.mktemp("wheel")
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check", "-q")
    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", work / "dist", ROOT, cwd=work)
    (wheel,) = (work / "dist").glob("contextfold-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "contextfold/examples/coding-session.openai-chat.json" in names
    venv = work / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=work)
    python = venv / "bin" / "python"
    run(*pip, "--python", python, "install", "--no-deps", "--no-index", wheel, cwd=work)
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=work)
    borrowed = sysconfig.get_path("purelib")  # .pth files there are not processed: no src/
    (Path(site.stdout.strip()) / "borrowed.pth").write_text(borrowed + "\n")
    return venv / "bin"


def test_the_wheel_runs_the_first_readme_command_on_its_bundled_example(
    installed: Path, tmp_path: Path
) -> None:
    where = run(
        installed / "python", "-c", "import contextfold; print(contextfold.__file__)", cwd=tmp_path
    )
    assert where.stdout.startswith(str(installed.parent)), where.stdout
    example = run(
        installed / "contextfold", "example", "coding-session.openai-chat.json", cwd=tmp_path
    )
    (tmp_path / "session.json").write_text(example.stdout)
    done = run(
        installed / "contextfold",
        "compact",
        "session.json",
        "--budget",
        "6000",
        "--model",
        "gpt-4o",
        cwd=tmp_path,
    )
    assert "13,697 -> " in done.stderr
    assert '"messages"' in done.stdout


def test_the_wheel_shows_its_license(installed: Path, tmp_path: Path) -> None:
    version = run(installed / "contextfold", "--version", cwd=tmp_path)
    assert version.stdout.strip() == "contextfold 0.1.0 (MIT License)"
    text = run(
        installed / "python",
        "-c",
        "from importlib.metadata import distribution as d; "
        "print(next(f for f in d('contextfold').files if f.name == 'LICENSE').read_text())",
        cwd=tmp_path,
    )
    assert text.stdout.startswith("MIT License")
