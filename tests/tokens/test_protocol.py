"""Runtime protocol checks remembered per type give what `isinstance` gives."""

from __future__ import annotations

import typing

import pytest

import contextfold as cf
from contextfold._tokens._protocol import (
    BoundedCounter,
    ConversationCounter,
    TokenCounter,
    _members,
    is_bounded,
    is_conversation_counter,
)


@pytest.mark.parametrize("protocol", [TokenCounter, BoundedCounter, ConversationCounter])
def test_members_are_those_typing_checks(protocol: type) -> None:
    expected = typing._get_protocol_attrs(protocol)  # type: ignore[attr-defined]
    assert sorted(_members(protocol)) == sorted(expected)


def _type() -> type:
    class Count:
        def count(self, message: cf.Message) -> int:
            return 1

    return Count


def test_a_failure_is_remembered_only_while_the_instance_lacks_the_member() -> None:
    kind = _type()
    plain, bounded = kind(), kind()
    bounded.count_floor = lambda message: 0
    for _ in range(2):
        assert not is_bounded(plain)
        assert is_bounded(bounded)
        assert not is_bounded(kind())  # a pass through an instance is not the type's


def test_a_failure_is_forgotten_when_a_class_is_registered() -> None:
    kind = _type()
    counter = kind()
    assert not is_bounded(counter)
    assert not is_conversation_counter(counter)
    BoundedCounter.register(kind)
    assert is_bounded(counter)
    assert is_bounded(counter) == isinstance(counter, BoundedCounter)


def test_a_type_with_every_member_passes() -> None:
    counter = cf.HeuristicCounter()
    for _ in range(2):
        assert is_bounded(counter)
        assert is_conversation_counter(counter)
