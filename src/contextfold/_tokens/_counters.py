"""The token counters: a text encoder composed with a format's overheads and image rule.

Rules:
1. Each counter is built from data (an Encoding, a Tokenizer), never from a path or URL;
   `HFTokenizerCounter.from_file` is a convenience that reads the file and hands over data.
2. Every counter has a `name` for reports and the same four methods: `count_text(text)`,
   `count(message)` (overhead included), `count_floor(message)` (a cheap lower bound) and
   `fixed_overhead(conversation)`; the shared arithmetic lives in `Accountant`, held by
   composition.
4. The floor counts a token per run of non-space characters only for tokenizers whose
   pre-tokenizer never joins two runs in one piece: OpenAI's encodings (and the heuristic,
   which is o200k's). Other tokenizers' floors count framing only.
3. Optional libraries (tiktoken, tokenizers) are imported only when such a counter is built;
   a missing one raises TokenizerError saying which extra to install.
5. tiktoken counts a long text chunk by chunk where its encoding's pattern makes the counts
   add up (`_chunks`), so the token list it returns stays small; other texts in one call.
   Hugging Face tokenizers have pre-tokenizers of every kind: their texts go in one call.
6. A text tiktoken's regex cannot split (a run of about a million spaces makes it panic)
   is split by `_long_runs` into parts whose counts add up, so it is counted exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from .._adapters import check_format
from .._errors import ConfigurationError, TokenizerError
from .._messages import Conversation, Message
from ._accounting import DEFAULT_CACHE_SIZE, Accountant, runs_of_non_space
from ._chunks import CHUNK_CHARS, chunks, splits_at_cuts
from ._heuristic import count_text as heuristic_count
from ._images import image_rule_for
from ._load import encoding as load_encoding
from ._long_runs import LONG_RUN, is_panic, risky, split_len
from ._profiles import overheads_for

if TYPE_CHECKING:
    import tiktoken
    import tokenizers

__all__ = ["HFTokenizerCounter", "HeuristicCounter", "TiktokenCounter"]


_SPLIT_AT_SPACES = frozenset(
    {"o200k_base", "o200k_harmony", "cl100k_base", "p50k_base", "p50k_edit", "r50k_base", "gpt2"}
)
"""tiktoken encodings whose pre-tokenizer keeps runs of non-space characters apart (rule 4)."""


def _accountant(
    count_text: Callable[[str], int],
    format: str,
    model: str | None,
    cache_size: int,
    *,
    margin: float = 1.0,
    floor_text: Callable[[str], int] | None = None,
) -> Accountant:
    """The shared arithmetic for one text counter, format and model."""
    fmt = check_format(format)
    images = image_rule_for(model, anthropic_format=fmt == "anthropic")
    overheads = overheads_for(fmt, model)
    if margin != 1.0:
        overheads = replace(overheads, text_scale=overheads.text_scale * margin)
    return Accountant(count_text, overheads, images, cache_size=cache_size, floor_text=floor_text)


class _Accounted:
    """A counter whose counts come from its accountant: text alone, a message with its
    framing, and the request's fixed overhead."""

    __slots__ = ("__weakref__", "_acct")  # weak: caches keyed by a counter must not keep it
    _acct: Accountant

    def count_text(self, text: str) -> int:
        """Tokens in `text` alone."""
        return self._acct.count_text(text)

    def count(self, message: Message) -> int:
        """Tokens `message` costs, framing included."""
        return self._acct.message(message)

    def count_floor(self, message: Message) -> int:
        """A lower bound of `count(message)` that encodes no text (rule 4)."""
        return self._acct.floor(message)

    def fixed_overhead(self, conversation: Conversation) -> int:
        """Reply priming plus tool definitions."""
        return self._acct.fixed(conversation)


class HeuristicCounter(_Accounted):
    """Zero-dependency o200k_base count: tiktoken's split and merges in pure Python.

    `margin` scales text counts up, for models whose tokenizer is not o200k (it errs high).
    """

    __slots__ = ("name",)

    def __init__(
        self,
        *,
        format: str = "openai-chat",
        model: str | None = None,
        name: str = "heuristic",
        cache_size: int = DEFAULT_CACHE_SIZE,
        margin: float = 1.0,
    ) -> None:
        if not 1.0 <= margin <= 2.0:
            raise ConfigurationError(f"margin must be in [1, 2], got {margin}")
        self.name = name
        self._acct = _accountant(
            heuristic_count, format, model, cache_size, margin=margin, floor_text=runs_of_non_space
        )

    def __repr__(self) -> str:
        return f"HeuristicCounter(name={self.name!r}, format={self._acct.overheads.format!r})"


