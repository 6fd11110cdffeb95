"""Request bodies, answer parsing and answer validation for the LLM backends, written once.

Rules:
1. Bodies, parsing and validation are pure: bodies are plain JSON-able dicts, answers
   arrive as raw bytes and are decoded here, so the sync and async methods of a backend
   only move bytes. The few helpers with effects (SDK import, key lookup) say so.
2. An answer is accepted only if it has text, was not cut off at the bound, is not over the
   bound, and shows most of the section headings (MIN_SECTIONS); anything else is
   garbled and raises SummarizerError, which the fallback chain counts as a failure.
3. Failure messages name the backend and the kind of failure (status, timeout, shape) and
   never carry the SDK's own text, which can echo request details such as credentials.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Final, Literal, TypeAlias
from urllib.parse import urlsplit

from .._errors import ConfigurationError, SummarizerError
from ._prompt import SECTIONS, build_prompt
from ._protocol import AsyncSummarizer, Summarizer, SummaryRequest, SummaryResult

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "MIN_SECTIONS",
    "Answer",
    "MaxTokensField",
    "Secret",
    "acall",
    "accept",
    "anthropic_body",
    "check_limits",
    "decode",
    "describe_failure",
    "import_sdk",
    "openai_body",
    "parse_anthropic",
    "parse_openai",
    "resolve_key",
    "safe_url",
    "sdk_arguments",
    "sections_found",
]

DEFAULT_TIMEOUT: Final = 120.0
"""Seconds per HTTP attempt: a 32K local model can take a while to read a long span."""
DEFAULT_MAX_RETRIES: Final = 1
"""SDK retries per call (429, 5xx, timeouts); the fallback chain handles the rest."""
MIN_SECTIONS: Final = len(SECTIONS) // 2 + 1
"""An answer showing fewer of the section headings than this is garbled."""
CHARS_PER_TOKEN_CEILING: Final = 8
"""No tokenizer averages more characters per token than this on real text."""
PLACEHOLDER_KEY: Final = "sk-no-key-required"
"""Sent to servers at a custom base_url that need no key (llama.cpp, vLLM, Ollama)."""

MaxTokensField: TypeAlias = Literal["max_tokens", "max_completion_tokens"]

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_FENCED = re.compile(r"\A```[\w-]*\n(.*)\n```\Z", re.DOTALL)
_HEADING_NOISE = " \t#*_:.0123456789)"


def import_sdk(module: str, extra: str) -> ModuleType:
    """The SDK module, or a ConfigurationError telling how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigurationError(
            f"this summarizer needs the {module!r} package: pip install 'contextfold[{extra}]'"
        ) from None


def safe_url(url: str | None) -> str | None:
    """`url` without user info, query or fragment, fit to show in a repr."""
    if url is None:
        return None
    parts = urlsplit(url)
    try:
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        port = ":?"
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


def check_limits(timeout: float, max_retries: int) -> None:
    """ConfigurationError unless the timeout is positive and the retries not negative."""
    if not timeout > 0:
        raise ConfigurationError(f"timeout must be a positive number of seconds, not {timeout}")
    if max_retries < 0:
        raise ConfigurationError(f"max_retries must not be negative, not {max_retries}")


class Secret:
    """An API key that never shows itself in a repr or str."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


def resolve_key(explicit: str | None, env_var: str, *, required: bool) -> Secret:
    """The key to send: explicit, else `env_var` (read now), else a placeholder if allowed."""
    key = explicit or os.environ.get(env_var)
    if key:
        return Secret(key)
    if not required:
        return Secret(PLACEHOLDER_KEY)
    raise ConfigurationError(
        f"no API key: set {env_var} or pass api_key=; "
        "for a local server that needs no key, pass its base_url="
    )


@dataclass(frozen=True, slots=True)
class Answer:
    """What a model answered, before validation."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cut_off: bool = False
    """The model stopped because it reached the max-tokens bound."""


def openai_body(
    model: str,
    request: SummaryRequest,
    *,
    max_tokens_field: MaxTokensField = "max_tokens",
    temperature: float | None = None,
) -> dict[str, object]:
    """The chat completions request body for `request`."""
    prompt = build_prompt(request)
    body: dict[str, object] = {
        "model": model,
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ],
        max_tokens_field: request.max_tokens,
    }
    if temperature is not None:
        body["temperature"] = temperature
    return body


def anthropic_body(
    model: str, request: SummaryRequest, *, temperature: float | None = None
) -> dict[str, object]:
    """The Anthropic messages request body for `request`."""
    prompt = build_prompt(request)
    body: dict[str, object] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "system": prompt.system,
        "messages": [{"role": "user", "content": prompt.user}],
    }
    if temperature is not None:
        body["temperature"] = temperature
    return body


