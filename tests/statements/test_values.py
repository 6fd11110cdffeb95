"""Values and subject words of text beyond ASCII (`_values` rule 4)."""

from __future__ import annotations

import pytest

from contextfold import Message, Text
from contextfold._statements._statement import extract_statements
from contextfold._statements._values import subject_words, values

NAMED = [
    ("Our office is in München.", "München"),
    ("Store backups in Zürich.", "Zürich"),
    ("My name is José Ñúñez.", "José Ñúñez"),
    ("The client is Société Générale.", "Société Générale"),
    ("The project codename is Ångström.", "Ångström"),
    ("Use the 東京 region for storage.", "東京"),
    ("Use the Москва datacenter.", "Москва"),
    ("Always answer in Español.", "Español"),
]


@pytest.mark.parametrize(("text", "value"), NAMED)
def test_a_name_beyond_ascii_is_one_value(text: str, value: str) -> None:
    assert value in values(text)
    assert not any(v != value and v in value for v in values(text))  # no "Jos", "Soci"


@pytest.mark.parametrize(("text", "value"), NAMED)
def test_a_user_statement_naming_it_reaches_the_card(text: str, value: str) -> None:
    """Before, the name read as no value (or a piece of one), so a fact naming it was no
    statement at all and never reached the card."""
    assert [s.text for s in extract_statements(Message("user", (Text(text),)))] == [text]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Our office is in München.", ("office",)),
        ("Fix the café menu page.", ("fix", "café", "menu", "page")),
        ("Résumé the job, please.", ("résumé", "job")),
    ],
)
def test_subject_words_are_whole_words(text: str, words: tuple[str, ...]) -> None:
    assert subject_words(text) == words


@pytest.mark.parametrize("text", ["꼭 势必要更改。", "東京リージョンを使ってください。"])
def test_a_sentence_all_in_a_script_without_case_names_nothing(text: str) -> None:
    """Only amid English is such a word a name: otherwise every word would be one and every
    sentence a fact (statements are read in English only)."""
    assert values(text) == frozenset()
