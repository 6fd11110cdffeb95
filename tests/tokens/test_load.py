"""The offline loader: verified packaged data, tiktoken's exact definitions, no network."""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import TokenizerError
from contextfold._tokens import _load

tiktoken = pytest.importorskip("tiktoken")
openai_public = pytest.importorskip("tiktoken_ext.openai_public")


@pytest.mark.parametrize("name", sorted(_load.ENCODINGS))
def test_spec_matches_tiktoken_ext(name: str) -> None:
    ranks = {b"a": 0}
    with mock.patch.object(openai_public, "load_tiktoken_bpe", return_value=ranks) as loader:
        reference = getattr(openai_public, name)()
    spec = _load.ENCODINGS[name]
    assert loader.call_args.kwargs["expected_hash"] == spec.sha256
    assert loader.call_args.args[0].endswith("/" + spec.published_file)
    assert reference["pat_str"] == spec.pat_str
    assert reference["special_tokens"] == dict(spec.special_tokens)


def test_special_token_names_match_tiktoken_ext() -> None:
    for constant in ("ENDOFTEXT", "FIM_PREFIX", "FIM_MIDDLE", "FIM_SUFFIX", "ENDOFPROMPT"):
        assert getattr(_load, constant) == getattr(openai_public, constant)


@pytest.mark.usefixtures("tiktoken_reference")
@pytest.mark.parametrize("name", sorted(_load.ENCODINGS))
def test_encoding_equals_tiktokens_own(name: str) -> None:
    ours = _load.encoding(name)
    theirs = tiktoken.get_encoding(name)
    assert ours._mergeable_ranks == theirs._mergeable_ranks
    assert ours.n_vocab == theirs.n_vocab
    text = "Hello, wörld! 你好 <|endoftext|>  \n\n\tdef f(x): return x**2  # ids: a3f9c2e1"
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())


@pytest.mark.usefixtures("tiktoken_reference")
@given(st.text(max_size=300))
def test_hyp_same_tokens_as_tiktoken(text: str) -> None:
    assert _load.encoding("o200k_base").encode_ordinary(text) == tiktoken.get_encoding(
        "o200k_base"
    ).encode_ordinary(text)


@pytest.mark.parametrize("name", sorted(_load.ENCODINGS))
def test_packaged_ranks_are_tiktokens_published_file(name: str) -> None:
    """The pre-decoded data gives back the file tiktoken downloads, byte for byte."""
    spec = _load.ENCODINGS[name]
    ranks = _load.parse_ranks(_load.read_packaged(spec.file), spec.ranks_sha256)
    assert hashlib.sha256(_load.published(ranks)).hexdigest() == spec.sha256
    assert hashlib.sha256(_load.predecoded(ranks)).hexdigest() == spec.ranks_sha256


def test_predecoded_round_trip_and_rank_gaps() -> None:
    ranks = {b"a": 0, b"\xff\x00": 1, b"bc": 2}
    data = gzip.compress(_load.predecoded(ranks))
    assert _load.parse_ranks(data, hashlib.sha256(gzip.decompress(data)).hexdigest()) == ranks
    with pytest.raises(ValueError, match=r"0\.\.n-1"):
        _load.predecoded({b"a": 0, b"b": 2})


def test_hash_mismatch_raises() -> None:
    spec = _load.ENCODINGS["cl100k_base"]
    good = gzip.decompress(_load.read_packaged(spec.file))
    tampered = gzip.compress(good[:-1] + bytes([good[-1] ^ 1]))
    with pytest.raises(TokenizerError, match="sha256"):
        _load.parse_ranks(tampered, spec.ranks_sha256)


def test_truncated_and_non_gzip_data_raise() -> None:
    spec = _load.ENCODINGS["cl100k_base"]
    data = _load.read_packaged(spec.file)
    with pytest.raises(TokenizerError):
        _load.parse_ranks(data[: len(data) // 2], spec.ranks_sha256)
    with pytest.raises(TokenizerError, match="gzip"):
        _load.parse_ranks(b"not gzip at all", spec.ranks_sha256)


_ONE_TOKEN = b"contextfold-ranks 2 1\n[\x01\x00\x00\x00s\x01\x00\x00\x00a"


def test_corrupt_packaged_file_fails_encoding() -> None:
    _load.encoding.cache_clear()
    try:
        with (
            mock.patch.object(
                _load,
                "read_packaged",
                return_value=gzip.compress(
                    b"contextfold-ranks 2 1\n[\x01\x00\x00\x00s\x01\x00\x00\x00a"
                ),
            ),
            pytest.raises(TokenizerError, match="sha256"),
        ):
            _load.encoding("cl100k_base")
    finally:
        _load.encoding.cache_clear()


def test_unknown_encoding_and_missing_file() -> None:
    with pytest.raises(TokenizerError, match="r50k_base"):
        _load.encoding("r50k_base")
    with pytest.raises(TokenizerError, match="missing"):
        _load.read_packaged("nope.ranks.gz")


OFFLINE = textwrap.dedent(
    """
    import socket, sys

    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    socket.socket.connect = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    import contextfold as cf
    counter = cf.counter_for("gpt-4o", "openai-chat")
    text = "The quick brown fox jumps over the lazy dog."
    print(counter.name, counter.count_text(text), len(counter.encoding.encode(text)))
    """
)


def run_isolated(code: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKTOKEN", "DATA_GYM"))}
    env["TIKTOKEN_CACHE_DIR"] = str(tmp_path / "empty-cache")
    (tmp_path / "empty-cache").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "empty-cache").iterdir()) == []
    return done.stdout.strip()


def test_exact_counts_work_with_no_network_and_no_cache(tmp_path: Path) -> None:
    assert run_isolated(OFFLINE, tmp_path) == "tiktoken:o200k_base 10 10"


def test_without_tiktoken_the_heuristic_says_so(tmp_path: Path) -> None:
    code = "import sys; sys.modules['tiktoken'] = None\n" + OFFLINE.replace(
        ", len(counter.encoding.encode(text))", ""
    )
    name, count = run_isolated(code, tmp_path).rsplit(" ", 1)
    assert name == "heuristic (tiktoken unavailable)"
    assert int(count) >= 10
