"""Inline documents: a PDF costs its pages in all three formats, a text document its text."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Message, Opaque, Text, ToolResult
from contextfold._adapters import check_format
from contextfold._adapters._documents import inline_document
from contextfold._tokens._accounting import Accountant
from contextfold._tokens._documents import PAGE_TEXT, page_tokens
from contextfold._tokens._heuristic import count_text
from contextfold._tokens._images import ANTHROPIC_AREA, GPT_4O, image_rule_for, image_tokens
from contextfold._tokens._profiles import overheads_for
from tests.tokens.pdfs import classic, packed

Payload = Mapping[str, object]


def anthropic(data: str) -> Payload:
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": data},
        "title": "Quarterly report",
    }


def chat(data: str) -> Payload:
    url = "data:application/pdf;base64," + data
    return {"type": "file", "file": {"filename": "report.pdf", "file_data": url}}


def responses(data: str) -> Payload:
    url = "data:application/pdf;base64," + data
    return {"type": "input_file", "filename": "report.pdf", "file_data": url}


FORMATS: dict[str, tuple[Callable[[str], Payload], str, str]] = {
    "anthropic": (anthropic, "anthropic", "claude-sonnet-4-5"),
    "openai-chat": (chat, "openai-chat", "gpt-4o"),
    "openai-responses": (responses, "openai-responses", "gpt-4o"),
}


def accountant(fmt: str, model: str) -> Accountant:
    return Accountant(count_text, overheads_for(check_format(fmt), model), image_rule_for(model))


def as_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def test_a_page_is_its_text_allowance_and_its_image_rules_maximum() -> None:
    claude = page_tokens(ANTHROPIC_AREA, 1.25)
    assert claude == math.ceil(PAGE_TEXT * 1.25) + math.ceil(1_200_000 / 750)
    assert page_tokens(GPT_4O, 1.0) == PAGE_TEXT + 85 + 8 * 170
    # Above the top of Anthropic's documented typical range (1,500-3,000 a page).
    assert claude > 3_000


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", [classic, packed])
def test_a_pdf_costs_its_pages_plus_its_framing(fmt: str, layout: Callable[[int], bytes]) -> None:
    build, wire, model = FORMATS[fmt]
    acct = accountant(wire, model)
    payload = build(b64(layout(7)))
    document = inline_document(payload)
    assert document is not None
    framing = acct.count_text(as_json(document.framing))
    assert acct.part(Opaque(payload)) == framing + 7 * acct.per_page
    assert "JVBER" not in as_json(document.framing)  # the content is left out of it


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_large_file_of_few_pages_costs_far_less_than_its_base64(fmt: str) -> None:
    build, wire, model = FORMATS[fmt]
    acct = accountant(wire, model)
    payload = build(b64(classic(3, padding=60_000)))
    as_text = acct.count_text(as_json(payload))  # what it was counted before
    assert as_text > 50_000
    assert acct.part(Opaque(payload)) < 3 * acct.per_page + 100 < as_text / 4


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_small_file_of_many_pages_costs_more_than_its_base64(fmt: str) -> None:
    build, wire, model = FORMATS[fmt]
    acct = accountant(wire, model)
    payload = build(b64(classic(100)))
    assert acct.part(Opaque(payload)) >= 100 * acct.per_page > acct.count_text(as_json(payload))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "data",
    [
        "abc",
        "JVBERi0x$$$$",
        "é" * 9,
        b64(b"just some text, not a PDF"),
        b64(packed(3, predictor=True)),
    ],
)
def test_unreadable_pdfs_cost_their_json_text_as_before(fmt: str, data: str) -> None:
    build, wire, model = FORMATS[fmt]
    acct = accountant(wire, model)
    payload = build(data)
    assert acct.part(Opaque(payload)) == acct.count_text(as_json(payload))


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
        {"type": "document", "source": {"type": "file", "file_id": "file_011"}},
        {"type": "file", "file": {"file_id": "file-abc"}},
        {"type": "input_file", "file_url": "https://example.com/a.pdf"},
        {"type": "input_file", "file_id": "file-abc"},
        # OpenAI file inputs of another media type: read by the provider as that type.
        {"type": "input_file", "file_data": "data:text/plain;base64," + b64(classic(2))},
        {"type": "input_audio", "input_audio": {"data": b64(classic(2)), "format": "wav"}},
    ],
)
def test_other_parts_cost_their_json_text_as_before(payload: Payload) -> None:
    acct = accountant("openai-chat", "gpt-4o")
    assert inline_document(payload) is None
    assert acct.part(Opaque(payload)) == acct.count_text(as_json(payload))


def test_bare_base64_file_data_is_read_when_its_bytes_are_a_pdf() -> None:
    acct = accountant("openai-chat", "gpt-4o")
    payload = {"type": "file", "file": {"filename": "a.pdf", "file_data": b64(classic(2))}}
    framing = acct.count_text(
        as_json({"type": "file", "file": {"filename": "a.pdf", "file_data": ""}})
    )
    assert acct.part(Opaque(payload)) == framing + 2 * acct.per_page


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), st.integers(1, 60))
def test_the_count_grows_with_every_page(fmt: str, pages: int) -> None:
    build, wire, model = FORMATS[fmt]
    acct = accountant(wire, model)
    fewer = acct.part(Opaque(build(b64(packed(pages)))))
    more = acct.part(Opaque(build(b64(packed(pages + 1)))))
    assert more - fewer == acct.per_page
    assert fewer >= pages * image_tokens(acct.images, None)  # every page is at least its image


@given(st.text(max_size=300), st.text(max_size=300))
def test_a_text_document_costs_its_text_and_a_fixed_framing(first: str, second: str) -> None:
    acct = accountant("anthropic", "claude-sonnet-4-5")

    def cost(text: str) -> int:
        source = {"type": "text", "media_type": "text/plain", "data": text}
        return acct.part(Opaque({"type": "document", "source": source, "title": "Notes"}))

    assert cost(first) - acct.count_text(first) == cost(second) - acct.count_text(second)


def test_a_text_document_is_not_counted_as_escaped_json() -> None:
    acct = accountant("anthropic", "claude-sonnet-4-5")
    text = 'He said "stop".\n\t' * 200
    payload = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": text},
    }
    assert acct.part(Opaque(payload)) < acct.count_text(as_json(payload))


def test_a_pdf_in_a_tool_result_costs_its_pages() -> None:
    acct = accountant("anthropic", "claude-sonnet-4-5")
    result = ToolResult("toolu_1", (Opaque(anthropic(b64(classic(5)))),))
    assert acct.part(result) >= 5 * acct.per_page


@pytest.mark.parametrize("fmt", FORMATS)
def test_count_tokens_and_compact_read_pages(fmt: str) -> None:
    build, wire, model = FORMATS[fmt]
    part = build(b64(classic(3, padding=60_000)))
    message = Message("user", (Opaque(part), Text("Summarize.")))
    body = cf.render(cf.Conversation((message,)), wire)
    tokens = cf.count_tokens(body, model)
    counter = cf.counter_for(model, format=wire)
    assert tokens <= cf.count_conversation(cf.Conversation((message,)), counter) < 20_000
    result = cf.compact(body, budget=20_000, model=model)
    assert result.report.fits
    assert result.payload == body  # nothing removed: the file fits as its three pages
