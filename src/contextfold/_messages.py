"""The neutral conversation model that every layer between the adapters speaks.

Rules:
1. Parts are frozen, slotted dataclasses tagged by a `kind` literal; dispatch with `match`
   and `assert_never`. Do not subclass them.
2. Wire fields the model does not map live in `extras`. Adapters own those keys; core code
   never reads them, it only carries them along.
3. Compaction artifacts (`Marker`, `Summary`, `Card`) render to wire formats as plain text,
   and parsing reads every text back as `Text`: text alone never makes an artifact. The
   engine recognises its own artifacts with the evidence text cannot forge (role,
   position, the archive), in one place: `_engine/_artifacts.py`. `artifact_kind` only
   tells which header a text starts with.
4. A tool result is a part (`ToolResult`), wherever the wire format puts it: in a `tool`
   message (OpenAI chat), a `function_call_output` item (Responses) or a user message
   (Anthropic).
5. The models are built by the million (every message parsed, every part the engine
   makes), so their `__init__` sets slots directly (`slot_init`): same signature, same
   frozen objects as the dataclass one.
6. Extras are read-only. An adapter may hand the same `extras` mapping to every part or
   message whose wire layout is the same (`share_extras`, keyed by a hashable form of
   its content): what it shares holds only scalars and containers it made itself, never
   the caller's. At most SHARED_MAX layouts are shared, for the life of the process (they
   are never forgotten: `shares_extras` knows them by identity), so whoever keeps a
   shared mapping (the archive) keeps it as it is, nothing in it can change.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Final, Literal, NoReturn, TypeAlias, TypeVar, overload

Extras: TypeAlias = Mapping[str, object]


class _NoExtras(Mapping[str, object]):
    """The shared, immutable, hashable empty mapping used as the default `extras`."""

    __slots__ = ()

    def __getitem__(self, key: str) -> NoReturn:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __contains__(self, key: object) -> bool:
        return False  # without raising KeyError: adapters probe extras on every message

    @overload
    def get(self, key: str, /) -> object | None: ...
    @overload
    def get(self, key: str, /, default: object) -> object: ...
    def get(self, key: str, /, default: object = None) -> object:
        return default

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"


EMPTY: Final[Extras] = _NoExtras()

SHARED_MAX: Final = 1024
"""Distinct layouts `share_extras` keeps (rule 6); past that, extras are not shared."""
_SHARED: Final[dict[object, Extras]] = {}
_SHARED_IDS: Final[set[int]] = set()


def share_extras(extras: Extras, key: object) -> Extras:
    """The mapping shared by every `extras` with this content `key` (rule 6): `extras`
    itself the first time (or once SHARED_MAX layouts are kept)."""
    found = _SHARED.get(key)
    if found is not None:
        return found
    if len(_SHARED) >= SHARED_MAX:
        return extras
    found = _SHARED.setdefault(key, extras)  # one winner when threads race
    _SHARED_IDS.add(id(found))
    return found


def shares_extras(extras: object) -> bool:
    """Whether `extras` is a mapping `share_extras` gave out (rule 6)."""
    return id(extras) in _SHARED_IDS


_T = TypeVar("_T")


def slot_init(cls: type[_T]) -> type[_T]:
    """Give a frozen, slotted dataclass the same `__init__` (signature and effect) that
    sets each slot through its descriptor: the generated one calls `object.__setattr__`
    per field, which made building a message about twice as slow (rule 5)."""
    if hasattr(cls, "__post_init__"):  # the generated __init__ would not call it
        raise TypeError(f"slot_init cannot keep {cls.__name__}.__post_init__")
    fields = sorted(dataclasses.fields(cls), key=lambda f: f.kw_only is True)  # type: ignore[arg-type]
    env: dict[str, object] = {}
    params, body = ["self"], []
    for f in fields:
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"slot_init takes plain fields only, not {cls.__name__}.{f.name}")
        if f.kw_only and "*" not in params:
            params.append("*")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            env[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        env[f"_s_{f.name}"] = cls.__dict__[f.name].__set__
        body.append(f"    _s_{f.name}(self, {f.name})")
    exec(f"def __init__({', '.join(params)}):\n" + "\n".join(body), env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[method-assign, assignment]
    return cls


Role: TypeAlias = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: Final[tuple[Role, ...]] = ("system", "developer", "user", "assistant", "tool")


@slot_init
@dataclass(frozen=True, slots=True)
class Text:
    """Plain text."""

    text: str
    _: KW_ONLY
    extras: Extras = EMPTY
    kind: Literal["text"] = "text"


Detail: TypeAlias = Literal["auto", "low", "high", "original"]
"""OpenAI's image `detail` levels (chat `image_url.detail`, Responses `input_image.detail`)."""
DETAILS: Final[tuple[Detail, ...]] = ("auto", "low", "high", "original")


@slot_init
@dataclass(frozen=True, slots=True)
class Image:
    """An image by URL or inline data (`data:<media type>;base64,...`)."""

    source: str
    _: KW_ONLY
    detail: Detail | None = None
    """OpenAI's `detail`; None when the wire payload does not say."""
    extras: Extras = EMPTY
    kind: Literal["image"] = "image"


@slot_init
@dataclass(frozen=True, slots=True)
class ToolCall:
    """A request from the assistant to run a tool; `arguments` is the JSON text."""

    id: str
    name: str
    arguments: str
    _: KW_ONLY
    extras: Extras = EMPTY
    kind: Literal["tool_call"] = "tool_call"


