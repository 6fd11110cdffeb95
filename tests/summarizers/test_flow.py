"""Request bodies, answer parsing and validation: pure, shared by both backends."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import ConfigurationError, SummarizerError
from contextfold._summarizers._flow import (
    MIN_SECTIONS,
    PLACEHOLDER_KEY,
    Answer,
    Secret,
    accept,
    anthropic_body,
    check_limits,
    decode,
    describe_failure,
    openai_body,
    parse_anthropic,
    parse_openai,
    resolve_key,
    safe_url,
    sdk_arguments,
    sections_found,
)
from contextfold._summarizers._prompt import SECTIONS, build_prompt

from .samples import request

GOOD = "\n".join(f"## {title}\nNone." for title, _ in SECTIONS)


def test_openai_body_carries_the_prompt_and_the_bound() -> None:
    req = request(max_tokens=300)
    prompt = build_prompt(req)
    body = openai_body("qwen3", req, max_tokens_field="max_completion_tokens", temperature=0.2)
    assert body == {
        "model": "qwen3",
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ],
        "max_completion_tokens": 300,
        "temperature": 0.2,
    }
    assert "temperature" not in openai_body("qwen3", req)
    assert openai_body("qwen3", req)["max_tokens"] == 300


def test_anthropic_body_puts_the_system_prompt_at_top_level() -> None:
    req = request(max_tokens=300)
    prompt = build_prompt(req)
    assert anthropic_body("claude", req) == {
        "model": "claude",
        "max_tokens": 300,
        "system": prompt.system,
        "messages": [{"role": "user", "content": prompt.user}],
    }


def test_parse_openai_reads_text_usage_and_cut_off() -> None:
    data = {
        "choices": [{"message": {"content": "hi"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3},
    }
    assert parse_openai(data, "o") == Answer("hi", 10, 3, cut_off=True)
    parts = {"choices": [{"message": {"content": [{"type": "text", "text": "a"}]}}]}
    assert parse_openai(parts, "o") == Answer("a")
    assert parse_openai({"choices": [{"message": {"content": None}}]}, "o") == Answer("")


def test_parse_anthropic_joins_text_blocks_and_counts_cache_tokens_as_input() -> None:
    data = {
        "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b"},
        ],
        "stop_reason": "max_tokens",
        "usage": {
            "input_tokens": 5,
            "cache_creation_input_tokens": 7,
            "cache_read_input_tokens": 11,
            "output_tokens": 2,
        },
    }
    assert parse_anthropic(data, "a") == Answer("ab", 23, 2, cut_off=True)


@pytest.mark.parametrize("data", [None, [], {}, {"choices": []}, {"choices": "x"}])
def test_openai_answers_without_choices_are_failures(data: object) -> None:
    with pytest.raises(SummarizerError, match="no choices"):
        parse_openai(data, "o")


@pytest.mark.parametrize("data", [None, [], {}, {"content": "text"}, {"content": None}])
def test_anthropic_answers_without_content_blocks_are_failures(data: object) -> None:
    with pytest.raises(SummarizerError, match="no content blocks"):
        parse_anthropic(data, "a")


def test_usage_ignores_non_integers() -> None:
    data = {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "9"}}
    assert parse_openai(data, "o").input_tokens == 0


def test_decode_turns_malformed_json_into_a_failure_without_chaining() -> None:
    assert decode(b'{"a": 1}', "o") == {"a": 1}
    with pytest.raises(SummarizerError, match="not valid JSON") as info:
        decode(b'{"a": ', "o")
    assert info.value.__context__ is None
    assert info.value.__cause__ is None


def test_accept_returns_the_text_and_usage() -> None:
    result = accept("openai:m", request(), Answer(GOOD, 100, 20))
    assert (result.text, result.summarizer, result.input_tokens, result.output_tokens) == (
        GOOD,
        "openai:m",
        100,
        20,
    )
    assert not result.cached


def test_accept_strips_thinking_and_a_fence_around_the_whole() -> None:
    thought = f"<think>plan the summary</think>\n```markdown\n{GOOD}\n```\n"
    assert accept("o", request(), Answer(thought)).text == GOOD


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("<think>only thinking, never done", "empty"),
        ("Sure! Here is a summary of the chat.", "garbled"),
        ("\n".join(f"## {t}" for t, _ in SECTIONS[: MIN_SECTIONS - 1]), "garbled"),
    ],
)
def test_accept_rejects_empty_and_garbled_answers(text: str, reason: str) -> None:
    with pytest.raises(SummarizerError, match=reason):
        accept("o", request(), Answer(text))


def test_accept_rejects_answers_cut_off_or_over_the_bound() -> None:
    with pytest.raises(SummarizerError, match="cut off at the 512-token bound"):
        accept("o", request(), Answer(GOOD, cut_off=True))
    with pytest.raises(SummarizerError, match="over the 512-token bound"):
        accept("o", request(), Answer(GOOD, output_tokens=513))
    with pytest.raises(SummarizerError, match="over the 50-token bound"):
        accept("o", request(max_tokens=50), Answer(GOOD + "x" * 400))


def test_headings_are_recognised_in_the_forms_small_models_write() -> None:
    forms = [
        "## Task and goals",
        "**Constraints and preferences:**",
        "3. Decisions",
        "FACTS AND IDENTIFIERS",
    ]
    assert sections_found("\n".join(forms)) == 4
    assert sections_found("The task and goals are unclear") == 0


@given(st.text(max_size=300))
def test_accept_never_raises_anything_but_summarizer_error(text: str) -> None:
    try:
        result = accept("o", request(), Answer(text))
    except SummarizerError:
        return
    assert result.text.strip()
    assert sections_found(result.text) >= MIN_SECTIONS


def test_describe_failure_uses_type_and_status_never_the_message() -> None:
    class Timeout(Exception):
        pass

    class Connection(Exception):
        pass

    class Status(Exception):
        def __init__(self, status_code: int) -> None:
            super().__init__("Incorrect API key provided: sk-secret")
            self.status_code = status_code

    def describe(exc: Exception) -> str:
        return describe_failure(exc, timeout=Timeout, connection=Connection)

    assert describe(Timeout("sk-secret")) == "timed out"
    assert describe(Connection("sk-secret")) == "could not connect"
    assert describe(Status(503)) == "HTTP 503"
    assert describe(Status(429)) == "rate limited (HTTP 429)"
    assert describe(ValueError("sk-secret")) == "unexpected ValueError"


def test_resolve_key_prefers_explicit_then_environment_then_placeholder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert resolve_key("sk-a", "CF_TEST_KEY", required=True).value == "sk-a"
    monkeypatch.setenv("CF_TEST_KEY", "sk-env")
    assert resolve_key(None, "CF_TEST_KEY", required=True).value == "sk-env"
    monkeypatch.delenv("CF_TEST_KEY")
    assert resolve_key(None, "CF_TEST_KEY", required=False).value == PLACEHOLDER_KEY
    with pytest.raises(ConfigurationError, match="set CF_TEST_KEY or pass api_key="):
        resolve_key(None, "CF_TEST_KEY", required=True)


def test_secret_and_safe_url_hide_credentials() -> None:
    secret = Secret("sk-hidden")
    assert "sk-hidden" not in repr(secret) + str(secret) + f"{secret}"
    url = "https://user:pw@host.example:8443/v1?key=sk-hidden#frag"
    assert safe_url(url) == "https://host.example:8443/v1"
    assert safe_url(None) is None
    assert safe_url("http://h:port/v1") == "http://h:?/v1"


def test_limits_are_checked() -> None:
    check_limits(0.1, 0)
    with pytest.raises(ConfigurationError, match="timeout"):
        check_limits(0, 1)
    with pytest.raises(ConfigurationError, match="max_retries"):
        check_limits(1.0, -1)


def test_sdk_arguments_name_only_stable_fields_and_carry_the_rest_verbatim() -> None:
    body = {"model": "m", "messages": [], "max_tokens": 5, "temperature": 0.1}
    assert sdk_arguments(body, ("model", "messages")) == {
        "model": "m",
        "messages": [],
        "extra_body": {"max_tokens": 5, "temperature": 0.1},
    }
    assert sdk_arguments({"model": "m"}, ("model",)) == {"model": "m"}
