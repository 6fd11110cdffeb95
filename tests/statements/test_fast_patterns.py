"""Each pattern written for speed (`_facts` rule 5, `_shapes` rule 3) finds what its plain
form finds, and a gate that skips a search never skips one that would match (`_kinds`
rule 5)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements import (
    _cues,
    _facts,
    _kinds,
    _retractions,
    _settings,
    _shapes,
    _statement,
    _values,
)
from contextfold._statements._foreign_cues import CJK_CHARS

from ..strategies import glued

_SPACED = re.compile(
    r"""
    (?=[JFMASOND\d])
    (?:(?P<date>\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?[ ]\d{1,2}
        (?:st|nd|rd|th)?\b(?:,?[ ]\d{4})?)
  | (?P<time>\b\d{1,2}(?::\d{2})?[ ][AaPp]\.?[Mm]\b(?:[ ](?:[ECMP][SD]T|UTC|GMT)\b)?)
  | (?P<quantity>\b\d+(?:\.\d+)?[ ](?:%|ms|secs?|seconds?|minutes?|mins?|hours?|hrs?|days?
        |weeks?|months?|years?|[kKmMgG]i?[bB]|tokens?|bags?|passengers?|lines?)(?!\w)))
    """,
    re.VERBOSE,
)
_SHAPES = re.compile(
    r"""
    (?P<url>https?://[^\s<>"'`)\]]+)
  | (?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<test>[\w./-]+\.py::[\w:\[\].-]+)
  | (?P<date>\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?)
  | (?P<time>\d{1,2}(?::\d{2})?[AaPp]\.?[Mm]\.? | \d{1,2}:\d{2}(?::\d{2})?)
  | (?P<money>[$€£]\d[\d,]*(?:\.\d+)?)
  | (?P<path>(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*/? | [\w.-]+(?:/[\w.-]+)+)
  | (?P<dotfile>{dotfile})
  | (?P<error>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning))
  | (?P<file>[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|json|md|rst|txt|ya?ml|toml|cfg|ini|rs|go
        |java|c|h|cc|cpp|hpp|sh|html|css|sql|rb|php|ipynb|csv|xml|lock|log))
  | (?P<slug>(?=[\w.-]*[A-Z\d])[A-Za-z\d]+(?:\.[A-Za-z\d]+)*(?:-[A-Za-z\d]+(?:\.[A-Za-z\d]+)*)+)
  | (?P<version>v\d+(?:\.\d+)+ | \d+(?:\.\d+){2,3})
  | (?P<symbol>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))? | [A-Za-z_]\w*\(\))
  | (?P<quantity>\d+(?:\.\d+)?(?:%|ms|secs?|seconds?|minutes?|mins?|hours?|hrs?
        |days?|weeks?|months?|years?|[kKmMgG]i?[bB]|tokens?|bags?|passengers?|lines?))
  | (?P<identifier>_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+ | _+[A-Za-z]\w*)
  | (?P<class>[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+ | [a-z][a-z0-9]*[A-Z]\w*)
  | (?P<hash>(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40})
  | (?P<code>[A-Z][A-Z0-9]{2,11} | \d+[A-Z][A-Z0-9]+)
  | (?P<alnum>[A-Za-z]+\d+[A-Za-z0-9]*)
  | (?P<number>\d[\d,]{2,}(?:\.\d+)?)
    """.replace("{dotfile}", _shapes.DOTFILE),
    re.VERBOSE,
)
_NAMED_HINT = re.compile(r"\b(?:id|ids|numbers?|codes?|email|ending|port)\b")
_NAMED_IN_TEXT = re.compile(
    r"\b(?P<kind>ID|[Ii][Dd]s?|[Nn]umbers?|[Cc]odes?|[Ee]mail)\s*(?:is|was|are|:|=|#)\s*\**`?"
    r"(?P<value>[\w.@/+-]*\d[\w.@/+-]*|[A-Z0-9]{5,})"
    r"|\b(?P<ending>[Ee]nding (?:in|with)|[Pp]ort) \**(?P<digits>\d{2,6})\b"
)
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\b(?:Dr|Mr|Ms|St)\.)(?<!\bMrs\.)(?<!\bProf\.)[\"')\]]*\s+(?=[^a-z\s])"
)
_NUMBER = re.compile(r"(?<![\w.-])\$?\d+(?:[.,:/-]\d+)*%?(?!\w)")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_'+#.-]*[A-Za-z0-9+#]|[A-Za-z]|\$?\d[\w.,:/$%-]*")
_NAME = re.compile(
    r"(?<=[a-z,;:] )(?:[A-Z][a-z]+(?![^\W\d_A-Z])(?:[ -][A-Z][a-z]+(?![^\W\d_A-Z]))*"
    r"|[A-Z]{2,}\w*(?![\w-]))"
)
"""A name's words are followed by no letter but an ASCII capital (`re` takes "²" for one)."""
_INTERESTING = re.compile(r"[\d_/.@$€£~:]|.[A-Z]")
"""What a word needs for any shape: a character of the class, or a capital after any other."""
_PLAIN_NUMBER = re.compile(r"(?<![\w$€£.:/-])\d+(?:\.\d+)*(?![\w%:/-]|\.\d)|v\d")
_NOT_VALUE = re.compile(
    r"(?:\bnot|\binstead of|\brather than|\bno longer|\breplac(?:e|es|ed|ing))\s+(?:the\s+)?"
    r"([^\s,;.!?]+(?:[.][^\s,;!?]+)*)"
)

_PIECES = (
    "Jan",
    "June",
    "Sept.",
    "May",
    "Mar",
    "Dec",
    "Oct",
    "Nov",
    "Aug",
    "Apr",
    "Feb",
    "Jul",
    "5",
    "12",
    "2024",
    "3.5",
    "1,250",
    "$40",
    "40%",
    "th",
    "st",
    "AM",
    "p.m.",
    "PST",
    "UTC",
    "ms",
    "days",
    "GB",
    "bags",
    "lines",
    "id",
    "ids",
    "ID",
    "number",
    "codes",
    "email",
    "ending",
    "port",
    "import",
    "Alice",
    "Smith",
    "NASA",
    "SFO-LAX",
    ".env",
    "x",
    "the",
    "and",
    ":",
    ",",
    ".",
    "!",
    "?",
    '"',
    "'",
    ")",
    "]",
    "-",
    "_",
    "/",
    "é",
    "٣",
    "$",
    "c++",
    "C#",
    "x.y",
    "a'b",
    "%",
)
_GLUE = (" ", "", "  ", "\t", "\u00a0", ", ", ". ", '." ', "\n")
texts = glued(list(_PIECES), _GLUE, piece_size=4, max_size=16)


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], str | None]]:
    return [(m.span(), m.lastgroup) for m in pattern.finditer(text)]


