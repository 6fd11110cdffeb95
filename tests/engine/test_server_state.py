"""A Responses body that continues server-side state says the budget covers what it sends.

With `previous_response_id` or `conversation`, the provider puts the items it stored in
front of the `input`: contextfold sees none of them, so "fits" can only be about the
items sent. The report said "fits; nothing to do" and nothing else, while the request
the provider builds could be any size (report rule 1: never silent).
"""

from __future__ import annotations

import pytest

import contextfold as cf

ITEMS = [{"role": "user", "content": "Continue with the migration, please."}]


@pytest.mark.parametrize("field", ["previous_response_id", "conversation"])
@pytest.mark.parametrize("budget", [1_000, 12])
def test_a_body_continuing_stored_state_warns_that_it_is_not_counted(
    field: str, budget: int
) -> None:
    stored = "resp_0123" if field != "conversation" else "conv_0123"
    body: dict[str, object] = {"model": "gpt-5", field: stored, "input": ITEMS}
    report = cf.compact(body, budget, "gpt-5").report
    assert [w for w in report.warnings if field in w and "not" in w], report.warnings


def test_a_body_without_stored_state_has_no_such_warning() -> None:
    report = cf.compact({"model": "gpt-5", "input": ITEMS}, 1_000, "gpt-5").report
    assert report.warnings == ()


REFERENCED = {
    "anthropic": {"type": "document", "source": {"type": "url", "url": "https://x.test/a.pdf"}},
    "openai-chat": {"type": "file", "file": {"file_id": "file-abc123"}},
    "openai-responses": {"type": "input_file", "file_id": "file-abc123"},
}
TEXT = {"anthropic": "text", "openai-chat": "text", "openai-responses": "input_text"}


@pytest.mark.parametrize("fmt", sorted(REFERENCED))
def test_a_document_sent_by_reference_is_named_as_not_counted(fmt: str) -> None:
    """A PDF by URL or file id cost its JSON text (about 40 tokens) and nothing said the
    provider would add its pages: "fits" with a 100-page file attached."""
    text = {"type": TEXT[fmt], "text": "Summarize the attached report."}
    payload = [{"role": "user", "content": [REFERENCED[fmt], text]}]
    report = cf.compact(payload, 1_000, format=fmt).report
    assert report.fits
    assert [w for w in report.warnings if "1 document" in w and "not counted" in w]
    inline = [{"role": "user", "content": [text]}]
    assert cf.compact(inline, 1_000, format=fmt).report.warnings == ()
