"""Image tokens by the providers' published formulas, with sizes read from inline data.

Rules:
1. OpenAI tile models (gpt-4o, gpt-4.1, gpt-5, o1/o3 ...): `detail: low` costs `base`;
   high/auto scale the image to fit 2048x2048, then (if larger) its shortest side to 768,
   and cost `base + tile * (512px tiles)`. Base/tile per family from OpenAI's vision guide.
   `original` (newer models) is priced as `high`: the guide we follow gives it no formula
   of its own, so a large image sent at `original` may cost more than counted.
2. OpenAI patch models (gpt-4.1-mini/nano, o4-mini, gpt-5-mini/nano): 32px patches, capped
   at 1536 by downscaling, times the model's multiplier. `detail` does not change the cost.
3. Anthropic: `ceil(width * height / 750)` after scaling down to a long edge of 1568 px
   and at most ~1,600 tokens (1,200,000 px), per Anthropic's vision guide, for the models
   it was written for (Claude 3 and Claude 4 up to 4.6). Claude Opus 4.7 reads images up
   to a long edge of 2576 px (~3.75 MP) in 28 px patches, `ceil(w/28) * ceil(h/28)`
   (up to ~4,784 tokens, three times the old cap): that rule (`ANTHROPIC_HIGH_RES`) is
   every later Claude's and any Claude name not known to be older, so a model newer than
   this table is never under-counted.
4. Width and height come from the PNG, JPEG, GIF or WebP header of a `data:` URL (pure
   Python). When they are unknown (a remote URL, an unreadable header) the cost is the
   formula's maximum, so an unseen image is never under-counted.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from dataclasses import dataclass
from typing import Final, TypeAlias

from .._messages import Detail as _Detail

__all__ = [
    "ANTHROPIC_AREA",
    "ANTHROPIC_HIGH_RES",
    "AreaRule",
    "ImageRule",
    "PatchRule",
    "TileRule",
    "image_rule_for",
    "image_size",
    "image_tokens",
]

Detail: TypeAlias = _Detail | None


@dataclass(frozen=True, slots=True)
class TileRule:
    """OpenAI 512px-tile pricing (gpt-4o class)."""

    base: int
    tile: int


@dataclass(frozen=True, slots=True)
class PatchRule:
    """OpenAI 32px-patch pricing (gpt-4.1-mini class)."""

    multiplier: float
    max_patches: int = 1536


@dataclass(frozen=True, slots=True)
class AreaRule:
    """Anthropic pixel-area pricing; with `patch`, whole patches of that side (rule 3)."""

    max_edge: int = 1568
    max_pixels: int = 1_200_000
    pixels_per_token: int = 750
    patch: int = 0


ImageRule: TypeAlias = TileRule | PatchRule | AreaRule

GPT_4O: Final = TileRule(85, 170)
ANTHROPIC_AREA: Final = AreaRule()
ANTHROPIC_HIGH_RES: Final = AreaRule(max_edge=2576, max_pixels=3_750_000, patch=28)
_OLDER_CLAUDE: Final = re.compile(
    r"claude-(?:[123](?:[-.]|$)|instant|(?:opus|sonnet|haiku)-4(?:[-.@][0-6](?!\d)|[-@]\d{8}|$))"
)
"""Claude names the 1568 px rule is for: Claude 1-3, and 4 up to 4.6 ("claude-opus-4-20250514"
is 4.0, "claude-sonnet-4-5" 4.5); any other Claude name reads high-resolution images."""

# Longest matching prefix wins. Patch multipliers are the documented ones; they are at or
# above what the API has been observed to bill, so counts err high.
_RULES: Final[dict[str, ImageRule]] = {
    "gpt-4o-mini": TileRule(2833, 5667),
    "gpt-4o": GPT_4O,
    "chatgpt-4o": GPT_4O,
    "gpt-4.5": GPT_4O,
    "gpt-4-turbo": GPT_4O,
    "gpt-4.1": GPT_4O,
    "gpt-4.1-mini": PatchRule(1.62),
    "gpt-4.1-nano": PatchRule(2.46),
    "gpt-5": TileRule(70, 140),
    "gpt-5-mini": PatchRule(1.62),
    "gpt-5-nano": PatchRule(2.46),
    "o1": TileRule(75, 150),
    "o3": TileRule(75, 150),
    "o4-mini": PatchRule(1.72),
    "computer-use-preview": TileRule(65, 129),
}
_PREFIXES: Final = sorted(_RULES, key=len, reverse=True)


def image_rule_for(model: str | None, *, anthropic_format: bool = False) -> ImageRule:
    """The pricing rule for `model`; unknown models get gpt-4o tiles (in the Anthropic
    format, the high-resolution Claude rule: rule 3)."""
    if not model:  # no name: no prefix matches it (none is empty)
        return ANTHROPIC_HIGH_RES if anthropic_format else GPT_4O
    name = model.strip().lower().rpartition("/")[2]
    if "claude" in name:  # also Bedrock's "anthropic.claude-..." and Vertex's "...@date"
        return ANTHROPIC_AREA if _OLDER_CLAUDE.search(name) else ANTHROPIC_HIGH_RES
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return _RULES[prefix]
    return ANTHROPIC_HIGH_RES if anthropic_format else GPT_4O


def image_tokens(rule: ImageRule, size: tuple[int, int] | None, detail: Detail = None) -> int:
    """Tokens one image costs under `rule`; `size` None means unknown (rule 4)."""
    match rule:
        case TileRule():
            return _tiles(rule, size, detail)
        case PatchRule():
            patches = rule.max_patches if size is None else _patches(*size, rule.max_patches)
            return math.ceil(patches * rule.multiplier)
        case AreaRule():
            return _area(rule, size)


def _tiles(rule: TileRule, size: tuple[int, int] | None, detail: Detail) -> int:
    if detail == "low":
        return rule.base
    if size is None:
        return rule.base + 8 * rule.tile  # 768x2048, the most tiles any image can need
    width, height = float(size[0]), float(size[1])
    if max(width, height) > 2048:
        scale = 2048 / max(width, height)
        width, height = width * scale, height * scale
    if min(width, height) > 768:
        scale = 768 / min(width, height)
        width, height = width * scale, height * scale
    return rule.base + rule.tile * math.ceil(width / 512) * math.ceil(height / 512)


def _patches(width: int, height: int, cap: int) -> int:
    patches = math.ceil(width / 32) * math.ceil(height / 32)
    if patches <= cap:
        return patches
    shrink = math.sqrt(cap * 32 * 32 / (width * height))
    w, h = width * shrink, height * shrink
    fit = math.floor(w / 32) / (w / 32)  # make the width a whole number of patches
    w, h = w * fit, h * fit
    return min(cap, math.ceil(w / 32) * math.ceil(h / 32))


def _area(rule: AreaRule, size: tuple[int, int] | None) -> int:
    if size is None:
        return _most(rule)
    width, height = float(size[0]), float(size[1])
    scale = min(1.0, rule.max_edge / max(width, height, 1.0))
    scale = min(scale, math.sqrt(rule.max_pixels / max(width * height, 1.0)))
    if scale < 1.0:  # resized images have whole-pixel sides
        width, height = max(1, math.floor(width * scale)), max(1, math.floor(height * scale))
    if rule.patch:
        return math.ceil(width / rule.patch) * math.ceil(height / rule.patch)
    return math.ceil(width * height / rule.pixels_per_token)


def _most(rule: AreaRule) -> int:
    """The most any image can cost (rule 4): with patches, the area's patches plus a
    padded row and column, whose sides add up to at most the long edge plus the pixel
    cap over it."""
    if not rule.patch:
        return math.ceil(rule.max_pixels / rule.pixels_per_token)
    sides = rule.max_edge + rule.max_pixels / rule.max_edge
    return math.ceil(rule.max_pixels / rule.patch**2 + sides / rule.patch + 1)


# --- reading sizes from image headers -----------------------------------------------------

_HEADER_CHARS: Final = 1 << 16
"""Base64 characters decoded to find a size; JPEG SOF markers can follow a large EXIF block."""


def image_size(source: str) -> tuple[int, int] | None:
    """(width, height) of an inline `data:` image, or None when unknown."""
    if not source.startswith("data:"):
        return None
    _, comma, data = source.partition(",")
    if not comma or ";base64" not in source[: len(source) - len(data)]:
        return None
    head = data[:_HEADER_CHARS]
    try:
        raw = base64.b64decode(head[: len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return None
    return _size_from_bytes(raw)


def _size_from_bytes(raw: bytes) -> tuple[int, int] | None:
    if raw.startswith(b"\x89PNG\r\n\x1a\n") and len(raw) >= 24:
        return struct.unpack(">II", raw[16:24])
    if raw[:6] in (b"GIF87a", b"GIF89a") and len(raw) >= 10:
        return struct.unpack("<HH", raw[6:10])
    if raw.startswith(b"\xff\xd8"):
        return _jpeg_size(raw)
    if raw.startswith(b"RIFF") and raw[8:12] == b"WEBP":
        return _webp_size(raw)
    return None


_SOF_MARKERS: Final = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(raw: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 9 <= len(raw):
        if raw[pos] != 0xFF:
            return None
        marker = raw[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _SOF_MARKERS:
            height, width = struct.unpack(">HH", raw[pos + 5 : pos + 9])
            return width, height
        if marker in (0x01, *range(0xD0, 0xD9)):  # markers without a length
            pos += 2
            continue
        (length,) = struct.unpack(">H", raw[pos + 2 : pos + 4])
        pos += 2 + length
    return None


def _webp_size(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8X" and len(raw) >= 30:
        width = int.from_bytes(raw[24:27], "little") + 1
        height = int.from_bytes(raw[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L" and len(raw) >= 25:
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(raw) >= 30:
        width, height = struct.unpack("<HH", raw[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None
