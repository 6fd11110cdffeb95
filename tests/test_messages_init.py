"""`slot_init` keeps the dataclass `__init__` contract (the models, the planner's units)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from contextfold import _messages as m
from contextfold._planning._plan import UnitCost, UnitFlags
from contextfold._planning._units import Unit

MODELS = (
    m.Text,
    m.Image,
    m.ToolCall,
    m.ToolResult,
    m.Reasoning,
    m.Opaque,
    m.Marker,
    m.Summary,
    m.Card,
    m.Message,
    m.ToolSpec,
    m.Conversation,
    Unit,
    UnitCost,
    UnitFlags,
)


@pytest.mark.parametrize("cls", MODELS)
def test_signature_is_the_dataclass_one(cls: type) -> None:
    params = list(inspect.signature(cls).parameters.values())
    fields = sorted(dataclasses.fields(cls), key=lambda f: f.kw_only is True)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        keyword = f.kw_only is True
        kind = (
            inspect.Parameter.KEYWORD_ONLY if keyword else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        assert p.kind is kind
        missing = f.default is dataclasses.MISSING
        assert p.default is (inspect.Parameter.empty if missing else f.default)


@pytest.mark.parametrize("cls", MODELS)
def test_objects_are_set_and_frozen(cls: type) -> None:
    values = {f.name: object() for f in dataclasses.fields(cls)}
    made = cls(**values)
    assert all(getattr(made, name) is value for name, value in values.items())
    assert made == cls(**values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, next(iter(values)), None)
    if any(f.default is dataclasses.MISSING for f in dataclasses.fields(cls)):
        with pytest.raises(TypeError):
            cls()


def test_defaults_and_replace() -> None:
    text = m.Text("hi")
    assert (text.extras, text.kind) == (m.EMPTY, "text")
    assert dataclasses.replace(text, text="ho") == m.Text("ho")
    assert m.Message("user", (text,)) == m.Message("user", (text,), name=None, extras=m.EMPTY)
    assert hash(m.Message("user", (text,))) == hash(m.Message("user", (m.Text("hi"),)))


def test_fields_it_cannot_set_are_refused() -> None:
    with pytest.raises(TypeError, match="plain fields only"):

        @m.slot_init
        @dataclasses.dataclass(frozen=True, slots=True)
        class _Made:
            items: list[int] = dataclasses.field(default_factory=list)


def test_a_post_init_is_refused() -> None:
    with pytest.raises(TypeError, match="__post_init__"):

        @m.slot_init
        @dataclasses.dataclass(frozen=True, slots=True)
        class _Checked:
            size: int

            def __post_init__(self) -> None:
                if self.size < 0:
                    raise ValueError(self.size)
