"""Long tool-heavy agent histories in the three wire formats, for end-to-end loop tests.

A history is a stream of steps: a user request (some with an image, some stating a rule),
agent steps of one to four parallel tool calls with their results (200 to 12,000
characters, now and then 40,000 to 120,000: more than a tight budget whole), thinking
or reasoning before the calls, and a closing reply. `turns` renders them in a format as
what arrives between two requests, with whether a request follows.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib
from collections.abc import Iterator

Wire = dict[str, object]


def _png(width: int, height: int) -> str:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x80" * (width * 3) for _ in range(height))
    data = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + data).decode()


PNG = _png(400, 300)
_WORDS = [
    "flight",
    "reservation",
    "cabin",
    "baggage",
    "refund",
    "policy",
    "passenger",
    "agent",
    "config",
    "parser",
    "token",
    "budget",
    "cache",
    "request",
    "handler",
    "error",
    "value",
    "index",
    "offset",
    "buffer",
    "result",
    "status",
    "payment",
]
_RULES = (
    "Never push to main without review.",
    "Use the Zurich region for all deployments.",
    "My account id is ACC-99231.",
)


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choices(_WORDS, k=rng.randint(low, high)))


def _output(rng: random.Random, huge: bool) -> str:
    size = rng.choice((40_000, 120_000) if huge else (200, 800, 3_000, 12_000))
    lines: list[str] = []
    total = 0
    while total < size:
        line = f"{len(lines) + 1:5d}  {_words(rng, 3, 14)} = {rng.getrandbits(40):x}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def system_prompt(seed: int, chars: int = 2_000) -> str:
    rng = random.Random(seed)
    return "# Agent policy\n" + "\n".join(_words(rng, 5, 15) for _ in range(chars // 60))


def _steps(seed: int) -> Iterator[tuple[object, ...]]:
    rng = random.Random(seed)
    for k in range(1, 10**6):
        rule = rng.choice(_RULES) if rng.random() < 0.3 else ""
        yield ("user", f"Request {k}: {rule} please check {_words(rng, 5, 40)}", rng.random() < 0.2)
        for s in range(rng.randint(1, 5)):
            ids = [f"call_{k}_{s}_{j}_{rng.getrandbits(24):06x}" for j in range(rng.randint(1, 4))]
            calls = [
                (i, rng.choice(("bash", "read_file")), {"cmd": _words(rng, 2, 8)}) for i in ids
            ]
            outs = [(i, _output(rng, rng.randrange(7) == 0), rng.random() < 0.1) for i in ids]
            thought = _words(rng, 10, 80) if rng.random() < 0.6 else None
            said = _words(rng, 3, 20) if rng.random() < 0.4 else None
            yield ("calls", thought, said, calls, outs)
        yield ("reply", _words(rng, 5, 30) if rng.random() < 0.3 else None, f"Done {k}.")


def turns(fmt: str, seed: int, n: int) -> Iterator[tuple[list[Wire], bool]]:
    """`n` steps rendered in `fmt`: the messages and whether a request follows them."""
    for index, step in zip(range(n), _steps(seed), strict=False):
        if step[0] == "user":
            yield [_user(fmt, str(step[1]), bool(step[2]))], True
        elif step[0] == "calls":
            thought, said, calls, outs = step[1:]
            yield _calls(fmt, index, thought=thought, said=said, calls=calls, outs=outs), True  # type: ignore[arg-type]
        else:
            yield _reply(fmt, index, step[1], str(step[2])), False  # type: ignore[arg-type]


def _image(fmt: str) -> Wire:
    if fmt == "openai-chat":
        return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG}}
    if fmt == "openai-responses":
        return {
            "type": "input_image",
            "image_url": "data:image/png;base64," + PNG,
            "detail": "auto",
        }
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}


def _user(fmt: str, text: str, image: bool) -> Wire:
    kind = "input_text" if fmt == "openai-responses" else "text"
    return {"role": "user", "content": [{"type": kind, "text": text}] + [_image(fmt)] * image}


def _calls(
    fmt: str,
    index: int,
    *,
    thought: str | None,
    said: str | None,
    calls: list[tuple[str, str, dict[str, str]]],
    outs: list[tuple[str, str, bool]],
) -> list[Wire]:
    if fmt == "openai-chat":
        wire = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in calls
        ]
        results: list[Wire] = [
            {"role": "tool", "tool_call_id": i, "content": o} for i, o, _ in outs
        ]
        return [{"role": "assistant", "content": said, "tool_calls": wire}, *results]
    if fmt == "openai-responses":
        items: list[Wire] = []
        if thought:
            summary = [{"type": "summary_text", "text": thought}]
            items.append(
                {
                    "type": "reasoning",
                    "id": f"rs_{index}",
                    "summary": summary,
                    "encrypted_content": "gAAAA" + "x" * 200,
                }
            )
        if said:
            items.append(_said(said))
        items += [
            {"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)}
            for i, n, a in calls
        ]
        return items + [
            {"type": "function_call_output", "call_id": i, "output": o} for i, o, _ in outs
        ]
    blocks: list[Wire] = []
    if thought:
        blocks.append({"type": "thinking", "thinking": thought, "signature": f"sig{index}=="})
    if said:
        blocks.append({"type": "text", "text": said})
    blocks += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    answers = [
        {
            "type": "tool_result",
            "tool_use_id": i,
            "content": [{"type": "text", "text": o}] + [_image(fmt)] * image,
        }
        for i, o, image in outs
    ]
    return [{"role": "assistant", "content": blocks}, {"role": "user", "content": answers}]


def _said(text: str) -> Wire:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def _reply(fmt: str, index: int, thought: str | None, text: str) -> list[Wire]:
    if fmt == "openai-chat":
        return [{"role": "assistant", "content": text}]
    if fmt == "openai-responses":
        return [_said(text)]
    blocks: list[Wire] = []
    if thought:
        blocks.append({"type": "thinking", "thinking": thought, "signature": f"sigr{index}=="})
    return [{"role": "assistant", "content": [*blocks, {"type": "text", "text": text}]}]
