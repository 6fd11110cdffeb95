"""Reading a PDF's pages from base64: both file layouts, the page tree's count, bad input."""

from __future__ import annotations

import base64
import os
import zlib
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import clear_caches
from contextfold._tokens import _pdf
from contextfold._tokens._pdf import pdf_pages
from tests.tokens.pdfs import classic, packed


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize("layout", [classic, packed])
@pytest.mark.parametrize("pages", [1, 2, 5, 31])
def test_pages_are_read_in_both_layouts(layout: Callable[[int], bytes], pages: int) -> None:
    assert pdf_pages(b64(layout(pages))) == pages


def test_a_data_url_prefix_is_skipped() -> None:
    assert pdf_pages("data:application/pdf;base64," + b64(classic(3))) == 3


def test_large_streams_do_not_change_the_pages() -> None:
    assert pdf_pages(b64(classic(2, padding=300_000))) == 2


def test_the_page_tree_count_wins_when_larger() -> None:
    # A root that counts more pages than the file shows dictionaries for (they may hide in
    # a stream read here): the larger reading errs high.
    raw = classic(3).replace(b"/Count 3", b"/Count 8")
    assert pdf_pages(b64(raw)) == 8


def test_page_dictionaries_win_when_more() -> None:
    # An outline or a stale tree saying fewer: every page dictionary still counts.
    raw = classic(4).replace(b"/Count 4", b"/Count 1")
    assert pdf_pages(b64(raw)) == 4


def test_other_counts_are_not_the_page_tree() -> None:
    raw = classic(2).replace(
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Catalog /Pages 2 0 R /Outlines << /Type /Outlines /Count 40 >> >>",
    )
    assert pdf_pages(b64(raw)) == 2


@pytest.mark.parametrize(
    "data",
    [
        "",
        "abc",  # bad padding
        "JVBERi0x$$$$",  # not base64 at all
        "é" * 12,  # not ASCII
        b64(os.urandom(3_000)),  # not a PDF
        b64(b"%PDF-1.7\n"),  # a header and nothing else
        b64(b"%PDF-1.7\n1 0 obj << /Type /ObjStm /First 99999999999999 >> stream\nxx"),
        "data:application/pdf;base64",  # no comma
    ],
)
def test_unreadable_input_is_none(data: str) -> None:
    assert pdf_pages(data) is None


def test_an_object_stream_not_read_here_is_none() -> None:
    # Predictors are not undone: the pages are unseen, so the caller falls back.
    assert pdf_pages(b64(packed(4, predictor=True))) is None


def test_pages_seen_beside_an_unread_object_stream_are_not_the_count() -> None:
    # The stream may hold more pages than the three at top level: no reading errs low.
    unread = b"9 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /LZWDecode /Length 2 >>\n"
    raw = classic(3) + unread + b"stream\nxx\nendstream\nendobj\n"
    assert pdf_pages(b64(classic(3))) == 3
    assert pdf_pages(b64(raw)) is None


def test_a_stream_cut_at_the_limit_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_caches()
    monkeypatch.setattr(_pdf, "INFLATE_LIMIT", 64)  # the packed stream inflates past it
    assert pdf_pages(b64(packed(12))) is None


def test_a_compression_bomb_is_cut_and_none() -> None:
    bomb = zlib.compress(b"0" * (_pdf.INFLATE_LIMIT + 1024), 9)
    raw = (
        b"%%PDF-1.5\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode "
        b"/Length %d >>\nstream\n%s\nendstream\nendobj\n" % (len(bomb), bomb)
    )
    assert pdf_pages(b64(raw)) is None


@given(st.binary(max_size=400), st.integers(0, 400))
def test_arbitrary_bytes_after_a_header_never_raise(noise: bytes, cut: int) -> None:
    raw = b"%PDF-1.5\n" + noise + packed(2)[:cut] + noise
    pages = pdf_pages(b64(raw))
    assert pages is None or pages >= 1


@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(data: str) -> None:
    pages = pdf_pages(data)
    assert pages is None or pages >= 1


def _counting_decoder(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    decode = base64.b64decode

    def counted(data: str | bytes) -> bytes:
        calls.append(len(data))
        return decode(data)

    monkeypatch.setattr(base64, "b64decode", counted)
    return calls


def test_a_file_is_decoded_once_per_content(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_caches()
    calls = _counting_decoder(monkeypatch)
    data = b64(classic(6))
    assert [pdf_pages(data), pdf_pages(data), pdf_pages("".join(data))] == [6, 6, 6]
    assert len(calls) == 1


def test_a_big_file_is_cached_by_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_caches()
    monkeypatch.setattr(_pdf, "BIG", 1_000)
    calls = _counting_decoder(monkeypatch)
    data = b64(classic(3, padding=20_000))
    copy = "".join(data)  # equal content, another string: found by its digest
    assert [pdf_pages(data), pdf_pages(copy)] == [3, 3]
    assert len(calls) == 1
    assert data not in _pdf._BY_TEXT  # not kept alive by the text memo
