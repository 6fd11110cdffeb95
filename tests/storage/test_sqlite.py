"""SqliteStore: persistence across close, reopen, threads and processes; bad files refused."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from contextfold import Archive, ArchiveError, Message, SqliteStore, Text, ToolResult
from contextfold._storage import SCHEMA_VERSION

MESSAGE = Message("tool", (ToolResult("call_1", (Text("812 tokens of output " * 40),)),))

WRITER = """
import sys
from contextfold import Archive, SqliteStore, Message, Text, ToolResult
message = Message("tool", (ToolResult("call_1", (Text("812 tokens of output " * 40),)),))
with Archive(SqliteStore(sys.argv[1])) as archive:
    refs = [archive.put(message, label="read_file")]
    refs += [archive.put(f"{sys.argv[2]} payload {i}") for i in range(int(sys.argv[3]))]
print(" ".join(refs))
"""


ENDLESS_WRITER = """
import sys
from contextfold import Archive, SqliteStore
archive = Archive(SqliteStore(sys.argv[1]))
i = 0
while True:
    ref = archive.put(sys.argv[2] + " entry %d " % i + "x" * (i * 37 % 9000))
    sys.stdout.write(ref + "\\n")
    sys.stdout.flush()
    i += 1
"""


def run_writer(path: Path, tag: str, count: int) -> subprocess.Popen[str]:
    """Start a separate Python process that archives into `path` and prints its refs."""
    args = [sys.executable, "-c", WRITER, str(path), tag, str(count)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str]) -> list[str]:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return out.split()


def test_entries_survive_close_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    with Archive(SqliteStore(path)) as archive:
        refs = [archive.put(MESSAGE, label="read_file"), archive.put("plain text")]
    with Archive(SqliteStore(path, create=False)) as again:
        assert again.refs() == refs
        assert again.get(refs[0]) == MESSAGE
        assert again.entry(refs[0]).label == "read_file"
        assert again.recall_text(refs[1]) == "plain text"
        assert again.put("plain text") == refs[1]
        assert len(again) == 2


def test_an_archive_written_by_another_process_is_read_back(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    refs = finish(run_writer(path, "child", 3))
    with Archive(SqliteStore(path, create=False)) as archive:
        assert archive.refs() == refs
        assert archive.get(refs[0]) == MESSAGE
        assert archive.entry(refs[0]).label == "read_file"
        assert [archive.get(r) for r in refs[1:]] == [f"child payload {i}" for i in range(3)]
        assert archive.put(MESSAGE) == refs[0], "refs are the same in every process"


def test_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    with Archive(SqliteStore(path)) as reader:
        writers = [run_writer(path, tag, 60) for tag in ("left", "right")]
        results = [finish(w) for w in writers]
        assert results[0][0] == results[1][0], "the shared message is stored once"
        assert len(reader) == 1 + 2 * 60
        for tag, refs in zip(("left", "right"), results, strict=True):
            assert [reader.get(r) for r in refs[1:]] == [f"{tag} payload {i}" for i in range(60)]


def test_processes_creating_one_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    writers = [run_writer(path, f"w{n}", 5) for n in range(4)]
    results = [finish(w) for w in writers]
    with Archive(SqliteStore(path, create=False)) as archive:
        assert len(archive) == 1 + 4 * 5
        assert {r[0] for r in results} == {archive.refs()[0]}


def test_threads_share_one_store(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    with Archive(SqliteStore(tmp_path / "archive.db")) as archive:

        def work(worker: int) -> None:
            try:
                for i in range(50):
                    ref = archive.put(f"worker {worker} item {i}")
                    assert archive.get(ref) == f"worker {worker} item {i}"
                    archive.put(f"shared item {i}")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(archive) == 6 * 50 + 50


def test_a_second_connection_sees_writes_at_once(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    with Archive(SqliteStore(path)) as writer, Archive(SqliteStore(path)) as reader:
        ref = writer.put(MESSAGE)
        assert reader.get(ref) == MESSAGE


def test_files_use_wal_and_memory_databases_work(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    with SqliteStore(path):
        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        raw.close()
    with Archive(SqliteStore(":memory:")) as archive:
        assert archive.get(archive.put(MESSAGE)) == MESSAGE
        assert repr(archive.store) == "SqliteStore(':memory:')"


# --- files that are not (usable) archives ----------------------------------------------------


def raw_db(path: Path, *statements: str) -> None:
    """Run SQL statements on `path` with plain sqlite3, as another program would."""
    conn = sqlite3.connect(path)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    with pytest.raises(ArchiveError, match="not a database") as info:
        SqliteStore(path)
    assert "notes.db" in str(info.value)
    assert not isinstance(info.value.__cause__, ArchiveError)


def test_a_corrupted_archive_raises_archive_error_never_sqlite_errors(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    with Archive(SqliteStore(path)) as archive:
        refs = [archive.put("x" * 500 + str(i)) for i in range(200)]
    data = bytearray(path.read_bytes())
    data[3 * 4096 : 4 * 4096] = b"\xab" * 4096
    path.write_bytes(bytes(data))
    failures = 0
    try:
        with Archive(SqliteStore(path)) as damaged:
            for i, ref in enumerate(refs):
                try:
                    assert damaged.get(ref) == "x" * 500 + str(i)
                except ArchiveError:
                    failures += 1
    except ArchiveError:
        failures += 1
    assert failures > 0


def test_a_foreign_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    raw_db(path, "CREATE TABLE users (name TEXT)")
    with pytest.raises(ArchiveError, match=r"not a contextfold archive.*users"):
        SqliteStore(path)
    conn = sqlite3.connect(path)
    tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
    conn.close()
    assert tables == [("users",)]


def test_the_proxys_session_store_points_at_its_archive(tmp_path: Path) -> None:
    from contextfold._proxy._config import open_store

    path = tmp_path / "proxy.db"
    open_store(f"sqlite:{path}", 60.0).close()
    with pytest.raises(ArchiveError, match=r"session store: its archive is '.*proxy\.db\.archive'"):
        SqliteStore(path, readonly=True)
    SqliteStore(f"{path}.archive", readonly=True).close()


def test_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    SqliteStore(path).close()
    raw_db(path, f"UPDATE contextfold_schema SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(ArchiveError, match=f"schema version {SCHEMA_VERSION + 1}"):
        SqliteStore(path)


def test_a_schema_without_its_entry_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    SqliteStore(path).close()
    raw_db(path, "DROP TABLE contextfold_archive")
    with pytest.raises(ArchiveError, match="incomplete"):
        SqliteStore(path)


def test_create_false_needs_an_existing_archive(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="does not exist"):
        SqliteStore(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()
    (tmp_path / "empty.db").touch()
    with pytest.raises(ArchiveError, match="empty database"):
        SqliteStore(tmp_path / "empty.db", create=False)


def test_an_unopenable_path_is_an_archive_error(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="cannot open"):
        SqliteStore(tmp_path)


def test_a_row_tampered_into_a_blob_is_an_archive_error(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    with Archive(SqliteStore(path)) as archive:
        ref = archive.put("text")
    raw_db(path, "UPDATE contextfold_archive SET data = x'00ff'")
    with SqliteStore(path) as store:
        with pytest.raises(ArchiveError, match="not stored as text"):
            store.get(ref)
        with pytest.raises(ArchiveError, match="not stored as text"):
            store.put(ref, "again")


def test_text_sqlite_cannot_encode_is_an_archive_error() -> None:
    with SqliteStore(":memory:") as store, pytest.raises(ArchiveError, match="surrogates"):
        store.put("r0123456789", "lone \ud800")


def test_writers_killed_mid_write_leave_every_completed_entry(tmp_path: Path) -> None:
    """Processes SIGKILLed while writing leave a readable archive holding every entry whose
    `put` returned (each printed only after it did), in WAL mode as written."""
    path = tmp_path / "archive.db"
    done: list[str] = []
    for round_ in range(3):
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", ENDLESS_WRITER, str(path), f"w{round_}.{k}"],
                stdout=subprocess.PIPE,
                text=True,
            )
            for k in range(3)
        ]
        time.sleep(0.8)
        for writer in writers:
            os.kill(writer.pid, signal.SIGKILL)
        for writer in writers:
            out, _ = writer.communicate(timeout=60)
            done += out.split()
    assert len(done) > 30
    with Archive(SqliteStore(path, readonly=True)) as archive:
        missing = [ref for ref in done if ref not in archive]
        assert missing == []
        assert all(isinstance(archive.get(ref), str) for ref in done)
    with Archive(SqliteStore(path)) as archive:  # and writable again
        assert archive.put("after the crash") in archive


def test_an_empty_path_names_no_archive() -> None:
    with pytest.raises(ArchiveError, match="empty path"):
        SqliteStore("")


def test_a_read_only_archive_whose_name_is_not_utf8_opens(tmp_path: Path) -> None:
    path = os.fsdecode(bytes(tmp_path) + b"/arch\xff.db")
    with Archive(SqliteStore(path)) as archive:
        ref = archive.put("kept")
    with Archive(SqliteStore(path, readonly=True)) as archive:
        assert archive.get(ref) == "kept"