@given(texts)
def test_spaced_values(text: str) -> None:
    assert _found(_facts._SPACED, text) == _found(_SPACED, text)


@given(texts)
def test_named_hint(text: str) -> None:
    lowered = text.lower()
    found = _facts._NAMED_HINT.search(lowered) is not None
    assert found == (_NAMED_HINT.search(lowered) is not None)


def _ends(match: re.Match[str]) -> tuple[int, int]:
    return match.end("kind"), match.end("ending")


def _named(pattern: re.Pattern[str], text: str) -> list[tuple[object, ...]]:
    return [
        (m.span(), m.group("value"), m.group("digits"), m.start("kind"), *_ends(m))
        for m in pattern.finditer(text)
    ]


_NAMED_TEXTS = texts | st.lists(
    st.sampled_from(("ID", "Ids", "iD", "number", "Codes", "email", "Ending in", "port", "is"))
    | st.sampled_from((":", "=", "#", " ", "**", "`", "X1", "AB12C", "4421", "éID", "_id"))
    | st.text(max_size=3),
    max_size=12,
).map(" ".join)


@given(_NAMED_TEXTS)
def test_named_in_text(text: str) -> None:
    """The same matches; each group of the plain form starts at the match or where the fast
    form's does, and ends where it does."""
    fast, plain = _named(_facts._NAMED_IN_TEXT, text), _named(_NAMED_IN_TEXT, text)
    assert [f[:3] + f[4:] for f in fast] == [p[:3] + p[4:] for p in plain]
    for f, p, m in zip(fast, plain, _NAMED_IN_TEXT.finditer(text), strict=True):
        if m.group("kind") is not None:
            assert p[3] == m.start()
            assert f[3] == m.start() + 1
        else:
            assert m.start("ending") == m.start()
    assert list(_facts._named_in_text(text)) == list(_plain_named_in_text(text))


