"""A name beside a number or version is a setting; a newer statement that gives it again
with another value, naming nothing more, changes it; different things both hold."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements import _settings
from contextfold._statements._settings import apart, has_settings, newest_changed


@pytest.mark.parametrize(
    "text",
    [
        "Target Node 18.",
        "Max 3 retries per request.",
        "Let's bump retries to 5.",
        "Port is 9090 now.",
        "Keep the batch size at 32.",
        "Upgrade to Go 1.22.",
    ],
)
def test_a_name_beside_a_number_or_version_is_a_setting(text: str) -> None:
    assert has_settings(text)


@pytest.mark.parametrize(
    "text",
    [
        "Never deploy on Fridays.",
        "The budget is $800.",
        "Deploy to us-east-1.",
        "The deadline is May 20.",
        "Ship it on 2024-05-27.",
        "Call me at 10:30.",
        "Use at most 50% of the CPU.",
        "Max 30 seconds.",
        "Issue 42 is the login bug.",
        "Let's go with Option 1.",
        "1. Never push to main.",
    ],
)
def test_amounts_dates_times_ids_and_bare_units_are_no_setting(text: str) -> None:
    assert not has_settings(text)


@pytest.mark.parametrize(
    ("said", "new", "index"),
    [
        (["Target Node 18.", "Use Node 18 on CI."], "We're targeting Node 20 now.", 0),
        (["We run Redis 6.", "Never log secrets."], "We're running Redis 7 now.", 0),
        (["Use 4 workers.", "Use 6 workers."], "Scale to 8 workers.", 1),
        (["Please use Python 3.10."], "Don't use Python 2.", None),
        (["Never use Python 2."], "You can use Python 2.7.", None),
        (["We use Postgres 14 and Redis 6."], "We upgraded to Postgres 16.", None),
        (["Use port 8080 for the API."], "Use port 5432 for Postgres.", None),
        (["Use Node 18."], "Use Node 18.", None),
    ],
)
def test_the_newest_statement_with_a_changed_setting(
    said: list[str], new: str, index: int | None
) -> None:
    assert newest_changed(said, new) == index


def test_settings_under_no_common_key_are_other_things() -> None:
    assert apart("Max 10 requests per minute.", "Max 3 retries per request.")
    assert not apart("Let's bump retries to 5.", "Max 3 retries per request.")
    assert not apart("Max 10 requests per minute.", "Never log secrets.")
    assert apart("Test 6 fails too.", "Test 5 fails.")
    assert not apart("Test 5 fails again.", "Test 5 fails.")


@given(st.text(alphabet="ab v1.2-:/$'#%_ x9", max_size=24))
def test_the_plain_number_gate_never_skips_a_number_token(text: str) -> None:
    """Rule 3: a text the one search finds no plain number in has no number token."""
    numbers = [t for t in _settings._TOKEN.findall(text) if _settings._NUMBER.fullmatch(t)]
    if _settings._PLAIN_NUMBER.search(text) is None:
        assert numbers == []
