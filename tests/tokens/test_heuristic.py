"""The heuristic counts exactly as o200k_base: generated text of every class, samples, corpus."""

from __future__ import annotations

import base64
import json
import math
import subprocess
import sys
import unicodedata
from collections import defaultdict

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._messages import message_text
from contextfold._serialize import dump_message
from contextfold._tokens import _bpe
from contextfold._tokens._heuristic import CLASSES, content_class, count_text, piece_counts
from tests import corpus, strategies
from tests.tokens.test_classes import samples

pytest.importorskip("tiktoken")

EXACT = cf.TiktokenCounter("o200k_base")
HEURISTIC = cf.HeuristicCounter()


def exact(text: str) -> int:
    return len(EXACT.encoding.encode(text, disallowed_special=()))


def assert_on_target(text: str) -> None:
    """The target is 'never under by more than 5%'; the heuristic is in fact exact."""
    estimate, truth = count_text(text), exact(text)
    assert estimate >= 0.95 * truth, (estimate, truth)
    assert estimate == truth, (estimate, truth)


# --- generated text per content class -------------------------------------------------------

WORDS = (
    "the", "of", "and", "to", "in", "is", "it", "that", "for", "you", "was", "with", "on", "as",
    "have", "but", "be", "they", "at", "one", "this", "from", "booking", "flight",
    "reservation", "passenger", "baggage", "cancel", "refund", "upgrade", "economy",
    "membership", "function", "return", "value", "parser", "request", "response", "timeout",
    "retry", "cache", "worker", "sympy", "testbed",
)  # fmt: skip
words = st.sampled_from(WORDS) | st.from_regex(r"[a-z]{2,14}", fullmatch=True)
numbers = st.integers(0, 10**7).map(str) | st.floats(0, 1e4, allow_nan=False).map("{:.2f}".format)


def _ident(parts: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(parts)
    if style == "camel":
        return parts[0] + "".join(p.title() for p in parts[1:])
    return "".join(p.title() for p in parts) if style == "pascal" else "_".join(parts).upper()


identifiers = st.builds(
    _ident,
    st.lists(words, min_size=1, max_size=3),
    st.sampled_from(["snake", "camel", "pascal", "upper"]),
)


def _sentence(tokens: list[str], end: str, capital: bool) -> str:
    text = " ".join(tokens)
    return (text[0].upper() + text[1:] if capital else text) + end


tokens = (
    words
    | numbers
    | st.sampled_from(["don't", "it's", "we'll", "I'm", "(see above)", '"ok"', "—", "e.g.,"])
)
sentences = st.builds(
    _sentence, st.lists(tokens, min_size=3, max_size=18), st.sampled_from(".!?:;…"), st.booleans()
)
prose = st.lists(st.lists(sentences, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=4)
prose_text = prose.map("\n\n".join)

CODE_LINES = (
    "def {a}({b}, {c}=None):",
    "return {a}.{b}({c})",
    "{a} = {b}[{n}] + {c}",
    "if ({a} && !{b}) {{",
    "}}",
    "const {a} = await {b}.{c}({n});",
    "for {a} in range({n}):",
    "import {a}.{b} as {c}",
    "# {a} {b} {c}",
    "fn {a}(&mut self) -> Result<{B}, Error> {{",
    "SELECT {a}, {b} FROM {c} WHERE id = {n};",
    "-    {a}({b})",
    "+    {a}({b}, {c})",
    'raise {B}Error(f"bad {a}: {{{b}!r}}")',
    "@@ -{n},7 +{n},8 @@",
)
code_lines = st.builds(
    lambda indent, line, a, b, c, n: (
        indent + line.format(a=a, b=b, c=c, n=n, B=b[:1].upper() + b[1:])
    ),
    st.sampled_from(["", "    ", "        ", "\t", "\t\t", "            "]),
    st.sampled_from(CODE_LINES),
    identifiers,
    identifiers,
    identifiers,
    st.integers(0, 9999),
)
code_text = st.builds(
    lambda lines, newline: newline.join(lines),
    st.lists(code_lines, min_size=2, max_size=30),
    st.sampled_from(["\n", "\r\n", "\n\n"]),
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(identifiers, inner, max_size=5),
    max_leaves=30,
)
json_text = st.builds(
    lambda value, indent, ascii_only: json.dumps(value, indent=indent, ensure_ascii=ascii_only),
    json_values,
    st.sampled_from([None, 2, 4]),
    st.booleans(),
)

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ids = st.one_of(
    st.binary(min_size=4, max_size=32).map(bytes.hex),
    st.binary(min_size=6, max_size=96).map(lambda b: base64.b64encode(b).decode()),
    st.binary(min_size=6, max_size=48).map(lambda b: base64.urlsafe_b64encode(b).decode()),
    st.uuids().map(str),
    st.text(_B62, min_size=24, max_size=24).map(lambda s: "call_" + s),
    st.builds(
        lambda parts, ext: "/" + "/".join(parts) + ext,
        st.lists(identifiers, min_size=1, max_size=6),
        st.sampled_from(["", ".py", ".json", "/", ".tar.gz"]),
    ),
    st.builds(
        "https://{}.example.com/{}?token={}&page={}".format,
        words,
        identifiers,
        st.text(_B62 + "-_", min_size=8, max_size=40),
        st.integers(1, 500),
    ),
    st.builds("{}_{}_{}".format, words, words, st.integers(1000, 9999)),
)
ids_text = st.builds(
    lambda items, sep: sep.join(items),
    st.lists(ids, min_size=1, max_size=20),
    st.sampled_from(["\n", " ", ", ", "\r\n"]),
)

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
ls_rows = st.builds(
    "{}{} {:>3} {:<8} {:<8} {:>9} {} {:>2} {} {}".format,
    st.sampled_from("-dl"),
    st.sampled_from(["rwxr-xr-x", "rw-r--r--", "rwx------", "rw-rw-r--", "rwxrwxrwx"]),
    st.integers(1, 40),
    words,
    words,
    st.integers(0, 10**10),
    st.sampled_from(_MONTHS),
    st.integers(1, 31),
    st.sampled_from(["03:10", "2023", "12:45", "2019"]),
    identifiers | ids,
)
table_rows = st.builds(
    "{:<28}{:<12}{:>8}  {}".format,
    identifiers,
    words,
    numbers,
    st.sampled_from(["Running", "OK", "-"]),
)
listing_text = st.builds(
    lambda total, rows: f"total {total}\n" + "\n".join(rows),
    st.integers(0, 9999),
    st.lists(ls_rows, min_size=3, max_size=30) | st.lists(table_rows, min_size=3, max_size=30),
)

_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3041, 0x3096), (0x30A1, 0x30FA), (0xAC00, 0xD7A3))
cjk_chars = st.one_of(
    *(st.characters(min_codepoint=a, max_codepoint=b) for a, b in _CJK_RANGES),
    st.sampled_from("、。「」（）！？・ー〜 "),
)
cjk_text = st.lists(
    st.lists(cjk_chars, min_size=1, max_size=30).map("".join) | words | numbers,
    min_size=1,
    max_size=20,
).map("".join)

