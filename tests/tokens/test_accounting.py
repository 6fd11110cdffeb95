"""Overheads and totals: the cookbook's API-verified examples, additivity, caching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Conversation, Image, Message, Text, ToolCall, ToolResult, ToolSpec
from contextfold._tokens._accounting import Accountant
from contextfold._tokens._images import GPT_4O
from contextfold._tokens._profiles import ANTHROPIC, OPENAI_CHAT, overheads_for
from contextfold.testing import FixedCounter
from tests import strategies

pytest.importorskip("tiktoken")

# The cookbook's example conversations and the prompt_tokens the OpenAI API reported for them
# ("How to count tokens with tiktoken", sections 6 and 7).
EXAMPLE = Conversation(
    (
        Message(
            "system",
            (
                Text(
                    "You are a helpful, pattern-following assistant that translates "
                    "corporate jargon into plain English."
                ),
            ),
        ),
        Message(
            "system",
            (Text("New synergies will help drive top-line growth."),),
            name="example_user",
        ),
        Message(
            "system",
            (Text("Things working well together will increase revenue."),),
            name="example_assistant",
        ),
        Message(
            "system",
            (
                Text(
                    "Let's circle back when we have more bandwidth to touch base on "
                    "opportunities for increased leverage."
                ),
            ),
            name="example_user",
        ),
        Message(
            "system",
            (Text("Let's talk later when we're less busy about how to do better."),),
            name="example_assistant",
        ),
        Message(
            "user",
            (
                Text(
                    "This late pivot means we don't have time to boil the ocean for the "
                    "client deliverable."
                ),
            ),
        ),
    )
)
WEATHER_TOOL = ToolSpec(
    "get_current_weather",
    "Get the current weather in a given location",
    {
        "type": "object",
        "properties": {
            "location": {
                "type": "string",
                "description": "The city and state, e.g. San Francisco, CA",
            },
            "unit": {
                "type": "string",
                "description": "The unit of temperature to return",
                "enum": ["celsius", "fahrenheit"],
            },
        },
        "required": ["location"],
    },
)
WEATHER = Conversation(
    (
        Message(
            "system",
            (Text("You are a helpful assistant that can answer to questions about the weather."),),
        ),
        Message("user", (Text("What's the weather like in San Francisco?"),)),
    ),
    tools=(WEATHER_TOOL,),
)


@pytest.mark.parametrize(
    ("model", "expected"),
    [("gpt-4o", 124), ("gpt-4o-mini", 124), ("gpt-4", 129), ("gpt-3.5-turbo", 129)],
)
def test_cookbook_messages(model: str, expected: int) -> None:
    assert cf.count_conversation(EXAMPLE, cf.counter_for(model, "openai-chat")) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [("gpt-4o", 101), ("gpt-4o-mini", 101), ("gpt-4", 105), ("gpt-3.5-turbo", 105)],
)
def test_cookbook_tools(model: str, expected: int) -> None:
    assert cf.count_conversation(WEATHER, cf.counter_for(model, "openai-chat")) == expected


def test_fixed_overhead_is_priming_plus_tools() -> None:
    counter = cf.counter_for("gpt-4o", "openai-chat")
    assert cf.fixed_overhead(Conversation(()), counter) == 3
    assert cf.fixed_overhead(WEATHER, counter) > 3
    assert cf.fixed_overhead(WEATHER, FixedCounter()) == 0


def test_tool_calls_results_and_images() -> None:
    counter = cf.counter_for("gpt-4o", "openai-chat")
    t = counter.count_text
    call = ToolCall("call_1", "get_current_weather", '{"location": "Paris"}')
    assistant = Message("assistant", (call,))
    assert counter.count(assistant) == 3 + t("assistant") + 3 + t("call_1") + t(
        "get_current_weather"
    ) + t('{"location": "Paris"}')
    result = Message("tool", (ToolResult("call_1", (Text("18C, sunny"),)),), name="weather")
    assert counter.count(result) == 3 + t("tool") + t("call_1") + t("18C, sunny") + 1 + t("weather")
    image = Message("user", (Image("https://example.com/a.png", detail="low"),))
    assert counter.count(image) == 3 + t("user") + 85
    original = Message("user", (Image("https://example.com/a.png", detail="original"),))
    high = Message("user", (Image("https://example.com/a.png", detail="high"),))
    assert counter.count(original) == counter.count(high) == 3 + t("user") + 85 + 8 * 170


def test_schema_keys_beyond_the_cookbook_are_counted() -> None:
    nested = ToolSpec(
        "f", "d", {"properties": {"p": {"type": "object", "properties": {"x": {"type": "int"}}}}}
    )
    flat = ToolSpec("f", "d", {"properties": {"p": {"type": "object"}}})
    counter = cf.counter_for("gpt-4o", "openai-chat")
    with_nested = cf.fixed_overhead(Conversation((), tools=(nested,)), counter)
    assert with_nested > cf.fixed_overhead(Conversation((), tools=(flat,)), counter)


def test_anthropic_profile_errs_high_and_counts_tool_json() -> None:
    counter = cf.HeuristicCounter(format="anthropic", model="claude-sonnet-4-5")
    conv = Conversation((Message("user", (Text("hello there"),)),), tools=(WEATHER_TOOL,))
    assert cf.fixed_overhead(conv, counter) > 589
    assert overheads_for("anthropic", "claude-3-opus-20240229").tool_prompt == 530
    assert overheads_for("anthropic", None) is ANTHROPIC


conversations = st.builds(
    Conversation,
    st.lists(strategies.messages, max_size=6).map(tuple),
    tools=st.lists(
        st.builds(ToolSpec, strategies.ids, st.none() | strategies.texts), max_size=2
    ).map(tuple),
)


COUNTERS: list[cf.TokenCounter] = [
    cf.HeuristicCounter(),
    cf.HeuristicCounter(format="anthropic"),
    cf.CalibratedCounter(cf.HeuristicCounter()),
    FixedCounter(),
]


@settings(max_examples=50)
@given(conv=conversations)
def test_totals_are_additive(conv: Conversation) -> None:
    for counter in [*COUNTERS, cf.counter_for("gpt-4o", "openai-chat")]:
        total = cf.count_conversation(conv, counter)
        parts = [counter.count(m) for m in conv.messages]
        assert total == cf.fixed_overhead(conv, counter) + sum(parts)
        assert all(n >= 0 for n in parts)


def test_text_counts_are_cached_per_string() -> None:
    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return len(text)

    acct = Accountant(count, OPENAI_CHAT, GPT_4O, cache_size=4)
    message = Message("user", (Text("same text"), Text("same text")))
    for _ in range(100):
        acct.message(message)
    assert sorted(calls) == ["same text", "user"]
    for i in range(10):  # the cache is bounded: old entries are evicted
        acct.count_text(f"other {i}")
    acct.message(message)
    assert calls.count("same text") == 2


def test_counting_a_long_history_again_is_cheap() -> None:
    import time

    counter = cf.HeuristicCounter()
    history = [Message("user", (Text(f"message number {i} " * 20),)) for i in range(1000)]
    start = time.perf_counter()
    first = sum(counter.count(m) for m in history)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    again = sum(counter.count(m) for m in history)
    warm = time.perf_counter() - start
    assert first == again
    assert warm < cold


def test_the_default_cache_holds_a_50000_message_history_without_thrashing() -> None:
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return len(text)

    acct = Accountant(count, OPENAI_CHAT, GPT_4O)
    history = []
    for i in range(25_000):
        call = ToolCall(f"call_{i}", "bash", f'{{"cmd": "cat file_{i}.py"}}')
        history.append(Message("assistant", (call,)))
        history.append(Message("tool", (ToolResult(f"call_{i}", (Text(f"line {i}"),)),)))
    first = [acct.message(m) for m in history]
    encoded = len(seen)
    assert encoded > 65_536  # more distinct texts than the old bound held
    assert [acct.message(m) for m in history] == first
    assert len(seen) == encoded  # the second pass is all cache hits


def test_a_hosted_tool_costs_its_configuration_as_sent() -> None:
    """A Responses file_search entry sends its vector store ids and filters; counting only
    its type would let the request outgrow the budget by their size."""
    stores = [f"vs_{i:04d}abcdef0123456789" for i in range(40)]
    small: dict[str, object] = {"type": "file_search", "vector_store_ids": stores[:1]}
    large: dict[str, object] = {"type": "file_search", "vector_store_ids": stores}
    counter = cf.counter_for("gpt-4o", "openai-responses")

    def tokens(tool: dict[str, object]) -> int:
        request = {"model": "gpt-4o", "input": [], "tools": [tool]}
        return cf.count_tokens(request, "gpt-4o", format="openai-responses")

    grown = tokens(large) - tokens(small)
    assert grown >= counter.count_text(" ".join(stores[1:]))
    weather: dict[str, object] = {"type": "function", "name": "w", "parameters": {}}
    assert tokens({**weather, "strict": True}) == tokens(weather)  # function tools: unchanged
