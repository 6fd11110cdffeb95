"""Texts tiktoken's regex cannot split (a run of ~1M spaces panics): counted exactly anyway."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._tokens._load import encoding as load_encoding
from contextfold._tokens._long_runs import LONG_RUN, is_panic, risky, split_len

pytest.importorskip("tiktoken")
pytest.importorskip("regex")  # tiktoken's own dependency

ENCODINGS = ("o200k_base", "cl100k_base")
BLANKS = " " * 1_000_000
"""A run tiktoken 0.14 panics on (it already does at 900,000)."""

fragments = st.sampled_from(
    [
        *" \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2028\u202f\u3000\x1c\x1f",
        *("  ", "   ", " \t ", "\n\n", "\r\n", " \n ", "\n   ", "\u3000\u3000"),
        *"aZ09/'.,!?-#_()",
        *("word", "Word", "WORD", "'s", "'LL", "123456", "é", "\u0301", "東京", "😀", "\ud800"),
    ]
)
texts = st.lists(fragments, max_size=60).map("".join)


def plain(name: str) -> Callable[[str], int]:
    encoding = load_encoding(name)
    return lambda text: len(encoding.encode_ordinary(text))


@settings(max_examples=400)
@given(texts, st.integers(1, 4))
def test_hyp_split_counts_equal_tiktoken_counts(text: str, long_piece: int) -> None:
    """Rule 2 at any piece length: pieces merged alone and the text between them encoded
    as usual add up to tiktoken's count of the whole text."""
    for name in ENCODINGS:
        encoding = load_encoding(name)
        whole = len(encoding.encode_ordinary(text))
        assert split_len(encoding, text, plain(name), long_piece) == whole


@pytest.mark.parametrize("name", ENCODINGS)
def test_a_long_piece_merged_alone_counts_as_tiktoken_counts_it(name: str) -> None:
    """Below the size that makes tiktoken panic, its count and the split one agree."""
    encoding = load_encoding(name)
    for text in (" " * 300_000 + "x", "x" + "\t " * 150_000, "\n" + "\u3000" * 200_000):
        assert split_len(encoding, text, plain(name)) == len(encoding.encode_ordinary(text))


def test_risky_finds_only_long_runs_of_white_space() -> None:
    assert risky("a" + " " * LONG_RUN + "b")
    assert risky("\u3000" * LONG_RUN)
    assert risky("x\n" + " \t" * LONG_RUN)
    assert not risky(" " * (LONG_RUN - 1))
    assert not risky((" " * 1000 + "x") * 200)
    assert not risky("\x1c" * (LONG_RUN * 2))  # white space to Python only, not to tiktoken


@pytest.mark.parametrize("name", ENCODINGS)
def test_counter_counts_a_million_blanks_without_a_panic(
    name: str, capfd: pytest.CaptureFixture[str]
) -> None:
    counter = cf.TiktokenCounter(name)
    for text in ("a" + BLANKS + "b", "ok\n" + BLANKS + "\nfin"):
        expected = split_len(counter.encoding, text, plain(name))
        assert counter.count_text(text) == expected > 0
    assert "panicked" not in capfd.readouterr().err  # found before tiktoken's regex ran


def test_counter_recovers_from_a_panic_it_did_not_foresee() -> None:
    """Rule 4: a panic from another text is caught and the text split instead."""

    class PanicException(BaseException):  # pyo3's name; it is not an Exception
        pass

    counter = cf.TiktokenCounter()
    real = counter._encode
    dump = "short text, " * 20 + "x" * 3_000

    def fails_once(text: str) -> list[int]:
        if text == dump:
            raise PanicException("StackOverflow")
        return real(text)

    counter._encode = fails_once
    assert counter.count_text(dump) == len(real(dump))
    assert is_panic(PanicException())
    assert not is_panic(KeyboardInterrupt())


def test_other_base_exceptions_still_propagate() -> None:
    counter = cf.TiktokenCounter()

    def interrupted(text: str) -> list[int]:
        raise KeyboardInterrupt

    counter._encode = interrupted
    with pytest.raises(KeyboardInterrupt):
        counter.count_text("x" * 5_000)


def test_compaction_of_a_blank_screen_dump_fits() -> None:
    """The crash this fixes: a tool result holding a million blanks raised tiktoken's
    PanicException (a BaseException) out of `compact`; now it is masked and fits."""
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Show me the log."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "cat", "arguments": '{"path": "pad.log"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "start" + BLANKS + "end"},
        {"role": "user", "content": "Now summarise what you saw."},
    ]
    result = cf.compact(messages, 2_000, counter=cf.TiktokenCounter())
    assert result.report.fits
    assert result.report.tokens_after <= 2_000
    assert result.report.tokens_before > 7_000
    assert cf.validate(result.payload) == []
