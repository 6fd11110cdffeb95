"""FallbackSummarizer: ordered fallback, circuit breakers on an injected clock, last resort."""

from __future__ import annotations

import asyncio
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    AnthropicSummarizer,
    ConfigurationError,
    FallbackSummarizer,
    OpenAISummarizer,
    SummarizerError,
    SummaryRequest,
    SummaryResult,
)
from contextfold.testing import FakeClock, FakeSummarizer

from .llm_server import FAULTS, TIMEOUT, Fault, LLMServer, timeout_for
from .samples import request

OPENAI_MODEL = "qwen3-32b"
ANTHROPIC_MODEL = "claude-haiku-4-5"


def ok(name: str) -> FakeSummarizer:
    """A member that always answers, naming itself."""
    return FakeSummarizer(lambda _: f"by {name}", name=name)


def failing(name: str, exc: Exception | None = None) -> FakeSummarizer:
    """A member that always raises `exc` (a SummarizerError by default)."""

    def fail(_: SummaryRequest) -> str:
        raise exc or SummarizerError(f"{name}: down")

    return FakeSummarizer(fail, name=name)


class Switch:
    """A member whose health the test flips; counts its calls."""

    def __init__(self, name: str = "switch") -> None:
        self.name = name
        self.healthy = False
        self.calls = 0

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.calls += 1
        if not self.healthy:
            raise SummarizerError(f"{self.name}: down")
        return SummaryResult("switch text", summarizer=self.name)


def test_first_member_that_succeeds_answers() -> None:
    first, second, last = ok("a"), ok("b"), ok("ledger")
    result = FallbackSummarizer([first, second], last_resort=last).summarize(request())
    assert result.summarizer == "a"
    assert (len(first.requests), len(second.requests), len(last.requests)) == (1, 0, 0)


def test_failures_fall_through_and_the_result_names_the_writer() -> None:
    chain = [failing("a"), failing("b", ValueError("boom")), ok("c")]
    assert FallbackSummarizer(chain, last_resort=ok("ledger")).summarize(request()).text == "by c"


def test_last_resort_answers_when_every_member_fails() -> None:
    last = ok("ledger")
    result = FallbackSummarizer([failing("a"), failing("b")], last_resort=last).summarize(request())
    assert (result.summarizer, result.text) == ("ledger", "by ledger")
    assert FallbackSummarizer([], last_resort=last).summarize(request()).summarizer == "ledger"


def test_an_empty_summary_counts_as_a_failure() -> None:
    blank = FakeSummarizer(lambda _: "  ", name="blank")
    result = FallbackSummarizer([blank], last_resort=ok("ledger")).summarize(request())
    assert result.summarizer == "ledger"


def test_circuit_opens_after_consecutive_failures_and_skips_the_member() -> None:
    member = Switch()
    chain = FallbackSummarizer([member], last_resort=ok("ledger"), failure_threshold=3)
    for _ in range(5):
        chain.summarize(request())
    assert member.calls == 3
    assert chain.circuits == ("open",)


def test_a_success_resets_the_failure_count() -> None:
    member = Switch()
    chain = FallbackSummarizer([member], last_resort=ok("ledger"), failure_threshold=3)
    for healthy in (False, False, True, False, False):
        member.healthy = healthy
        chain.summarize(request())
    assert chain.circuits == ("closed",)


def test_after_the_cooldown_one_trial_reopens_or_closes_the_circuit() -> None:
    clock, member = FakeClock(), Switch()
    chain = FallbackSummarizer(
        [member], last_resort=ok("ledger"), failure_threshold=2, cooldown=60.0, clock=clock
    )
    chain.summarize(request())
    chain.summarize(request())
    assert chain.circuits == ("open",)
    clock.advance(59.9)
    chain.summarize(request())
    assert member.calls == 2
    clock.advance(0.1)
    assert chain.circuits == ("half-open",)
    assert chain.summarize(request()).summarizer == "ledger"  # the trial fails
    assert (member.calls, chain.circuits) == (3, ("open",))
    clock.advance(60.0)
    member.healthy = True
    assert chain.summarize(request()).summarizer == "switch"
    assert chain.circuits == ("closed",)


