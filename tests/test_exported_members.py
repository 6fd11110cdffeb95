"""The public surface is exactly `contextfold.__all__`: sorted, importable, public paths."""

from __future__ import annotations

import pickle

import contextfold


def test_all_is_unique_and_every_name_exists() -> None:
    names = list(contextfold.__all__)
    assert len(names) == len(set(names))
    assert [n for n in names if not hasattr(contextfold, n)] == []


def test_classes_and_functions_claim_the_public_module() -> None:
    for name in contextfold.__all__:
        obj = getattr(contextfold, name)
        if isinstance(obj, type) or callable(obj):
            assert obj.__module__ == "contextfold", name


def test_errors_pickle_through_the_public_path() -> None:
    err = contextfold.InvalidConversation("bad", index=3, field="content")
    again = pickle.loads(pickle.dumps(err))
    assert (again.index, again.field, str(again)) == (3, "content", str(err))
