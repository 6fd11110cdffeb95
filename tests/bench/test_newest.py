"""bench.newest: the newest result keeps the room in every position; the loop runs."""

from __future__ import annotations

from bench import newest


def test_the_newest_result_keeps_most_of_the_room_wherever_it_is() -> None:
    rows = newest.one_shot(lines=3_000)
    assert len(rows) == 6
    for name, share, budget, after, kept in rows:
        assert after <= budget, name
        room = budget if name.startswith("nothing") else int(budget * 0.6)  # tail: budget
        assert kept >= 0.9 * room - 100, (name, share, kept, room)


def test_the_loop_reports_its_compactions_and_views() -> None:
    compactions, mean, most = newest.loop(8_000, 12)
    assert 0 < compactions <= 12
    assert 0 < mean <= most <= 8_000
