"""Fact extraction: shapes, named values, JSON roles, sentences, quoted material, errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements._facts import (
    Fact,
    clip,
    defined_names,
    error_line,
    normalize,
    outside_quotes,
    sentences,
    tagged_blocks,
    text_facts,
)
from contextfold._statements._json_leaves import json_leaves, load_json


@pytest.mark.parametrize(
    ("text", "role", "value"),
    [
        ("see https://example.com/a?b=1.", "url", "https://example.com/a?b=1"),
        ("mail a.b@example.org now", "email", "a.b@example.org"),
        ("run tests/a/test_x.py::TestA::test_b ok", "test", "tests/a/test_x.py::TestA::test_b"),
        ("on 2024-05-20 we fly", "date", "2024-05-20"),
        ("created 2024-05-15T15:00:00 here", "date", "2024-05-15T15:00:00"),
        ("fly on May 20th please", "date", "May 20th"),
        ("after 11 AM EST", "time", "11 AM EST"),
        ("not before 9 am", "time", "9 am"),
        ("departs 06:00:00", "time", "06:00:00"),
        ("it costs $1,250.50 total", "money", "$1,250.50"),
        (
            "edit /testbed/django/db/models/sql/query.py:",
            "path",
            "/testbed/django/db/models/sql/query.py",
        ),
        ("open src/pkg/mod.py now", "path", "src/pkg/mod.py"),
        (
            "raised django.core.exceptions.FieldError here",
            "error",
            "django.core.exceptions.FieldError",
        ),
        ("a ValueError.", "error", "ValueError"),
        ("see reproduce_issue.py", "file", "reproduce_issue.py"),
        ("call Query.resolve_lookup_value() now", "symbol", "Query.resolve_lookup_value()"),
        ("bring 3 bags", "quantity", "3 bags"),
        ("user mia_li_3668 here", "identifier", "mia_li_3668"),
        ("run python3 there", "identifier", "python3"),
        ("class PickledField is", "class", "PickledField"),
        ("commit 8a281aa7fe fixed", "hash", "8a281aa7fe"),
        ("reservation **ZFA04Y** and", "code", "ZFA04Y"),
        ("flight HAT170 at", "code", "HAT170"),
        ("from JFK to SEA", "code", "JFK"),
        ("card 7447 ok", "number", "7447"),
        ("server build-F1-3F9A.internal on", "slug", "build-F1-3F9A.internal"),
        ("the folder archive-R1-3F9A, and", "slug", "archive-R1-3F9A"),
        (
            "id 123e4567-e89b-12d3-a456-426614174000 ok",
            "slug",
            "123e4567-e89b-12d3-a456-426614174000",
        ),
        ("deploy my-app-v2 now", "slug", "my-app-v2"),
        ("pin django 4.2.11 please", "version", "4.2.11"),
        ("tag v1.2 is out", "version", "v1.2"),
    ],
)
def test_shapes(text: str, role: str, value: str) -> None:
    assert Fact(role, value) in text_facts(text)


@pytest.mark.parametrize(
    "text", ["a 24-hour window", "3-4 hours", "a follow-up call", "well-known names", "64-bit"]
)
def test_compounds_and_ranges_are_not_slugs(text: str) -> None:
    assert [f for f in text_facts(text) if f.role == "slug"] == []


def test_a_hyphenated_name_is_one_value_not_its_pieces() -> None:
    values = [f.value for f in text_facts("never delete anything under archive-R1-3F9A1C")]
    assert values == ["archive-R1-3F9A1C"]


def test_a_time_with_its_zone_is_not_repeated_without_it() -> None:
    values = [f.value for f in text_facts("I want to fly after 11 AM EST, around 11:30 AM.")]
    assert "11 AM EST" in values
    assert "11:30 AM" in values
    assert "11:30" not in values


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("never commit the .env file", ".env"),
        ("keep secrets in .env.local, not in code", ".env.local"),
        ("add it to .gitignore.", ".gitignore"),
        ("the `.npmrc` stays", ".npmrc"),
        ("edit .pre-commit-config.yaml first", ".pre-commit-config.yaml"),
        ("clear the .mypy_cache folder", ".mypy_cache"),
        ("(.dockerignore) too", ".dockerignore"),
        ("do not touch .github/workflows", ".github/workflows"),
    ],
)
def test_a_dotfile_keeps_its_leading_dot(text: str, value: str) -> None:
    values = [f.value for f in text_facts(text)]
    assert value in values
    assert value[1:] not in values


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ('sep = "".join(parts)', []),
        ("obj.__name__ and x.error_messages", ["obj.__name__", "x.error_messages"]),
        (".__name__ is read", ["__name__"]),
        ("call .copy() on it", ["copy()"]),
        ("...and then", []),
        ("the .environment attribute", []),
    ],
)
def test_attribute_references_are_no_dotfiles(text: str, values: list[str]) -> None:
    assert [f.value for f in text_facts(text)] == values


@pytest.mark.parametrize(
    "text",
    ["and/or", "e.g. this", "it is 12 now", "THE AND NOT", "plain words only", "1/2 cup"],
)
def test_non_identifiers_are_ignored(text: str) -> None:
    assert text_facts(text) == []


@pytest.mark.parametrize(
    ("text", "role", "value"),
    [
        ("My user ID is mia_li_3668.", "user_id", "mia_li_3668"),
        ("Your reservation ID is **HATHAT**.", "reservation_id", "HATHAT"),
        ("my reservation IDs are IFOYYZ and NQNU5R", "reservation_id", "IFOYYZ"),
        ("the flight number: HAT170", "flight_number", "HAT170"),
        ("Please use my credit card ending in 7334.", "card_ending", "7334"),
        ("the visa ending with 1907 please", "visa_ending", "1907"),
        ("the staging server on port 8443.", "port", "8443"),
    ],
)
def test_named_values_in_prose(text: str, role: str, value: str) -> None:
    assert Fact(role, value, True) in text_facts(text)


def test_tool_output_skips_prose_only_shapes() -> None:
    facts = text_facts("My user ID is abc_123 and we fly May 20th", prose=False)
    assert Fact("identifier", "abc_123") in facts
    assert all(f.role not in ("user_id", "date") for f in facts)


def test_long_tool_output_is_read_at_head_and_tail() -> None:
    text = "start_value " + "x " * 20_000 + "middle_value " + "y " * 20_000 + "end_value"
    values = [f.value for f in text_facts(text, prose=False)]
    assert values == ["start_value", "end_value"]


@given(st.text(max_size=300))
def test_values_are_verbatim_substrings(text: str) -> None:
    for fact in text_facts(text):
        assert fact.value in text
    assert text_facts(text) == text_facts(text)


def test_json_roles_name_keys_and_mark_collections() -> None:
    data = {
        "user_id": "mia_li_3668",
        "name": {"first_name": "Mia"},
        "payment_methods": {"credit_card_4421486": {"id": "credit_card_4421486", "amount": 5}},
        "reservations": ["ZFA04Y", "HATHAT"],
        "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
        "note": None,
    }
    assert json_leaves(data) == [
        ("user_id", "mia_li_3668"),
        ("name.first_name", "Mia"),
        ("payment_methods[].id", "credit_card_4421486"),
        ("payment_methods[].amount", 5),
        ("reservations[]", "ZFA04Y"),
        ("reservations[]", "HATHAT"),
        ("flight_number", "HAT136"),
        ("flights[].date", "2024-05-20"),
    ]


def test_a_list_items_self_describing_key_is_its_role() -> None:
    data = {"flights": [{"flight_number": "HAT1", "date": "2024-05-20"}], "prices": {"e": 1}}
    assert json_leaves(data) == [
        ("flight_number", "HAT1"),
        ("flights[].date", "2024-05-20"),
        ("prices.e", 1),
    ]


def test_top_level_lists_have_bare_roles() -> None:
    assert json_leaves([[{"flight_number": "HAT1"}]]) == [("flight_number", "HAT1")]


@pytest.mark.parametrize("text", ["", "plain", "[1, 2", '"a string"', "42", "{bad json}"])
def test_load_json_only_reads_objects_and_arrays(text: str) -> None:
    assert load_json(text) is None


def test_load_json_reads_objects() -> None:
    assert load_json(' {"a": [1]} ') == {"a": [1]}


def test_deep_json_is_read_safely() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert load_json(deep) is None
    nested: object = "leaf"
    for _ in range(500):
        nested = {"k": nested}
    assert json_leaves(nested) == []
    listed: object = "leaf"
    for _ in range(900):
        listed = [listed]
    assert json_leaves(listed) == []


def test_sentences_split_on_ends_and_lines_and_drop_bullets() -> None:
    text = "Hi! I'm Mia. See query.py now.\n- Don't touch tests\n2. Run it"
    assert sentences(text) == [
        "Hi!",
        "I'm Mia.",
        "See query.py now.",
        "Don't touch tests",
        "Run it",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Address me as Dr. Patel.", ["Address me as Dr. Patel."]),
        (
            "Send the invoice to Mrs. Lee. Never cc Prof. Ortiz.",
            [
                "Send the invoice to Mrs. Lee.",
                "Never cc Prof. Ortiz.",
            ],
        ),
        ("Ship it to St. Louis. Then stop.", ["Ship it to St. Louis.", "Then stop."]),
        ("Ask Mr. Park first. Dr. Kim signs off.", ["Ask Mr. Park first.", "Dr. Kim signs off."]),
    ],
)
def test_a_title_keeps_the_name_after_it(text: str, expected: list[str]) -> None:
    """ "Dr." ends no sentence: split there, the card kept "Address me as Dr." alone."""
    assert sentences(text) == expected


def test_a_full_width_stop_ends_a_sentence_without_a_space() -> None:
    text = "本番DBに触らないでください。テストは必ず書いてください！ OK? 「触るな。」と言った。"
    assert sentences(text) == [
        "本番DBに触らないでください。",
        "テストは必ず書いてください！",
        "OK?",
        "「触るな。」と言った。",
    ]


def test_outside_quotes_removes_pasted_material() -> None:
    text = (
        "Do this.\n<pr_description>\nNever do that.\n</pr_description>\n"
        "```\nnever_run()\n```\n<!-- avoid threads -->\n> always quote\nAnd that."
    )
    kept = outside_quotes(text)
    assert "Do this." in kept
    assert "And that." in kept
    for pasted in ("Never do that", "never_run", "avoid threads", "always quote"):
        assert pasted not in kept


def test_tagged_blocks() -> None:
    assert tagged_blocks("a <x>one</x> b <y k='v'>two</y>") == [("x", "one"), ("y", "two")]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "Error: payment method certificate_7504069 not found",
            "Error: payment method certificate_7504069 not found",
        ),
        (
            "OBSERVATION:\n/usr/bin/python: No module named pytest",
            "/usr/bin/python: No module named pytest",
        ),
        (
            "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'a'\n",
            "KeyError: 'a'",
        ),
        ("ran 3 tests\nFAILED (failures=1)", "FAILED (failures=1)"),
        ("bash: foo: command not found", "bash: foo: command not found"),
    ],
)
def test_error_line(text: str, line: str) -> None:
    assert error_line(text) == line


def test_a_long_output_is_read_for_errors_at_its_head_only() -> None:
    assert error_line("ValueError: bad\n" + "x" * 1_000_000) == "ValueError: bad"
    assert error_line("ok\n" * 5 + "fine " * 100_000 + "\nValueError: late") is None


@pytest.mark.parametrize(
    "text", ["File created successfully at: /x.py", '{"reservation_id": "ZFA04Y"}', "", "ok\n" * 3]
)
def test_no_error_in_normal_output(text: str) -> None:
    assert error_line(text) is None


def test_defined_names() -> None:
    code = "class A:\n    def f(self):\n        pass\nasync def g():\n    def f(): ...\n"
    assert defined_names(code) == ["class A", "def f", "async def g"[6:]]


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
def test_defined_names_stop_at_the_limit(limit: int) -> None:
    code = "def a(): ...\ndef a(): ...\nclass B:\n  def c(): ...\ndefine = 1\nclassy = 2\n"
    assert defined_names(code, limit) == defined_names(code)[:limit]
    assert defined_names("x = 1\n", limit) == []


def test_normalize_and_clip() -> None:
    assert normalize("  Don\u2019t   DO this. ") == "don't do this"
    assert clip("a  b\nc", 10) == "a b c"
    assert clip("abcdefghijkl", 5) == "abcd\u2026"
    assert json.dumps(clip("x" * 300, 200)).count("x") == 199


@given(st.text("Jan Feb 5,2024B1-:/.\x00x", max_size=80))
def test_words_inside_spaced_values_are_left_out_as_before(text: str) -> None:
    """The joined-string test is `any(value in spaced)`, NUL in a word included."""
    from contextfold._statements import _facts as facts
    from contextfold._statements import _shapes

    spaced = [facts.Fact(m.lastgroup or "value", m.group()) for m in facts._SPACED.finditer(text)]
    words = [f for w in _shapes._WORD.findall(text) for f in facts._word_facts(w)]
    if spaced:
        words = [f for f in words if not any(f.value in s.value for s in spaced)]
    found = facts._prose_facts(text)
    assert list(found[len(found) - len(words) :]) == words
