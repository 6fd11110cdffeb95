"""Image tokens: the providers' worked examples, header parsing, conservative defaults."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._tokens._images import (
    ANTHROPIC_AREA,
    ANTHROPIC_HIGH_RES,
    AreaRule,
    PatchRule,
    TileRule,
    image_rule_for,
    image_size,
    image_tokens,
)

GPT_4O = TileRule(85, 170)


# --- worked examples from the OpenAI and Anthropic vision guides ---------------------------


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        ((1024, 1024), "high", 765),  # scaled to 768x768: 4 tiles
        ((2048, 4096), "high", 1105),  # 1024x2048, then 768x1536: 6 tiles
        ((4096, 8192), "low", 85),  # low detail is fixed
        ((1024, 1024), None, 765),  # no detail means auto, priced as high
        ((500, 500), "auto", 255),  # one tile, never scaled up
        ((513, 500), "high", 425),
        ((513, 513), "high", 765),
        ((2048, 4096), "original", 1105),  # original is priced as high
    ],
)
def test_openai_tile_examples(size: tuple[int, int], detail: str | None, tokens: int) -> None:
    assert image_tokens(GPT_4O, size, detail) == tokens  # type: ignore[arg-type]


def test_openai_patch_examples() -> None:
    # 1024x1024: 32x32 = 1024 patches, under the 1536 cap.
    assert image_tokens(PatchRule(1.0), (1024, 1024)) == 1024
    # 1800x2400: 4275 patches, scaled by sqrt(1536*32^2/(1800*2400)), width snapped to
    # 33 patches: 33 * 44 = 1452.
    assert image_tokens(PatchRule(1.0), (1800, 2400)) == 1452
    assert image_tokens(PatchRule(1.62), (1024, 1024)) == 1659  # gpt-4.1-mini multiplier
    assert image_tokens(PatchRule(1.62), (1024, 1024), "low") == 1659  # detail has no effect


@pytest.mark.parametrize(
    ("size", "tokens"),
    [((200, 200), 54), ((1000, 1000), 1334), ((1092, 1092), 1590)],
)
def test_anthropic_examples(size: tuple[int, int], tokens: int) -> None:
    assert image_tokens(ANTHROPIC_AREA, size) == tokens


def test_anthropic_downscales_to_the_documented_maximum() -> None:
    assert image_tokens(ANTHROPIC_AREA, (3136, 1568)) == image_tokens(ANTHROPIC_AREA, (1568, 784))
    assert image_tokens(ANTHROPIC_AREA, (8000, 8000)) <= 1600


def test_unknown_size_costs_the_formula_maximum() -> None:
    assert image_tokens(GPT_4O, None, "high") == 85 + 8 * 170
    assert image_tokens(GPT_4O, None, "low") == 85
    assert image_tokens(PatchRule(1.72), None) == 2642
    assert image_tokens(ANTHROPIC_AREA, None) == 1600


@given(
    st.integers(1, 20_000),
    st.integers(1, 20_000),
    st.sampled_from(["low", "high", "original", None]),
)
def test_unknown_size_is_never_cheaper_than_a_known_one(w: int, h: int, detail: str | None) -> None:
    for rule in (GPT_4O, TileRule(70, 140), PatchRule(2.46), AreaRule()):
        known = image_tokens(rule, (w, h), detail)  # type: ignore[arg-type]
        assert 0 < known <= image_tokens(rule, None, detail)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        ("gpt-4o-2024-08-06", GPT_4O),
        ("gpt-4o-mini", TileRule(2833, 5667)),
        ("gpt-4.1", GPT_4O),
        ("gpt-4.1-mini-2025-04-14", PatchRule(1.62)),
        ("gpt-5", TileRule(70, 140)),
        ("gpt-5-nano", PatchRule(2.46)),
        ("o3", TileRule(75, 150)),
        ("o4-mini", PatchRule(1.72)),
        ("claude-sonnet-4-5", ANTHROPIC_AREA),
        ("qwen2.5-vl-7b", GPT_4O),
        (None, GPT_4O),
    ],
)
def test_rule_for_model(model: str | None, rule: object) -> None:
    assert image_rule_for(model) == rule


def test_unknown_model_in_anthropic_format_uses_the_high_resolution_rule() -> None:
    """An unknown model behind the Anthropic format may read images as Opus 4.7 does:
    counted as it would, an image is never under-counted."""
    assert image_rule_for("some-proxy-model", anthropic_format=True) == ANTHROPIC_HIGH_RES
    assert image_rule_for(None, anthropic_format=True) == ANTHROPIC_HIGH_RES


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        ("claude-3-5-sonnet-20241022", ANTHROPIC_AREA),
        ("claude-3-7-sonnet-latest", ANTHROPIC_AREA),
        ("claude-opus-4-20250514", ANTHROPIC_AREA),
        ("claude-opus-4-1", ANTHROPIC_AREA),
        ("claude-sonnet-4-5-20250929", ANTHROPIC_AREA),
        ("claude-haiku-4-5", ANTHROPIC_AREA),
        ("claude-opus-4-6", ANTHROPIC_AREA),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", ANTHROPIC_AREA),
        ("claude-opus-4-1@20250805", ANTHROPIC_AREA),
        ("claude-opus-4-7", ANTHROPIC_HIGH_RES),
        ("claude-opus-4-8", ANTHROPIC_HIGH_RES),
        ("anthropic/claude-sonnet-5", ANTHROPIC_HIGH_RES),
        ("claude-sonnet-4-10", ANTHROPIC_HIGH_RES),
    ],
)
def test_claude_models_before_4_7_read_images_at_1568_px_and_later_ones_at_2576(
    model: str, rule: object
) -> None:
    assert image_rule_for(model) == rule
    assert image_rule_for(model, anthropic_format=True) == rule


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        ((2576, 1456), 92 * 52),  # the native maximum: 4,784 patches
        ((1000, 1000), 36 * 36),  # padded to whole 28 px patches
        ((5152, 2912), 92 * 52),  # scaled down to a long edge of 2576 first
        ((28, 28), 1),
    ],
)
def test_high_resolution_claude_images_cost_their_28_px_patches(
    size: tuple[int, int], tokens: int
) -> None:
    assert image_tokens(ANTHROPIC_HIGH_RES, size) == tokens


@given(st.integers(1, 9_000), st.integers(1, 9_000))
def test_an_unseen_high_resolution_image_is_never_under_counted(width: int, height: int) -> None:
    """The unknown-size figure bounds every size, padding included; three times the old cap."""
    most = image_tokens(ANTHROPIC_HIGH_RES, None)
    assert image_tokens(ANTHROPIC_HIGH_RES, (width, height)) <= most
    assert most >= 3 * image_tokens(ANTHROPIC_AREA, None)


# --- reading sizes from headers --------------------------------------------------------------


def data_url(raw: bytes, media: str = "image/png") -> str:
    return f"data:{media};base64,{base64.b64encode(raw).decode()}"


def png(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = (
        struct.pack(">I", len(ihdr))
        + b"IHDR"
        + ihdr
        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    )
    return b"\x89PNG\r\n\x1a\n" + chunk + b"\x00" * 16


def jpeg(width: int, height: int, exif: int = 0) -> bytes:
    app1 = b"\xff\xe1" + struct.pack(">H", exif + 2) + b"\x00" * exif
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x00" * 9
    return b"\xff\xd8" + app1 + b"\xff\xdb\x00\x04\x00\x00" + sof0 + b"\xff\xd9"


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00" * 8


def webp_vp8x(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00" * 4
    body += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


def webp_vp8l(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    body = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + bits.to_bytes(4, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


def webp_vp8(width: int, height: int) -> bytes:
    frame = b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    body = b"VP8 " + struct.pack("<I", len(frame)) + frame
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


@pytest.mark.parametrize("build", [png, gif, webp_vp8x, webp_vp8l, webp_vp8])
@pytest.mark.parametrize("size", [(1, 1), (800, 600), (4000, 3000)])
def test_sizes_from_headers(build: object, size: tuple[int, int]) -> None:
    assert callable(build)
    assert image_size(data_url(build(*size))) == size


@pytest.mark.parametrize("exif", [0, 100, 20_000])
def test_jpeg_size_after_other_segments(exif: int) -> None:
    assert image_size(data_url(jpeg(1920, 1080, exif), "image/jpeg")) == (1920, 1080)


@pytest.mark.parametrize(
    "source",
    [
        "https://example.com/cat.png",
        "data:image/png;base64,not*base64",
        "data:image/png,rawbytes",
        data_url(b"this is not an image"),
        data_url(png(10, 10)[:12]),
        data_url(b"\xff\xd8\xff\xe1\x00"),
    ],
)
def test_unknown_sizes(source: str) -> None:
    assert image_size(source) is None
