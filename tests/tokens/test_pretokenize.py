"""The stdlib pre-tokenizer splits exactly as o200k_base's pattern does."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold._tokens._load import O200K_PAT
from contextfold._tokens._pretokenize import GROUPS, STAND_INS, pieces

regex = pytest.importorskip("regex")  # tiktoken's own dependency: the reference engine
REFERENCE = regex.compile(O200K_PAT)

assigned = st.characters(exclude_categories=("Cs", "Cn"))
"""Every character this Python's Unicode tables assign (rule 4 leaves the others out)."""
tricky = st.sampled_from(
    [
        *" \t\r\n\x0b\x0c\x85\xa0\u2028\u3000\x1c/'_-.,:;()[]{}\"`sStTdDmMlLrReEvV09²½Ⅻ",
        *("'s", "'LL", "'re", "\r\n", "  ", "\u0301", "\u093f", "ǅ", "ʰ", "😀", "𝐀", "𠀋"),
        "\U000e0101",
    ]
)
"""Characters and runs where the pattern's alternatives meet."""
texts = st.lists(assigned | tricky, max_size=40).map("".join)


@settings(max_examples=400)
@given(texts)
def test_hyp_pieces_match_the_o200k_pattern(text: str) -> None:
    assert pieces(text) == REFERENCE.findall(text)


@given(st.text(assigned, max_size=60))
def test_hyp_pieces_cover_the_text_in_order(text: str) -> None:
    assert "".join(pieces(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "Hello world, it's 2024!\r\n\tdef f(x): return x**2  # ok",
        "camelCaseHTTPServer parseJSON IOError x86_64 v1.2.3-rc4",
        "Привет, мир! Ελληνικά. Straße ÉCOLE naïve",
        "नमस्ते दुनिया — مرحبا بالعالم — สวัสดีครับ",
        "東京は晴れ。今日は2024年11月22日です。한국어 문장입니다.",
        "rocket 🚀 launch 👩‍🚀 𝐁𝐨𝐥𝐝 𠀋𠀍 flag 🇯🇵",
        "    indented\n\n\n   \n  trailing   ",
    ],
)
def test_scripts_and_emoji_split_like_o200k(text: str) -> None:
    assert pieces(text) == REFERENCE.findall(text)


def test_each_stand_in_belongs_to_its_group() -> None:
    for group, char in STAND_INS.items():
        assert GROUPS.get(unicodedata.category(char), "other") == group
        assert not char.isspace()
        assert char not in "/'sStTdDmMlLrReEvV"
