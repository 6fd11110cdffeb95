"""Error text reads as English: the article before a role or part kind fits the word."""

from __future__ import annotations

import pytest

import contextfold as cf
from contextfold._errors import with_article


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("assistant", "an assistant"),
        ("user", "a user"),
        ("image_url", "an image_url"),
        ("input_text", "an input_text"),
        ("tool", "a tool"),
        ("Opaque", "an Opaque"),
        ("unknown", "an unknown"),
        ("unique", "a unique"),
    ],
)
def test_with_article_fits_the_word(word: str, expected: str) -> None:
    assert with_article(word) == expected


def test_validation_problems_read_as_english() -> None:
    chat = cf.validate([{"role": "assistant"}], format="openai-chat")
    assert [p.reason for p in chat] == ["an assistant message needs content"]
    image = cf.validate(
        [{"role": "user", "content": [{"type": "image_url"}]}], format="openai-chat"
    )
    assert [p.reason for p in image] == ["an image_url part needs 'image_url'"]
    text = cf.validate(
        [{"role": "user", "content": [{"type": "input_text"}]}], format="openai-responses"
    )
    assert [p.reason for p in text] == ["an input_text part needs a string 'text'"]