def test_failures_are_logged_without_foreign_exception_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="contextfold")
    chain = [failing("a", ValueError("secret detail")), failing("b")]
    FallbackSummarizer(chain, last_resort=ok("ledger"), failure_threshold=1).summarize(request())
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "summarizer a failed (ValueError); circuit open",
        "summarizer b failed (b: down); circuit open",
    ]


def test_an_interrupt_is_not_a_failure_and_releases_the_trial() -> None:
    clock = FakeClock()
    member = failing("a", SummarizerError("a: down"))
    chain = FallbackSummarizer(
        [member], last_resort=ok("ledger"), failure_threshold=1, cooldown=1.0, clock=clock
    )
    chain.summarize(request())
    clock.advance(1.0)
    member.fn = lambda _: (_ for _ in ()).throw(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        chain.summarize(request())
    assert chain.circuits == ("half-open",)
    member.fn = lambda _: "recovered"
    assert chain.summarize(request()).text == "recovered"


def test_bad_settings_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="failure_threshold"):
        FallbackSummarizer([], last_resort=ok("l"), failure_threshold=0)
    with pytest.raises(ConfigurationError, match="cooldown"):
        FallbackSummarizer([], last_resort=ok("l"), cooldown=-1)


def test_repr_names_the_chain() -> None:
    chain = FallbackSummarizer([ok("a"), Switch("s")], last_resort=ok("ledger"))
    assert repr(chain) == "FallbackSummarizer([a, s], last_resort=ledger)"


def test_async_falls_back_and_runs_sync_only_members_in_a_thread() -> None:
    switch = Switch()
    switch.healthy = True
    chain = FallbackSummarizer([failing("a"), switch], last_resort=ok("ledger"))
    assert asyncio.run(chain.asummarize(request())).summarizer == "switch"
    last = FallbackSummarizer([failing("a")], last_resort=ok("ledger"))
    assert asyncio.run(last.asummarize(request())).summarizer == "ledger"


def test_async_half_open_admits_a_single_trial_while_it_is_in_flight() -> None:
    clock = FakeClock()

    class Slow:
        name = "slow"
        calls = 0

        def summarize(self, request: SummaryRequest) -> SummaryResult:
            raise SummarizerError("slow: down")

        async def asummarize(self, request: SummaryRequest) -> SummaryResult:
            self.calls += 1
            await asyncio.sleep(0.01)
            return SummaryResult("slow text", summarizer="slow")

    slow = Slow()
    chain = FallbackSummarizer(
        [slow], last_resort=ok("ledger"), failure_threshold=1, cooldown=5.0, clock=clock
    )
    chain.summarize(request())
    clock.advance(5.0)

    async def both() -> list[SummaryResult]:
        return list(await asyncio.gather(chain.asummarize(request()), chain.asummarize(request())))

    writers = sorted(r.summarizer for r in asyncio.run(both()))
    assert writers == ["ledger", "slow"]
    assert slow.calls == 1
    assert chain.circuits == ("closed",)


@given(
    st.lists(st.tuples(st.booleans(), st.floats(min_value=0, max_value=30)), max_size=40),
    st.integers(min_value=1, max_value=4),
)
def test_a_member_is_never_called_while_its_circuit_is_open(
    script: list[tuple[bool, float]], threshold: int
) -> None:
    clock, member, cooldown = FakeClock(), Switch(), 10.0
    chain = FallbackSummarizer(
        [member],
        last_resort=ok("ledger"),
        failure_threshold=threshold,
        cooldown=cooldown,
        clock=clock,
    )
    calls: list[tuple[float, bool]] = []
    for healthy, pause in script:
        member.healthy = healthy
        before = member.calls
        assert chain.summarize(request()).text in ("switch text", "by ledger")
        if member.calls > before:
            calls.append((clock.now, healthy))
        clock.advance(pause)
    streak, opened_at = 0, None
    for at, healthy in calls:
        assert opened_at is None or at - opened_at >= cooldown
        streak = 0 if healthy else streak + 1
        opened_at = None if healthy else (at if streak >= threshold else opened_at)