class TiktokenCounter(_Accounted):
    """Exact OpenAI counts with a tiktoken Encoding (packaged data, no network)."""

    __slots__ = ("_encode", "_splits", "encoding", "name")

    def __init__(
        self,
        encoding: str | tiktoken.Encoding = "o200k_base",
        *,
        format: str = "openai-chat",
        model: str | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self.encoding = load_encoding(encoding) if isinstance(encoding, str) else encoding
        self._encode = self.encoding.encode_ordinary
        """`encode(text, disallowed_special=())`: special tokens' text counted as text."""
        self.name = f"tiktoken:{self.encoding.name}"
        split = self.encoding.name in _SPLIT_AT_SPACES
        floor = runs_of_non_space if split else None
        self._splits = splits_at_cuts(self.encoding)
        count = self._chunked_len if self._splits else self._encode_len
        self._acct = _accountant(count, format, model, cache_size, floor_text=floor)

    def __repr__(self) -> str:
        return f"TiktokenCounter(name={self.name!r}, format={self._acct.overheads.format!r})"

    def _encode_len(self, text: str) -> int:
        """The tokens of `text`; one tiktoken cannot split is split first (rule 6)."""
        if len(text) >= LONG_RUN and risky(text):
            return split_len(self.encoding, text, self._plain_len)
        try:
            return len(self._encode(text))
        except BaseException as exc:  # a Rust panic is a BaseException (rule 6)
            if not is_panic(exc):
                raise
        return split_len(self.encoding, text, self._plain_len, long_piece=1)

    def _plain_len(self, text: str) -> int:
        """`_encode_len` of a text holding no long run, in chunks where they add up."""
        if self._splits and len(text) > CHUNK_CHARS:
            return sum(len(self._encode(chunk)) for chunk in chunks(text))
        return len(self._encode(text))

    def _chunked_len(self, text: str) -> int:
        """`_encode_len(text)`, a long text counted in chunks (rule 5)."""
        if len(text) <= CHUNK_CHARS:
            return len(self._encode(text))
        return sum(map(self._encode_len, chunks(text)))


class HFTokenizerCounter(_Accounted):
    """Counts with a Hugging Face `tokenizers.Tokenizer` (a local model's tokenizer.json)."""

    __slots__ = ("name", "tokenizer")

    def __init__(
        self,
        tokenizer: tokenizers.Tokenizer,
        *,
        name: str = "hf",
        format: str = "openai-chat",
        model: str | None = None,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self.tokenizer = tokenizer
        self.name = name
        self._acct = _accountant(self._encode_len, format, model, cache_size)

    @classmethod
    def from_str(
        cls,
        json_text: str,
        *,
        name: str = "hf",
        format: str = "openai-chat",
        model: str | None = None,
    ) -> HFTokenizerCounter:
        """A counter from the text of a tokenizer.json."""
        tokenizers = _import_tokenizers()
        try:
            tokenizer = tokenizers.Tokenizer.from_str(json_text)
        except Exception as exc:  # the Rust side raises plain Exception subclasses
            raise TokenizerError(f"not a valid tokenizer.json: {exc}") from exc
        return cls(tokenizer, name=name, format=format, model=model)

    @classmethod
    def from_file(
        cls, path: str | Path, *, format: str = "openai-chat", model: str | None = None
    ) -> HFTokenizerCounter:
        """A counter from a tokenizer.json file, named `hf:<file name>`."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise TokenizerError(f"cannot read tokenizer file {str(file)!r}: {exc}") from exc
        return cls.from_str(text, name=f"hf:{file.name}", format=format, model=model)

    def __repr__(self) -> str:
        return f"HFTokenizerCounter(name={self.name!r}, format={self._acct.overheads.format!r})"

    def _encode_len(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)


def _import_tokenizers() -> ModuleType:
    try:
        import tokenizers  # noqa: PLC0415 - optional extra, imported lazily (STYLE 15)
    except ImportError as exc:
        raise TokenizerError(
            "tokenizer.json counting needs tokenizers: pip install 'contextfold[hf]'"
        ) from exc
    return tokenizers
