"""ContextManager: an agent loop replayed over real conversations, pins, snapshots, async."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import ContextManager
from contextfold._messages import MARKER_RE

from .corpus import records


def _replay(messages: list[dict[str, object]], budget: int) -> tuple[ContextManager, int, int]:
    """One request per assistant turn; returns the manager, compactions and cache misses."""
    manager = ContextManager(budget, "gpt-4o")
    previous: str | None = None
    compactions = misses = 0
    last = None
    for message in messages:
        if message["role"] == "assistant":
            view = manager.view()
            assert cf.validate(view, format="openai-chat") == []
            text = json.dumps(view)[:-1]
            report = manager.last_report
            if report is not last and report is not None and report.compacted:
                compactions += 1
            elif previous is not None and not text.startswith(previous):
                misses += 1  # the prefix changed although nothing was compacted
            last = manager.last_report
            previous = text
        manager.add(message)
    return manager, compactions, misses


@pytest.mark.parametrize("index", range(0, 243, 9))
def test_replayed_loop_keeps_the_prefix_between_compactions(index: int) -> None:
    found = records()
    if index >= len(found):
        pytest.skip("corpus not found")
    messages = found[index]["messages"]
    assert isinstance(messages, list)
    total = cf.count_tokens(messages, "gpt-4o")
    budget = max(total // 3, 2500)
    manager, compactions, misses = _replay(messages, budget)
    assert misses == 0
    assert compactions <= len(messages) // 2
    if total > budget:
        assert compactions >= 1
    for ref in set(MARKER_RE.findall(json.dumps(manager.view()))):
        assert manager.recall(ref) is not None


def _agent_messages(n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {
            "role": "user",
            "content": "Fix the failing test in /src/app.py. Never touch the CI config.",
        },
    ]
    for i in range(n):
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {
                            "name": "bash",
                            "arguments": json.dumps({"cmd": f"cat f{i}.py"}),
                        },
                    }
                ],
            }
        )
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"line {i}\n" * 300})
    return out


def test_pinned_exchange_survives_every_compaction() -> None:
    manager = ContextManager(3000, "gpt-4o")
    messages = _agent_messages(30)
    manager.extend(messages[:4])
    manager.pin_last()  # the tool result of call c0: pins its whole exchange
    compactions = 0
    for message in messages[4:]:
        manager.add(message)
        view = manager.view()
        assert messages[2] in view
        assert messages[3] in view
        report = manager.last_report
        compactions += report is not None and report.compacted
    assert compactions >= 3


def test_snapshot_restore_continues_identically() -> None:
    messages = _agent_messages(40)
    straight = ContextManager(4000, "gpt-4o")
    resumed = ContextManager(4000, "gpt-4o")
    for message in messages[:50]:
        straight.add(message)
        resumed.add(message)
        straight.view()
        resumed.view()
    resumed.observe_usage(resumed.tokens() + 10)
    straight.observe_usage(straight.tokens() + 10)
    snapshot = json.loads(json.dumps(resumed.snapshot()))
    resumed = ContextManager.restore(snapshot)
    for message in messages[50:]:
        straight.add(message)
        resumed.add(message)
        assert resumed.view() == straight.view()
    assert resumed.tokens() == straight.tokens()
    for ref in set(MARKER_RE.findall(json.dumps(straight.view()))):
        assert resumed.recall(ref) == straight.recall(ref)


def test_async_view_matches_sync_view() -> None:
    messages = _agent_messages(25)
    sync, other = ContextManager(3000, "gpt-4o"), ContextManager(3000, "gpt-4o")

    async def drive() -> None:
        for message in messages:
            sync.add(message)
            other.add(message)
            assert await other.aview() == sync.view()

    asyncio.run(drive())


def test_observe_usage_calibrates_the_estimate() -> None:
    manager = ContextManager(100_000, "gpt-4o")
    manager.extend(_agent_messages(3))
    manager.view()
    before = manager.tokens()
    manager.observe_usage(int(before * 1.2))
    # one observation: the ratio is learned and a 5% margin rides on top until there are more
    assert before * 1.19 <= manager.tokens() <= before * 1.2 * 1.06
    with pytest.raises(cf.ConfigurationError):
        ContextManager(10).observe_usage(5)


def test_anthropic_manager_alternates_and_lifts_the_system_prompt() -> None:
    manager = ContextManager(2500, "claude-sonnet-4-5", format="anthropic", system="Be careful.")
    manager.add({"role": "user", "content": "Read every file and report."})
    for i in range(25):
        manager.add(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"path": f"f{i}"}}
                ],
            }
        )
        manager.add(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{i}", "content": f"data {i}\n" * 200}
                ],
            }
        )
        view = manager.view()
        body = {"system": manager.system_prompt(), "messages": view}
        assert cf.validate(body, format="anthropic") == []
    assert manager.system_prompt() == "Be careful."


@pytest.mark.parametrize(
    "system",
    ["Be brief. Never use emojis.", [{"type": "text", "text": "Be brief. Never use emojis."}]],
)
def test_an_anthropic_system_message_added_is_the_system_prompt(system: object) -> None:
    """A `{"role": "system"}` message given to an Anthropic manager (or to Sessions, which
    has no `system=`) is its system prompt: it was counted, then left out of the view and
    of `system_prompt()` alike, so the request went without it."""
    manager = ContextManager(400, "claude-sonnet-4-5", format="anthropic")
    manager.add({"role": "system", "content": system})
    manager.add({"role": "user", "content": "Hello, what can you do?"})
    assert manager.view() == [{"role": "user", "content": "Hello, what can you do?"}]
    assert manager.system_prompt() == system
    sessions = cf.Sessions(400, "claude-sonnet-4-5", format="anthropic")
    history = [{"role": "system", "content": system}, {"role": "user", "content": "Hi."}]
    assert sessions.view(history).messages == history[1:]


def test_droppable_messages_go_first() -> None:
    manager = ContextManager(3000, "gpt-4o", keep_last=1)
    messages = _agent_messages(6)
    manager.extend(messages[:2])
    manager.add({"role": "assistant", "content": "status ping " * 200}, droppable=True)
    manager.extend(messages[2:])
    manager.compact()
    report = manager.last_report
    assert report is not None
    assert report.dropped >= 1
    assert all("status ping" not in json.dumps(m) for m in manager.view())


def test_bad_message_is_rejected_with_its_field() -> None:
    manager = ContextManager(1000)
    with pytest.raises(cf.InvalidConversation) as info:
        manager.add({"role": "robot", "content": "hi"})
    assert info.value.field is not None
    with pytest.raises(cf.ConfigurationError):
        ContextManager(0)
    with pytest.raises(cf.ConfigurationError):
        ContextManager(1000, high=2.0)


@pytest.mark.parametrize("fmt", cf.FORMATS)
def test_tools_may_be_given_as_the_sdk_takes_them(fmt: str) -> None:
    """Tool definitions in the wire shape a `create()` call takes count like ToolSpecs."""
    wire = cf.recall_tool(fmt)
    as_dicts = ContextManager(8000, "gpt-4o", format=fmt, tools=[wire])
    spec = as_dicts.tools[0]
    assert spec.name == cf.RECALL_TOOL_NAME
    as_specs = ContextManager(8000, "gpt-4o", format=fmt, tools=[spec])
    assert as_dicts.tokens() == as_specs.tokens() > 0
    as_dicts.add({"role": "user", "content": "hi"})
    assert as_dicts.view()


def test_sdk_response_objects_are_appended_as_requests_carry_them() -> None:
    """`manager.add(response)` with the SDK's own response objects keeps only what a
    request may carry (no id, model, usage, stop_reason; no null fields)."""
    anthropic_types = pytest.importorskip("anthropic.types")
    openai_types = pytest.importorskip("openai.types.chat")
    reply = anthropic_types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "Done."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 2},
        }
    )
    claude = ContextManager(8000, format="anthropic")
    claude.add({"role": "user", "content": "Go."})
    claude.add(reply)
    assert claude.view()[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Done."}],
    }
    message = openai_types.ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": "Done.", "refusal": None, "annotations": []}
    )
    gpt = ContextManager(8000, "gpt-4o")
    gpt.add({"role": "user", "content": "Go."})
    gpt.add(message)
    assert gpt.view()[-1] == {"role": "assistant", "content": "Done."}


def test_restore_keeps_every_observation_the_calibration_fits() -> None:
    """The calibrated counter fits up to 32 observations; a snapshot that kept only the
    last 16 restored a different fit, so the restored loop counted, and then compacted,
    differently from the one it continued."""
    straight = ContextManager(4000, "gpt-4o")
    for i, message in enumerate(_agent_messages(30)):
        straight.add(message)
        billed = cf.count_tokens(straight.view(), "gpt-4o") * (1.1 + i % 5 / 20) + 40 * (i % 3)
        straight.observe_usage(int(billed))
    assert straight.counter.observations > 16
    resumed = ContextManager.restore(json.loads(json.dumps(straight.snapshot())))
    assert resumed.counter.observations == straight.counter.observations
    assert (resumed.counter.ratio, resumed.counter.offset) == (
        straight.counter.ratio,
        straight.counter.offset,
    )
    assert resumed.tokens() == straight.tokens()


_GOOD = [
    {"role": "user", "content": "Run the tests."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "3 passed"},
    {"role": "assistant", "content": "All green."},
]


@given(
    st.lists(st.sampled_from(_GOOD), max_size=6),
    st.integers(min_value=0),
    st.sampled_from([{"role": "narrator", "content": "x"}, {"content": "no role"}, "text", 7]),
)
def test_extend_adds_all_or_none_and_names_the_bad_index(
    batch: list[dict[str, object]], at: int, bad: object
) -> None:
    manager = ContextManager(10_000, format="openai-chat", system="You are terse.")
    manager.add({"role": "user", "content": "Hello."})
    before = (manager.messages(), manager.tokens(), manager.view())
    where = at % (len(batch) + 1)
    with pytest.raises(cf.InvalidConversation) as caught:
        manager.extend([*batch[:where], bad, *batch[where:]])
    assert caught.value.index == where
    assert f"message {where}" in str(caught.value)
    assert (manager.messages(), manager.tokens(), manager.view()) == before
    manager.extend(batch)  # the same manager still takes a good batch
    assert len(manager.messages()) == len(before[0]) + len(batch)


@pytest.mark.parametrize("counter", ["heuristic", b"tiktoken", 42, object()])
def test_a_counter_that_is_not_one_is_a_configuration_error(counter: object) -> None:
    """A counter's name or any object without count(message) is refused up front, naming
    what to pass instead, by compact() and the manager alike (it used to fail deep in the
    counting with a TypeError: str has a count method of its own)."""
    messages = [{"role": "user", "content": "hi"}]
    with pytest.raises(cf.ConfigurationError, match="HeuristicCounter"):
        cf.compact(messages, 100, counter=counter)  # type: ignore[arg-type]
    with pytest.raises(cf.ConfigurationError, match="counter_for"):
        cf.ContextManager(100, counter=counter)  # type: ignore[arg-type]