def sdk_arguments(body: Mapping[str, object], named: tuple[str, ...]) -> dict[str, object]:
    """Keyword arguments for an SDK `create`: `named` fields by name, the rest as extra_body.

    SDK signatures change between versions (parameters get deprecated or removed), while
    `extra_body` is merged into the JSON as is, so the wire body stays exactly `body`.
    """
    arguments = {key: value for key, value in body.items() if key in named}
    extra = {key: value for key, value in body.items() if key not in named}
    if extra:
        arguments["extra_body"] = extra
    return arguments


def decode(raw: bytes, name: str) -> object:
    """The JSON value of a response body; malformed JSON is a failure."""
    try:
        return json.loads(raw)
    except ValueError:
        pass  # raised below, outside the handler, so no parser text is chained
    raise SummarizerError(f"{name}: the answer is not valid JSON")


def _get(data: object, key: str) -> object:
    return data.get(key) if isinstance(data, Mapping) else None


def _count(data: object, *keys: str) -> int:
    values = (_get(data, key) for key in keys)
    return sum(v for v in values if isinstance(v, int) and not isinstance(v, bool))


def _text_of(content: object) -> str:
    """Text of a content field: a string, or a list of `{type: text, text}` blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (_get(b, "text") for b in content if _get(b, "type") == "text")
        return "".join(t for t in texts if isinstance(t, str))
    return ""


def parse_openai(data: object, name: str) -> Answer:
    """The answer in a chat.completion object."""
    choices = _get(data, "choices")
    if not isinstance(choices, list) or not choices:
        raise SummarizerError(f"{name}: the answer has no choices")
    first = choices[0]
    usage = _get(data, "usage")
    return Answer(
        _text_of(_get(_get(first, "message"), "content")),
        input_tokens=_count(usage, "prompt_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        cut_off=_get(first, "finish_reason") == "length",
    )


def parse_anthropic(data: object, name: str) -> Answer:
    """The answer in an Anthropic message object; cache reads and writes count as input."""
    content = _get(data, "content")
    if not isinstance(content, list):
        raise SummarizerError(f"{name}: the answer has no content blocks")
    usage = _get(data, "usage")
    return Answer(
        _text_of(content),
        input_tokens=_count(
            usage, "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"
        ),
        output_tokens=_count(usage, "output_tokens"),
        cut_off=_get(data, "stop_reason") == "max_tokens",
    )


def _clean(text: str) -> str:
    """The text without thinking blocks and without a code fence around the whole."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCED.match(text)
    return fenced.group(1).strip() if fenced else text


def sections_found(text: str) -> int:
    """How many of the section headings appear as lines of `text`."""
    lines = {line.strip(_HEADING_NOISE).casefold() for line in text.splitlines()}
    return sum(title.casefold() in lines for title, _ in SECTIONS)


def accept(name: str, request: SummaryRequest, answer: Answer) -> SummaryResult:
    """The result for a valid answer; SummarizerError for an empty or garbled one."""
    text = _clean(answer.text)
    bound = request.max_tokens
    if not text:
        raise SummarizerError(f"{name}: the answer is empty")
    if answer.cut_off:
        raise SummarizerError(f"{name}: the answer was cut off at the {bound}-token bound")
    if answer.output_tokens > bound or len(text) > bound * CHARS_PER_TOKEN_CEILING:
        raise SummarizerError(f"{name}: the answer is over the {bound}-token bound")
    found = sections_found(text)
    if found < MIN_SECTIONS:
        raise SummarizerError(
            f"{name}: the answer is garbled ({found} of {len(SECTIONS)} section headings)"
        )
    return SummaryResult(
        text,
        summarizer=name,
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
    )


def describe_failure(
    exc: Exception, *, timeout: type[Exception], connection: type[Exception]
) -> str:
    """What went wrong in an SDK call, from its type and status only, never its text."""
    if isinstance(exc, timeout):
        return "timed out"
    if isinstance(exc, connection):
        return "could not connect"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return "rate limited (HTTP 429)" if status == 429 else f"HTTP {status}"
    return f"unexpected {type(exc).__name__}"


async def acall(summarizer: Summarizer, request: SummaryRequest) -> SummaryResult:
    """Await `summarizer` natively when it can be awaited, else in a worker thread."""
    if isinstance(summarizer, AsyncSummarizer):
        return await summarizer.asummarize(request)
    import asyncio  # noqa: PLC0415 - lazily: the CLI and sync callers never load it

    return await asyncio.to_thread(summarizer.summarize, request)