BY_CLASS: dict[str, st.SearchStrategy[str]] = {
    "prose": prose_text,
    "code": code_text,
    "json": json_text,
    "ids": ids_text,
    "listing": listing_text,
    "cjk": cjk_text,
}


def test_every_class_has_a_generator() -> None:
    assert set(BY_CLASS) == set(CLASSES)


@pytest.mark.parametrize("klass", CLASSES)
@settings(max_examples=60)
@given(data=st.data())
def test_hyp_generated_text_of_each_class_is_counted_exactly(
    klass: str, data: st.DataObject
) -> None:
    assert_on_target(data.draw(BY_CLASS[klass]))


@settings(max_examples=200)
@given(st.text(st.characters(exclude_categories=("Cs", "Cn")), max_size=80))
def test_hyp_any_assigned_text_is_counted_exactly(text: str) -> None:
    assert_on_target(text)


@pytest.mark.parametrize("klass", CLASSES)
def test_every_sample_is_counted_exactly(klass: str) -> None:
    for sample in samples(klass):
        assert_on_target(sample)


def test_edge_cases() -> None:
    for text in ("", " ", "assistant", "-" * 80, " " * 1000, "\r\n" * 50, "a'S", "😀" * 40):
        assert_on_target(text)
    assert count_text("") == 0


# --- the real corpus ------------------------------------------------------------------------


def p95(errors: list[float]) -> float:
    ordered = sorted(abs(e) for e in errors)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


@pytest.mark.corpus
def test_corpus_meets_the_target_per_class() -> None:
    """Every corpus message, with chat overheads: no class under by >5%, p95 within 15%."""
    errors: dict[str, list[float]] = defaultdict(list)
    for _, wire in corpus.conversations():
        _, conversation = cf.parse(wire, "openai-chat")
        for message in conversation.messages:
            truth = EXACT.count(message)
            errors[content_class(message_text(message))].append(
                HEURISTIC.count(message) / truth - 1
            )
    assert sum(map(len, errors.values())) > 8000
    for klass, found in errors.items():
        assert min(found) >= -0.05, klass
        assert p95(found) <= 0.15, klass
        assert max(map(abs, found)) == 0, klass  # in fact exact


# --- the counter: additive, cached, no third-party code ---------------------------------------


def _assigned(message: cf.Message) -> bool:
    """Whether this Python's Unicode tables assign every character of `message`: one they
    do not may split as tiktoken's newer tables would not (`_pretokenize` rule 4)."""
    text = json.dumps(dump_message(message), ensure_ascii=False)
    return all(unicodedata.category(c) != "Cn" for c in text)


@given(strategies.messages)
def test_hyp_totals_are_additive_and_exact(message: cf.Message) -> None:
    assume(_assigned(message))
    assert HEURISTIC.count(message) == EXACT.count(message)
    conversation = cf.Conversation((message, message))
    total = cf.count_conversation(conversation, HEURISTIC)
    assert total == cf.fixed_overhead(conversation, HEURISTIC) + 2 * HEURISTIC.count(message)


def test_counts_are_cached_per_piece_and_per_text() -> None:
    counter = cf.HeuristicCounter()
    text = "cached: unusual zyxwvutsrq words, counted once"
    first = counter.count_text(text)
    assert " zyxwvutsrq" in piece_counts()  # merged once, then looked up
    piece_counts().clear()
    assert counter.count_text(text) == first == exact(text)
    assert len(piece_counts()) == 0  # the counter answered from its per-text cache


ISOLATED = """
import sys
sys.modules["tiktoken"] = None
sys.modules["regex"] = None
import contextfold as cf
from contextfold._tokens._heuristic import count_text
print(count_text("The quick brown fox jumps over the lazy dog."), cf.HeuristicCounter().name)
"""


def test_it_needs_no_third_party_package() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ISOLATED], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["10", "heuristic"]


def test_a_full_piece_table_starts_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bpe, "MAX_PIECES", 4)
    piece_counts().clear()
    text = "one two three four five six seven eight"
    assert count_text(text) == exact(text)
    assert 0 < len(piece_counts()) <= 4


def test_lone_surrogates_count_like_tiktoken() -> None:
    text = "half a pair: \ud800 and \u00e9"
    fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert count_text(text) == count_text(fixed) > 0