def _plain_named_in_text(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for match in _NAMED_IN_TEXT.finditer(text):
        before = _facts._ROLE_BEFORE.search(text, max(0, match.start() - 40), match.start())
        words = [w.lower() for w in before.groups() if w] if before else []
        words = [w for w in words if w not in _facts._ROLE_SKIP]
        ending = match.group("ending")
        if ending is not None:
            label = "port" if ending.lower() == "port" else "_".join([*words[-1:], "ending"])
            out.append((label, match.group("digits")))
        elif words:
            kind = match.group("kind").lower().removesuffix("s")
            out.append(("_".join([*words, kind]), match.group("value").rstrip(_shapes.PUNCTUATION)))
    return out


@given(glued([*_PIECES, "Dr.", "Mrs.", "Prof.", "St"], _GLUE, piece_size=4, max_size=16))
def test_sentence_ends(text: str) -> None:
    for line in text.splitlines():
        assert _facts._SENTENCE_END.split(line) == _SENTENCE_END.split(line)


def _plain_sentences(text: str) -> list[str]:
    """`_facts.sentences` searching every line for sentence ends."""
    out = []
    for line in text.splitlines():
        for piece in _facts._SENTENCE_END.split(_facts._BULLET.sub("", line.strip())):
            cjk = _facts._CJK_STOPS.intersection(piece)
            for part in _facts._CJK_END.split(piece) if cjk else (piece,):
                if part.strip():
                    out.append(part.strip())
    return out


@given(glued([*_PIECES, "Dr.", "- ", "1. ", "\u3002", "x"], _GLUE, piece_size=4, max_size=16))
def test_sentences_skip_only_lines_without_an_end(text: str) -> None:
    assert _facts.sentences(text) == _plain_sentences(text)


_BULLETED = glued(
    [*_PIECES, "- ", "* ", "\u2022 ", "1.", "12)", "3. ", "A.", "(", "[", "Never", "it"],
    (*_GLUE, "! ", "? ", ".) ", ".] ", "\n- ", "\n1. ", " - ", "\r", "\u2028"),
    piece_size=4,
    max_size=16,
)


@given(_BULLETED)
def test_a_sentence_splits_to_itself_unless_it_starts_with_a_bullet(text: str) -> None:
    for sentence in _facts.sentences(text):
        assert _facts.splits_to_itself(sentence) == (_facts.sentences(sentence) == [sentence])


@given(texts)
def test_numbers_and_names(text: str) -> None:
    assert _found(_values._NUMBER, text) == _found(_NUMBER, text)
    assert _found(_values._NAME, text) == _found(_NAME, text)
    assert _values._TOKEN.findall(text) == _TOKEN.findall(text)


_MARKED = (
    "ValueError",
    "Error",
    "Warning",
    "a_b",
    "f()",
    "x@y.com",
    "~/p",
    "a::b",
    "README.md",
    "New York",
    "iPhone",
    "ABC12",
    "v1.2.3",
    "3-4",
    "\u00a3",
    "\u20ac5",
    "I",
    "I'd",
)


@given(texts | st.lists(st.sampled_from(_MARKED + _PIECES) | st.text(max_size=3)).map(" ".join))
def test_values_gate_never_skips_a_value(text: str) -> None:
    assert _values._read_values(text) == _values._marked_values(text)


_REPLACED = st.lists(
    st.sampled_from(
        (
            "not",
            "no longer",
            "instead of",
            "rather than",
            "replace",
            "replaces",
            "replaced",
            "replacing",
            "the",
            "3.12",
            "X.y",
            "anot",
            "_not",
            "é",
            "Not",
            "n",
            "r",
            "i",
            "is",
            "WAS",
            "out of date",
            "Obsolete",
            "no longer valid",
            "(2027",
        )
    )
    | st.text(max_size=3),
    max_size=10,
).map(" ".join)


@given(texts | _REPLACED)
def test_replaced_values(text: str) -> None:
    assert _found(_kinds._NOT_VALUE, text) == _found(_NOT_VALUE, text)
    assert [m.group(1) for m in _kinds._NOT_VALUE.finditer(text)] == _NOT_VALUE.findall(text)
    if _kinds._OUTDATED.search(text) is not None:
        assert _kinds._OUTDATED_NEEDS.search(text) is not None


_WORD_PIECES = (
    "a",
    "Z",
    "s",
    "x",
    "v",
    "f",
    "e",
    "E",
    "1",
    "٣",
    "é",
    ".",
    "..",
    "_",
    "-",
    "/",
    "~",
    "@",
    ":",
    "::",
    "$",
    "€",
    "()",
    "(",
    ",",
    "%",
    "py",
    ".py",
    ".json",
    ".env",
    "Error",
    "Warning",
    "Exception",
    "Value",
    "pm",
    "M",
    "http",
    "ms",
    "AM",
    "v",
    "T",
    "ab",
    "f3",
    "0a",
    "B",
    "[x]",
    "+",
)
words = st.lists(st.sampled_from(_WORD_PIECES), max_size=12).map("".join) | st.text(max_size=12)


def _span(match: re.Match[str] | None) -> tuple[tuple[int, int], str | None] | None:
    return None if match is None else (match.span(), match.lastgroup)


_LOWER_THEN_PUNCTUATION = st.tuples(
    st.text(st.characters(categories=("Ll", "Lo")) | st.sampled_from("mpyv"), min_size=1),
    st.text(st.sampled_from(_shapes.PUNCTUATION), max_size=4),
).map("".join)
"""Lowercase letters and trailing punctuation (`args:`, `etc.`, `py::`): read for nothing."""


@given(words | _LOWER_THEN_PUNCTUATION)
def test_shapes_table(word: str) -> None:
    assert _span(_shapes._whole_shape(word)) == _span(_SHAPES.fullmatch(word))
    assert _found(_shapes._SHAPES, word) == _found(_SHAPES, word)
    assert [(m.span(), m.lastgroup) for m in _shapes._inner(word)] == _found(_SHAPES, word)


def _plain_shapes(word: str) -> list[tuple[str, str]]:
    """`_shapes.shapes` without its speed gates: the whole word against every shape, else a
    search (`_INTERESTING` is not one: it decides what a word is, `a()` has no shape)."""
    if _INTERESTING.search(word) is None:
        return []
    whole = _SHAPES.fullmatch(word.rstrip(_shapes.PUNCTUATION))
    matches = [whole] if whole is not None else list(_SHAPES.finditer(word))
    found = []
    for match in matches:
        role = _shapes._ALIASES.get(match.lastgroup or "", match.lastgroup or "")
        value = _shapes._clean(match.group(), role)
        if value is not None:
            found.append((role, value))
    return found


@given(
    words | _LOWER_THEN_PUNCTUATION | st.from_regex(r"\d{1,5}[.,:;!?'\"*)\]}]{0,2}", fullmatch=True)
)
def test_shapes_gates(word: str) -> None:
    """Short words, unmarked words, bare digits and lowercase words read as the plain search
    reads them."""
    assert _shapes.shapes(word) == _plain_shapes(word)


_LOWERCASE = st.text(st.characters(categories=("Ll", "Lo", "Lm", "Mn")) | st.sampled_from("mEW"))


@given(words | _LOWERCASE | _LOWER_THEN_PUNCTUATION)
def test_lowercase_letters_alone_match_no_shape_whole(word: str) -> None:
    if word.isalpha() and word.islower():
        assert _SHAPES.fullmatch(word) is None
    stripped = word.rstrip(_shapes.PUNCTUATION)
    if stripped.isalpha() and stripped.islower():
        assert _SHAPES.search(word) is None  # nor inside it, punctuation and all


_MARK_WORDS = words | st.text(st.sampled_from("aZ9_.:\n $é٣"), max_size=8)


@given(_MARK_WORDS)
def test_interesting_finds_what_its_plain_form_finds(word: str) -> None:
    """Only whether it finds anything is asked (its match starts at the capital)."""
    assert (_shapes._INTERESTING.search(word) is None) == (_INTERESTING.search(word) is None)


@given(texts | st.text(st.sampled_from("v1.2-:/$%_x9 \n"), max_size=16))
def test_plain_number_matches_its_plain_form(text: str) -> None:
    spans = [m.span() for m in _settings._PLAIN_NUMBER.finditer(text)]
    assert spans == [m.span() for m in _PLAIN_NUMBER.finditer(text)]


@given(words)
def test_words_without_a_shape_mark_have_no_shape(word: str) -> None:
    if _shapes._SHAPED.search(word) is None:
        assert _shapes._SHAPES.search(word) is None


_GATED = (
    *sorted(_kinds.UPDATE_NEEDS),
    *_kinds.UPDATE_FIRST,
    "update",
    "updated to",
    *_kinds.DECISION_NEEDS,
    *sorted(_statement._ANAPHORS),
    "from now on",
    "going forward",
    "no longer",
    "no,",
    "hmm,",
    "no wait,",
    "oh",
    "scratch that",
    "on second thought",
    "change of plan",
    "is now",
    "now is",
    "any more",
    "rather than",
    "we decided",
    "i'll go with",
    "let's go with",
    "decision:",
    "not",
    "to",
    "by",
    "with",
    "the",
    "it's",
    "x_it",
    "é",
    "2",
    ".",
    "!",
    ",",
)
sentences = st.lists(st.sampled_from(_GATED) | st.text(max_size=4), max_size=12).map(" ".join)


@given(sentences)
def test_gates_never_skip_a_match(sentence: str) -> None:
    folded = _cues.fold(sentence)
    words = _cues.words_of(folded)
    if _kinds._UPDATE.search(folded) is not None:
        opens = _kinds._OPENS_UPDATE.match(folded) is not None
        assert not _kinds.UPDATE_NEEDS.isdisjoint(words) or opens
    if _kinds._DECISION.search(folded) is not None:
        assert any(need in folded for need in _kinds.DECISION_NEEDS)
    if _statement._ANAPHOR.search(folded) is not None:
        assert not _statement._ANAPHORS.isdisjoint(words)


_GLUED_GATE_WORDS = st.lists(
    st.sampled_from(sorted(_cues._GATE_WORDS[0])) | st.sampled_from(list("07'_-.:/ \tAZé本で")),
    max_size=12,
).map("".join)


@given(_GLUED_GATE_WORDS | sentences | st.text(alphabet=st.characters(max_codepoint=127)))
def test_words_of_reads_the_runs_of_a_to_z(text: str) -> None:
    """`words_of` splits ASCII text by a byte table: the gate words among the runs of a-z
    that `[a-z]+` finds, in any text, and CJK when it holds a Han or kana character."""
    folded = _cues.fold(text)
    _cues._WORDS_OF.clear()
    runs = re.findall("[a-z]+", folded) + (["cjk"] if re.search(CJK_CHARS, folded) else [])
    expected = _cues._GATE_WORDS[0].intersection(runs)
    assert _cues.words_of(folded) == expected


_TEXT_PIECES = (
    *_WORD_PIECES,
    *",;()[]{}<>\"'`=|*!?",
    "http://a.b/c(d)",
    "1,250",
    "\x1f",
    "\x0b",
    "\n",
    "\x01",
    "\ud800",
    "\u3000",
    "f()x",
    "é()",
)


@given(st.lists(st.sampled_from(_TEXT_PIECES) | st.text(max_size=3), max_size=20).map("".join))
def test_words_split_like_the_word_pattern(text: str) -> None:
    assert _shapes.words(text) == _shapes._WORD.findall(text)
    assert _shapes.words(text.encode("ascii", "ignore").decode()) == _shapes._WORD.findall(
        text.encode("ascii", "ignore").decode()
    )


_ERROR_START = re.compile(
    r"\s*(?:(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b"
    r"|(?:error|fatal|FAILED|ERROR|FAIL)\b[:\s]|E\s{2,}\S)",
    re.I,
)


def _error_line(text: str) -> str | None:
    """`_facts.error_line` with every line of the head read first, each matched with its
    line break."""
    if "Traceback (most recent call last)" in text:
        found = _facts._EXCEPTION_LINE.findall(
            text.rsplit("Traceback (most recent call last)", maxsplit=1)[-1]
        )
        if found:
            return _facts.clip(found[-1], 200)
    lines = [line for line in text[:4000].splitlines() if line.strip()]
    if lines and re.fullmatch(r"[A-Z]+:\s*", lines[0]):
        lines = lines[1:]
    for line in lines[:6]:
        if _ERROR_START.match(f"{line}\n") or any(p in line.lower() for p in _facts._ERROR_PHRASES):
            return _facts.clip(line, 200)
    return None


_LINES = (
    "OBSERVATION:",
    "ERROR: x",
    "ok",
    "",
    "  ",
    "ValueError: bad",
    "FAILED a",
    "x" * 30,
    "error",
    "fatal",
    " FAIL",
    "E  x",
    "E  ",
    "\x85",
)


@given(st.lists(st.sampled_from(_LINES) | st.text(max_size=8), max_size=12).map("\n".join))
def test_error_line_reads_the_head_lines_only(text: str) -> None:
    assert _facts.error_line(text) == _error_line(text)


_SUBJECT_PIECES = (
    "ID",
    "iD",
    "Id",
    "JFK",
    "KB",
    "kb",
    "am",
    "pm",
    "AM",
    "Pm",
    "May 20th",
    "3 bags",
    "11 AM",
    "Boston",
    "user",
    "abcdefab",
    "abcdefab\u0663",
    "abcdefab\u0663x-",
    "deadbeef1",
    "Foo_bar",
    "setup.py",
    "build-F1",
)


def _plain_subject_words(text: str) -> tuple[str, ...]:
    """`_values._read_subject_words` as rules 3 and 4 state it: every value read and left
    out, text beyond ASCII split into words of any script."""
    stated = _values._read_values(text)
    token = _values._TOKEN if text.isascii() else _values._WIDE_TOKEN
    tokens = token.findall(text)
    if stated:
        skip = stated | {w for v in stated for w in token.findall(v)}
        tokens = [t for t in tokens if t not in skip]
    return tuple(dict.fromkeys(w for t in tokens for w in _values._word_subjects(t)))


@given(
    texts
    | st.lists(st.sampled_from(_SUBJECT_PIECES + _MARKED + _PIECES) | st.text(max_size=3)).map(
        " ".join
    )
)
def test_subject_words_read_values_only_where_they_can_matter(text: str) -> None:
    assert _values._read_subject_words(text) == _plain_subject_words(text)


@given(
    texts
    | st.lists(st.sampled_from(_SUBJECT_PIECES + _MARKED + _PIECES) | st.text(max_size=3)).map(
        " ".join
    )
)
def test_names_says_whether_there_are_values(text: str) -> None:
    assert _values.names(text) == bool(_values._read_values(text))


_RETRACTIONS = glued(
    [
        "forget what i said about",
        "ignore the rule",
        "never mind the",
        "the rule about",
        "my earlier requirement on",
        "is no longer needed",
        "no longer applies",
        "no longer",
        "are no longer in force",
        "please",
        "ok,",
        "deploys",
    ],
    (" ", ". ", "; ", ", ", ""),
    piece_size=6,
    max_size=8,
)


@given(_RETRACTIONS)
def test_retraction_in_linear_time_finds_what_the_pattern_finds(text: str) -> None:
    """`is_retraction` answers as RETRACTION.search does (without its quadratic retries)."""
    assert _retractions.is_retraction(text) is (_retractions.RETRACTION.search(text) is not None)


def test_retraction_of_a_long_text_is_fast() -> None:
    """A long statement with no retraction in it: the plain search retries the lazy run
    from every position (seconds at this size); the linear test reads it once."""
    text = "keep the deploy window short and the logs tidy, " * 2_000
    assert _retractions.is_retraction(text) is False
    assert _retractions.is_retraction(text + "the old limit is no longer needed") is True
