"""Settings of the wrong kind are refused at the entry point, naming the argument and
what to pass (`_arguments` rule 1), never an AttributeError or TypeError from inside."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import contextfold as cf

HISTORY = [
    {"role": "user", "content": "read it " * 300},
    {"role": "assistant", "content": "done " * 300},
    {"role": "user", "content": "next"},
]

BAD: list[tuple[str, object, str]] = [
    ("policy", {"low": 0.5}, "policy must be a contextfold.Policy"),
    ("policy", cf.Policy, "policy must be a contextfold.Policy"),
    ("archive", "archive.db", "archive must be a contextfold.Archive"),
    ("archive", cf.MemoryStore(), "archive must be a contextfold.Archive"),
    ("summarizer", "ledger", "summarizer must have summarize"),
    ("summarizer", 5, "summarizer must have summarize"),
    ("model", 5, "model must be a model name"),
    ("model", ["gpt-4o"], "model must be a model name"),
]
ENTRIES: dict[str, Callable[[dict[str, object]], object]] = {
    "compact": lambda kw: cf.compact(HISTORY, 80, **kw),  # type: ignore[arg-type]
    "manager": lambda kw: cf.ContextManager(80, **kw).extend(HISTORY),  # type: ignore[arg-type]
    "sessions": lambda kw: cf.Sessions(80, **kw).view(HISTORY),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize(("name", "value", "says"), BAD)
def test_a_setting_of_the_wrong_kind_is_refused_naming_it(
    entry: str, name: str, value: object, says: str
) -> None:
    with pytest.raises(cf.ConfigurationError, match=says):
        ENTRIES[entry]({name: value})


@pytest.mark.parametrize("tools", [5, "read_file", {"name": "read_file"}])
def test_tools_must_be_a_list(tools: object) -> None:
    with pytest.raises(cf.ConfigurationError, match="tools must be a list"):
        cf.ContextManager(80, tools=tools)  # type: ignore[arg-type]


def test_an_archive_needs_a_store() -> None:
    with pytest.raises(cf.ConfigurationError, match="SqliteStore"):
        cf.Archive("archive.db")  # type: ignore[arg-type]
    assert len(cf.Archive(cf.MemoryStore())) == 0


def test_the_defaults_and_real_settings_still_work() -> None:
    store = cf.Archive()
    result = cf.compact(
        HISTORY, 80, "gpt-4o", policy=cf.Policy(), archive=store, summarizer=cf.LedgerSummarizer()
    )
    assert result.report.refs
    assert all(ref in store for ref in result.report.refs)
