"""Server workers opening one new SQLite store at once all start (the WAL switch race).

Regression: a CI run saw one of several `contextfold serve` workers die at start-up with
"database is locked": they raced to switch the new file to WAL, and SQLite answers the
losers at once instead of waiting. Processes, as the workers are.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import contextfold as cf
from contextfold._proxy._store_sqlite import SqliteSessions

WORKERS = 8


def _open(path: str, start: multiprocessing.synchronize.Barrier) -> None:
    start.wait()
    SqliteSessions(path, ttl=60.0)
    cf.SqliteStore(path + ".other-archive")


def test_workers_opening_one_new_store_at_once_all_start(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    for attempt in range(3):  # new files each time: the race is at creation
        path = str(tmp_path / f"shared-{attempt}.db")
        start = context.Barrier(WORKERS)
        workers = [context.Process(target=_open, args=(path, start)) for _ in range(WORKERS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [w.exitcode for w in workers] == [0] * WORKERS, path
