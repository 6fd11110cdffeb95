"""Fixtures for token tests: tiktoken's own loader, fed from the packaged data, as reference."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from contextfold._tokens import _load

DATA = Path(__file__).resolve().parents[2] / "src" / "contextfold" / "_tokens" / "data"
URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def fill_tiktoken_cache(directory: Path) -> None:
    """Put the packaged files where tiktoken's own loader looks for its download cache."""
    for name, url in URLS.items():
        spec = _load.ENCODINGS[name]
        raw = _load.published(_load.parse_ranks(_load.read_packaged(spec.file), spec.ranks_sha256))
        (directory / hashlib.sha1(url.encode()).hexdigest()).write_bytes(raw)


@pytest.fixture(scope="session")
def tiktoken_reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Make `tiktoken.get_encoding` work offline (through tiktoken's own code path)."""
    directory = tmp_path_factory.mktemp("tiktoken-cache")
    fill_tiktoken_cache(directory)
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)
    yield
    if old is None:
        del os.environ["TIKTOKEN_CACHE_DIR"]
    else:
        os.environ["TIKTOKEN_CACHE_DIR"] = old
