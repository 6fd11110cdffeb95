"""Content classes: each sample file is recognised as its own class."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from contextfold._tokens._classes import CLASSES, content_class

SAMPLES = Path(__file__).parent / "samples"


def samples(klass: str) -> list[str]:
    """The samples of one class file (separated by `---8<---` lines)."""
    text = (SAMPLES / f"{klass}.txt").read_text(encoding="utf-8")
    return [s.strip("\n") for s in text.split("\n---8<---\n") if s.strip("\n")]


@pytest.mark.parametrize("klass", CLASSES)
def test_samples_are_mostly_classified_as_their_class(klass: str) -> None:
    found = Counter(content_class(s) for s in samples(klass))
    assert len(samples(klass)) >= 8
    assert found.most_common(1)[0][0] == klass, found


@pytest.mark.parametrize(
    ("text", "klass"),
    [
        ("", "prose"),
        ("   \n ", "prose"),
        ("Thanks, I will look at it tomorrow.", "prose"),
        ('{"id": 1, "tags": ["a", "b"]}', "json"),
        ("/usr/lib/python3/dist-packages/a.py\n/usr/lib/python3/dist-packages/b.py", "ids"),
        (
            "3f786850e387550fdab836ed7e6dc881de23001b 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83",
            "ids",
        ),
        ("a.txt    12 KB\nb.txt     4 KB\nc.txt   900 B", "listing"),
        ("def f(x):\n    return x + 1\n", "code"),
        ("東京は今日も晴れです。明日は雨が降るでしょう。", "cjk"),
    ],
)
def test_typical_texts(text: str, klass: str) -> None:
    assert content_class(text) == klass
