"""bench.layers: every layer is timed, each against trim_messages approximate."""

from __future__ import annotations

from bench.oneshot import LC_CHEAP

from bench import layers


def test_every_layer_is_timed_and_shown_as_a_ratio() -> None:
    pairs = next(iter(layers.inputs(300).values()))
    times = layers.measure(pairs, 1)
    assert set(times) == set(layers.SHOWN)
    assert all(len(t) == 1 and t[0] > 0 for t in times.values())
    text = layers.section({"synthetic": times}, "python -m bench.layers --size 300")
    assert text.startswith(layers.HEADING)
    lines = text.splitlines()
    for name in layers.SHOWN:
        row = next(line for line in lines if line.startswith(f"| {name} |"))
        assert row.endswith("x) |"), row
    assert next(line for line in lines if line.startswith(f"| {LC_CHEAP} |")).endswith("(1.00x) |")


def test_the_round_trip_renders_what_it_parsed() -> None:
    pairs = next(iter(layers.inputs(60).values()))
    messages, budget = pairs[0]
    assert layers._round_trip(messages, budget) == list(messages)