@slot_init
@dataclass(frozen=True, slots=True)
class ToolResult:
    """The output of a tool call, answering `call_id`."""

    call_id: str
    parts: tuple[Part, ...]
    _: KW_ONLY
    is_error: bool = False
    extras: Extras = EMPTY
    kind: Literal["tool_result"] = "tool_result"


@slot_init
@dataclass(frozen=True, slots=True)
class Reasoning:
    """Model reasoning (thinking, signatures, encrypted content): opaque, never edited."""

    text: str
    """Visible reasoning text, counted for tokens; may be empty when encrypted."""
    _: KW_ONLY
    signature: str | None = None
    encrypted: str | None = None
    """Redacted or encrypted reasoning data, passed back to the provider untouched."""
    extras: Extras = EMPTY
    kind: Literal["reasoning"] = "reasoning"


@slot_init
@dataclass(frozen=True, slots=True)
class Opaque:
    """A wire part or item this model does not understand, kept whole (e.g. a document)."""

    payload: Mapping[str, object]
    _: KW_ONLY
    extras: Extras = EMPTY
    kind: Literal["opaque"] = "opaque"


@slot_init
@dataclass(frozen=True, slots=True)
class Marker:
    """What compaction put in place of a payload; `ref` recalls the original."""

    ref: str
    text: str
    """The full text shown to the model, containing the reference."""
    _: KW_ONLY
    extras: Extras = EMPTY
    kind: Literal["marker"] = "marker"


@slot_init
@dataclass(frozen=True, slots=True)
class Summary:
    """A folded span of older conversation; `text` starts with SUMMARY_HEADER."""

    text: str
    _: KW_ONLY
    extras: Extras = EMPTY
    kind: Literal["summary"] = "summary"


@slot_init
@dataclass(frozen=True, slots=True)
class Card:
    """The constraint card: user rules carried verbatim; `text` starts with CARD_HEADER."""

    text: str
    _: KW_ONLY
    extras: Extras = EMPTY
    kind: Literal["card"] = "card"


Part: TypeAlias = (
    Text | Image | ToolCall | ToolResult | Reasoning | Opaque | Marker | Summary | Card
)
Artifact: TypeAlias = Marker | Summary | Card


@slot_init
@dataclass(frozen=True, slots=True)
class Message:
    """One message (or Responses item) in neutral form."""

    role: Role
    parts: tuple[Part, ...]
    _: KW_ONLY
    name: str | None = None
    """Participant or tool name (OpenAI `name`); counts toward tokens."""
    extras: Extras = EMPTY


@slot_init
@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool definition offered to the model; counted as fixed overhead."""

    name: str
    description: str | None = None
    parameters: Mapping[str, object] | None = None
    _: KW_ONLY
    extras: Extras = EMPTY


Shape: TypeAlias = Literal["list", "body"]


@slot_init
@dataclass(frozen=True, slots=True)
class Conversation:
    """Messages in order, plus the request body around them when there was one."""

    messages: tuple[Message, ...]
    _: KW_ONLY
    shape: Shape = "list"
    """`list` for a bare message list, `body` for a whole request body."""
    tools: tuple[ToolSpec, ...] = ()
    extras: Extras = EMPTY
    """Other request-body fields (model, temperature, ...) and adapter bookkeeping."""


# --- artifact text -------------------------------------------------------------------------

REF_PATTERN: Final = r"r[0-9a-f]{10}"
MARKER_RE: Final = re.compile(r"\[cf:(" + REF_PATTERN + r")(?: [^\]\n]*)?\]")
RECALLED_RE: Final = re.compile(r"\[cf:" + REF_PATTERN + r" recalled, chars ")
"""How a recall answer that is a page starts (see `_recall_tool`); never pruned again."""
SUMMARY_HEADER: Final = "[cf:summary]"
BRIDGE_NOTE: Final = "earlier turns folded"
"""The description of a bridge marker: the only marker that stands alone as a message."""
CARD_HEADER: Final = "[cf:rules]"


ArtifactKind: TypeAlias = Literal["card", "summary"]


def artifact_kind(text: str) -> ArtifactKind | None:
    """Which artifact header `text` starts with (the shape only: no proof of origin)."""
    if text.startswith(CARD_HEADER):
        return "card"
    if text.startswith(SUMMARY_HEADER):
        return "summary"
    return None


def refs_in(text: str) -> list[str]:
    """Archive references mentioned by markers inside `text`, in order."""
    return [m.group(1) for m in MARKER_RE.finditer(text)]


# --- small queries used across layers ------------------------------------------------------


def iter_parts(parts: tuple[Part, ...]) -> Iterator[Part]:
    """Every part, descending into tool results."""
    for part in parts:
        yield part
        if isinstance(part, ToolResult):
            yield from iter_parts(part.parts)


def tool_calls(message: Message) -> list[ToolCall]:
    """The tool calls a message makes, in order."""
    return [p for p in message.parts if isinstance(p, ToolCall)]


def tool_results(message: Message) -> list[ToolResult]:
    """The tool results a message carries, in order."""
    return [p for p in message.parts if isinstance(p, ToolResult)]


def part_text(part: Part) -> str:
    """The text a part shows the model (empty for images and opaque parts)."""
    match part:
        case Text() | Marker() | Summary() | Card() | Reasoning():
            return part.text
        case ToolCall():
            return f"{part.name}({part.arguments})"
        case ToolResult():
            return "\n".join(part_text(p) for p in part.parts)
        case Image() | Opaque():
            return ""


def message_text(message: Message) -> str:
    """All text a message shows the model, parts joined by newlines."""
    return "\n".join(t for t in (part_text(p) for p in message.parts) if t)
