"""bench.required: every part is timed, each against the floor, and the parts add up."""

from __future__ import annotations

from bench.oneshot import FLOOR

from bench import layers, required


def test_every_part_is_timed_and_shown_as_a_ratio_to_the_floor() -> None:
    pairs = next(iter(layers.inputs(300).values()))
    times = required.measure(pairs, 1)
    assert set(times) == {*required.SHOWN, required.SUM}
    assert all(len(t) == 1 and t[0] > 0 for t in times.values())
    assert times[required.SUM][0] == sum(times[p][0] for p in required.PARTS)
    text = required.section({"synthetic": times}, "python -m bench.required --size 300")
    assert text.startswith(required.HEADING)
    lines = text.splitlines()
    for name in (*required.SHOWN, required.SUM):
        row = next(line for line in lines if line.startswith(f"| {name} |"))
        assert row.endswith("x) |"), row
    assert next(line for line in lines if line.startswith(f"| {FLOOR} |")).endswith("(1.00x) |")


def test_the_archive_part_hashes_every_message_but_the_ends() -> None:
    pairs = next(iter(layers.inputs(60).values()))
    messages, budget = pairs[0]
    digests = required._archive(messages, budget)
    assert isinstance(digests, list)
    assert len(digests) == len(messages) - 2
    assert len(set(digests)) == len(digests)  # the synthetic history repeats no message


def test_the_card_part_reads_what_the_user_stated() -> None:
    wire = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Always use Python 3.12. My order number is 88421."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Go ahead."},
    ]
    read = required._card(wire, 100)
    assert isinstance(read, tuple)
    texts = " ".join(s.text for s in read[0].statements)
    assert "Python 3.12" in texts
