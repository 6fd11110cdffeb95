"""The recall tool: exact wire definitions per format, and answers that never raise."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import (
    FORMATS,
    RECALL_TOOL_NAME,
    Archive,
    ConfigurationError,
    MemoryStore,
    Message,
    Text,
    ToolCall,
    answer_recall,
    recall_tool,
)


@pytest.fixture
def archive() -> Archive:
    arch = Archive()
    arch.put(Message("tool", (Text("the full listing: a.py b.py"),)))
    return arch


def only_ref(archive: Archive) -> str:
    (ref,) = archive.refs()
    return ref


# --- definitions -----------------------------------------------------------------------------


def sdk_type(format: str) -> Any:
    """The SDK's TypedDict for a function tool definition in `format`."""
    if format == "anthropic":
        return pytest.importorskip("anthropic.types").ToolParam
    if format == "openai-responses":
        return pytest.importorskip("openai.types.responses").FunctionToolParam
    return pytest.importorskip("openai.types.chat").ChatCompletionFunctionToolParam


REQUIRED = {
    "openai-chat": {"type", "function"},
    "openai-responses": {"type", "name", "parameters", "strict"},
    "anthropic": {"name", "input_schema"},
}


@pytest.mark.parametrize("format", FORMATS)
def test_definition_validates_against_the_sdk_type(format: str) -> None:
    pydantic = pytest.importorskip("pydantic")
    definition = recall_tool(format)
    typed = sdk_type(format)
    assert set(definition) <= typed.__required_keys__ | typed.__optional_keys__
    assert REQUIRED[format] <= set(definition)
    assert pydantic.TypeAdapter(typed).validate_python(definition) == definition


def schema_and_name(definition: dict[str, Any], format: str) -> tuple[dict[str, Any], str]:
    if format == "openai-chat":
        assert definition["type"] == "function"
        function = definition["function"]
        assert set(function) == {"name", "description", "parameters", "strict"}
        return function["parameters"], function["name"]
    if format == "openai-responses":
        assert definition["type"] == "function"
        return definition["parameters"], definition["name"]
    return definition["input_schema"], definition["name"]


@pytest.mark.parametrize("format", FORMATS)
def test_definition_shape_and_a_strict_mode_schema(format: str) -> None:
    schema, name = schema_and_name(recall_tool(format), format)
    assert name == RECALL_TOOL_NAME
    assert schema["type"] == "object"
    assert schema["required"] == list(schema["properties"]) == ["ref", "offset", "limit"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["ref"]["type"] == "string"
    for window in ("offset", "limit"):  # strict mode: optional means nullable
        assert schema["properties"][window]["type"] == ["integer", "null"]
    json.dumps(recall_tool(format))


def test_each_call_returns_a_fresh_definition() -> None:
    first = recall_tool("anthropic")
    first["input_schema"]["properties"].clear()
    assert recall_tool("anthropic")["input_schema"] != first["input_schema"]


def test_unknown_format_names_the_accepted_ones() -> None:
    with pytest.raises(ConfigurationError, match="openai-chat"):
        recall_tool("gemini")


# --- answers ---------------------------------------------------------------------------------


def test_good_arguments_as_json_text_or_mapping(archive: Archive) -> None:
    ref = only_ref(archive)
    expected = ("tool: the full listing: a.py b.py", False)
    assert answer_recall(archive, json.dumps({"ref": ref})) == expected
    assert answer_recall(archive, {"ref": ref}) == expected


@pytest.mark.parametrize(
    "spelled",
    ["{ref}", " {ref} ", "{upper}", "[cf:{ref} tool result masked, 812 tokens]", "cf:{ref}"],
)
def test_pasted_markers_and_case_are_accepted(archive: Archive, spelled: str) -> None:
    ref = only_ref(archive)
    value = spelled.format(ref=ref, upper=ref.upper())
    assert answer_recall(archive, {"ref": value}) == archive_answer(archive, ref)


def archive_answer(archive: Archive, ref: str) -> tuple[str, bool]:
    return archive.recall_text(ref), False


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ('{"ref": ', "not valid JSON"),
        ("", '"ref" argument is missing'),
        ("{}", '"ref" argument is missing'),
        ('{"reference": "r0123456789"}', '"ref" argument is missing'),
        ('["r0123456789"]', "must be a JSON object, not list"),
        ("42", "must be a JSON object, not int"),
        ('{"ref": 42}', '"ref" must be a string, not int'),
        ('{"ref": "the big listing"}', "holds no reference"),
        ('{"ref": "r0123456789abcdef"}', "holds no reference"),
        ('{"ref": "r0123456789 r9876543210"}', "more than one reference"),
    ],
)
def test_bad_arguments_give_a_helpful_error_text(
    archive: Archive, arguments: str, complaint: str
) -> None:
    text, is_error = answer_recall(archive, arguments)
    assert is_error
    assert complaint in text
    assert text.startswith(RECALL_TOOL_NAME)
    assert '{"ref": "r0123456789"}' in text, "the error shows how to call the tool"


