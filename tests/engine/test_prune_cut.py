"""Pruning a tool result cuts its text, never grows it: head and tail never overlap.

A result whose tokens are mostly an image (or any result pruned to a keep near its own
size) came back with head and tail overlapping: the marker said "-1 of 10 chars pruned"
and text the result had once appeared twice. A text that cannot lose anything is now
kept whole (its images still give way to markers).
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contextfold import HeuristicCounter, Image, Marker, Text, ToolResult
from contextfold._engine._transform import PruneSize, prune_result

COUNTER = HeuristicCounter()
IMAGE = Image("data:image/png;base64,iVBORw0KGgo=")
CUT = re.compile(r"\n?\[cf:r0123456789 (-?[0-9,]+) of ([0-9,]+) chars pruned[^\]]*\]\n?")


def _ref(_part: object) -> str:
    return "r0123456789"


def _texts(result: ToolResult) -> str:
    return "".join(p.text for p in result.parts if isinstance(p, Text | Marker))


@given(
    text=st.text(st.sampled_from("ab \n"), min_size=1, max_size=300),
    image=st.booleans(),
    keep=st.integers(1, 400),
    head_share=st.sampled_from([0.0, 0.4, 1.0]),
)
def test_a_pruned_text_keeps_a_head_and_a_tail_that_do_not_overlap(
    text: str, image: bool, keep: int, head_share: float
) -> None:
    result = ToolResult("c1", (Text(text), IMAGE) if image else (Text(text),))
    out = prune_result(result, _ref, PruneSize(over=0, keep=keep, head_share=head_share), COUNTER)
    shown = _texts(out).replace("\n[cf:r0123456789 image masked]", "")
    found = CUT.search(shown)
    if found is None:  # kept whole: the text is as it was
        assert shown == text
        return
    cut, total = (int(g.replace(",", "")) for g in found.groups())
    assert total == len(text)
    assert cut > 0, shown
    head, tail = shown[: found.start()], shown[found.end() :]
    assert text.startswith(head)
    assert text.endswith(tail)
    assert len(head) + len(tail) < len(text)  # something was cut, nothing shown twice


def test_a_short_text_beside_an_image_is_kept_whole_and_the_image_masked() -> None:
    result = ToolResult("c1", (Text("the ZFA04Y"), IMAGE))
    out = prune_result(result, _ref, PruneSize(over=0, keep=1500, head_share=0.4), COUNTER)
    assert _texts(out) == "the ZFA04Y\n[cf:r0123456789 image masked]"


_PAGE_HEADER = st.builds(
    "[cf:r{:010x} recalled, chars 0-{:,} of {:,}]\n".format,
    st.integers(0, 16**10 - 1),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)


@given(
    header=_PAGE_HEADER,
    body=st.text(st.sampled_from("ab \n"), min_size=400, max_size=2000),
    recall_call=st.booleans(),
)
def test_only_a_result_answering_a_recall_call_is_a_page_that_is_not_pruned_again(
    header: str, body: str, recall_call: bool
) -> None:
    """A forged page header escapes nothing: another tool's text that starts with it is
    pruned like any text (before, any result starting with it was never pruned)."""
    result = ToolResult("call_1", (Text(header + body),))
    recalls = frozenset({"call_1"}) if recall_call else frozenset({"call_2"})
    size = PruneSize(over=50, keep=20, head_share=0.4, recalls=recalls)
    pruned = prune_result(result, _ref, size, COUNTER)
    if recall_call:
        assert pruned is result
    else:
        assert len(_texts(pruned)) < len(header + body)
        assert CUT.search(_texts(pruned)) is not None
