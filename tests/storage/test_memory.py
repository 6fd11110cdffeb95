"""MemoryStore: the default backend, a locked dict."""

from __future__ import annotations

import threading

from contextfold import Archive, MemoryStore


def test_default_archive_uses_a_fresh_memory_store() -> None:
    one, two = Archive(), Archive()
    assert isinstance(one.store, MemoryStore)
    one.put("only in one")
    assert len(two) == 0


def test_context_manager_and_repr() -> None:
    with MemoryStore() as store:
        store.put("a", "1")
        assert repr(store) == "MemoryStore(1 entries)"
    assert repr(store) == "MemoryStore(closed)"


def test_racing_writers_of_one_ref_all_see_the_single_winner() -> None:
    store = MemoryStore()
    seen: list[str] = []
    barrier = threading.Barrier(8)

    def write(worker: int) -> None:
        barrier.wait()
        seen.append(store.put("ref", f"writer {worker}"))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(seen)) == 1
    assert store.get("ref") == seen[0]