# --- against the real local server, through the real SDKs --------------------------------


def backends(
    server: LLMServer, timeout: float = TIMEOUT
) -> tuple[OpenAISummarizer, AnthropicSummarizer]:
    """An OpenAI-compatible primary and an Anthropic fallback, both on `server`."""
    return (
        OpenAISummarizer(
            OPENAI_MODEL, base_url=server.openai_url, api_key="sk-o", timeout=timeout, max_retries=0
        ),
        AnthropicSummarizer(
            ANTHROPIC_MODEL, base_url=server.url, api_key="sk-a", timeout=timeout, max_retries=0
        ),
    )


@pytest.mark.parametrize("fault", FAULTS)
def test_each_server_fault_falls_back_to_the_next_backend(
    llm_server: LLMServer, fault: Fault
) -> None:
    llm_server.script(OPENAI_MODEL, fault)
    chain = FallbackSummarizer(backends(llm_server, timeout_for(fault)), last_resort=ok("ledger"))
    result = chain.summarize(request())
    assert result.summarizer == f"anthropic:{ANTHROPIC_MODEL}"
    assert result.text.startswith("## Task and goals")
    assert (llm_server.count(OPENAI_MODEL), llm_server.count(ANTHROPIC_MODEL)) == (1, 1)


@pytest.mark.parametrize("fault", ["500", "hang", "malformed", "empty"])
def test_async_server_faults_fall_back_too(llm_server: LLMServer, fault: Fault) -> None:
    llm_server.script(OPENAI_MODEL, fault)
    chain = FallbackSummarizer(backends(llm_server, timeout_for(fault)), last_resort=ok("ledger"))
    result = asyncio.run(chain.asummarize(request()))
    assert result.summarizer == f"anthropic:{ANTHROPIC_MODEL}"


def test_when_every_backend_is_down_the_last_resort_answers(llm_server: LLMServer) -> None:
    llm_server.always(OPENAI_MODEL, "500")
    llm_server.always(ANTHROPIC_MODEL, "429")
    chain = FallbackSummarizer(backends(llm_server), last_resort=ok("ledger"))
    assert chain.summarize(request()).summarizer == "ledger"
    assert asyncio.run(chain.asummarize(request())).summarizer == "ledger"


def run_circuit_scenario(llm_server: LLMServer, call: object) -> None:
    """Open the primary's circuit on real 500s, then close it after the cooldown."""
    assert callable(call)
    clock = FakeClock()
    chain = FallbackSummarizer(
        backends(llm_server),
        last_resort=ok("ledger"),
        failure_threshold=2,
        cooldown=30.0,
        clock=clock,
    )
    llm_server.always(OPENAI_MODEL, "500")
    for _ in range(4):
        assert call(chain).summarizer == f"anthropic:{ANTHROPIC_MODEL}"
    assert llm_server.count(OPENAI_MODEL) == 2  # skipped once the circuit opened
    assert chain.circuits == ("open", "closed")
    clock.advance(30.0)
    call(chain)  # the half-open trial fails: open again
    assert (llm_server.count(OPENAI_MODEL), chain.circuits[0]) == (3, "open")
    llm_server.always(OPENAI_MODEL, "ok")
    clock.advance(30.0)
    assert call(chain).summarizer == f"openai:{OPENAI_MODEL}"
    assert chain.circuits == ("closed", "closed")
    assert llm_server.count(ANTHROPIC_MODEL) == 5


def test_circuit_opens_on_real_failures_and_closes_after_the_cooldown(
    llm_server: LLMServer,
) -> None:
    run_circuit_scenario(llm_server, lambda chain: chain.summarize(request()))


def test_async_circuit_opens_and_closes_the_same_way(llm_server: LLMServer) -> None:
    run_circuit_scenario(llm_server, lambda chain: asyncio.run(chain.asummarize(request())))