def test_an_unknown_ref_says_so(archive: Archive) -> None:
    text, is_error = answer_recall(archive, {"ref": "r0000000000"})
    assert is_error
    assert "nothing is archived under r0000000000" in text


def test_a_storage_failure_is_an_error_text(archive: Archive) -> None:
    ref = only_ref(archive)
    archive.close()
    text, is_error = answer_recall(archive, {"ref": ref})
    assert is_error
    assert "could not be read" in text


def test_a_recalled_tool_call_shows_name_and_arguments() -> None:
    arch = Archive(MemoryStore())
    ref = arch.put(Message("assistant", (ToolCall("c1", "grep", '{"q": "TODO"}'),)))
    assert answer_recall(arch, {"ref": ref}) == (
        'assistant: [tool call grep, id c1] {"q": "TODO"}',
        False,
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=10,
)


@given(st.text(max_size=80) | json_values.map(json.dumps))
def test_any_text_arguments_never_raise(arguments: str) -> None:
    text, is_error = answer_recall(Archive(), arguments)
    assert is_error
    assert text


@given(st.dictionaries(st.sampled_from(["ref", "other"]), json_values, max_size=2))
def test_any_mapping_arguments_never_raise(arguments: dict[str, object]) -> None:
    text, is_error = answer_recall(Archive(), arguments)
    assert is_error
    assert text


def test_deeply_nested_json_is_an_error_text() -> None:
    text, is_error = answer_recall(Archive(), "[" * 100_000 + "]" * 100_000)
    assert is_error
    assert text.startswith(RECALL_TOOL_NAME)


# --- paging ------------------------------------------------------------------------------------


def _long_archive(size: int) -> tuple[Archive, str, str]:
    arch = Archive(MemoryStore())
    text = "".join(f"line {i:05d}: {'x' * (i % 37)}\n" for i in range(size))
    ref = arch.put(text)
    return arch, ref, text


_HEADER = re.compile(r"^\[cf:(r[0-9a-f]{10}) recalled, chars ([\d,]+)-([\d,]+) of ([\d,]+)")


def _pages(arch: Archive, ref: str, limit: int | None) -> list[tuple[int, int, str]]:
    """Page from offset 0 by the offsets the headers name: (start, end, body) per page."""
    out: list[tuple[int, int, str]] = []
    offset: int | None = None
    while True:
        text, is_error = answer_recall(arch, {"ref": ref, "offset": offset, "limit": limit})
        assert not is_error, text
        if offset is None and _HEADER.match(text) is None:  # short and whole: no header
            assert len(text) <= 2_000
            return [(0, len(text), text)]
        header, body = text.split("\n", 1)
        match = _HEADER.match(header)
        assert match is not None, header
        start, end = (int(g.replace(",", "")) for g in match.group(2, 3))
        out.append((start, end, body))
        nxt = re.search(r"with offset=(\d+)", header)
        if nxt is None:
            return out
        offset = int(nxt.group(1))
        assert offset == end


@settings(max_examples=30, deadline=None)
@given(size=st.integers(50, 3000), limit=st.none() | st.integers(1, 20_000))
def test_paging_by_the_headers_returns_every_character_exactly_once(
    size: int, limit: int | None
) -> None:
    arch, ref, text = _long_archive(size)
    pages = _pages(arch, ref, limit)
    assert "".join(body for _, _, body in pages) == text
    assert [p[0] for p in pages] == [0, *[p[1] for p in pages[:-1]]]


def test_a_short_answer_has_no_header() -> None:
    arch = Archive(MemoryStore())
    ref = arch.put("a short note")
    assert answer_recall(arch, {"ref": ref, "offset": None, "limit": None}) == (
        "a short note",
        False,
    )


@pytest.mark.parametrize(
    ("window", "complaint"),
    [
        ({"offset": -1}, "0 or more"),
        ({"limit": 0}, "1 or more"),
        ({"offset": "10"}, '"offset" must be a whole number'),
        ({"limit": 2.5}, '"limit" must be a whole number'),
        ({"offset": True}, '"offset" must be a whole number'),
    ],
)
def test_a_bad_window_is_an_error_text(window: dict[str, object], complaint: str) -> None:
    arch, ref, _ = _long_archive(100)
    text, is_error = answer_recall(arch, {"ref": ref, **window})
    assert is_error
    assert complaint in text


@pytest.mark.parametrize("wrong", ["archive.db", None, cf.MemoryStore()])
def test_an_archive_that_is_not_one_is_the_callers_configuration_error(wrong: object) -> None:
    with pytest.raises(cf.ConfigurationError, match="answer_recall"):
        cf.answer_recall(wrong, {"ref": "r0123456789"})  # type: ignore[arg-type]
