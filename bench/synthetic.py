"""Synthetic agent histories shaped like the corpus, in OpenAI chat wire format.

Rules:
1. A history is a system prompt followed by exchanges: a user request, one to four
   assistant tool calls each answered by its tool result, and a closing assistant reply.
2. Tool results are 200-20,000 characters, log-normal with the corpus's median (~600) and
   p90 (~4,700); their text mixes numbered source lines, directory listings, JSON records
   and prose, and each starts with a line of its own, so no two results are equal (a
   counter's per-text cache cannot make a long history cheap by repetition).
3. `history(n, seed)` has exactly `n` messages and never ends on an unanswered tool call;
   the same arguments give the same history.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator

Wire = dict[str, object]

RESULT_CHARS = (200, 20_000)
MEDIAN_CHARS = 600.0
SIGMA = 1.6
"""log-normal spread: exp(1.2816 * 1.6) * 600 ~ 4,700 characters at p90."""

_WORDS = (
    "flight",
    "reservation",
    "cabin",
    "economy",
    "baggage",
    "refund",
    "policy",
    "passenger",
    "user",
    "agent",
    "model",
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
    "method",
    "member",
    "insurance",
    "segment",
    "origin",
    "destination",
    "date",
    "price",
    "test",
    "module",
    "import",
    "return",
    "self",
    "field",
    "record",
    "header",
    "stream",
    "session",
    "manager",
    "update",
)
_TOOLS = ("bash", "str_replace_editor", "get_reservation_details", "search_direct_flight")


def _ident(rng: random.Random) -> str:
    return "_".join(rng.choices(_WORDS, k=rng.randint(1, 3)))


def _line(rng: random.Random) -> str:
    """One line of tool output: source, listing, JSON record or prose."""
    kind = rng.randrange(4)
    if kind == 0:
        indent = " " * (4 * rng.randint(0, 3))
        body = rng.choice(
            (
                f"def {_ident(rng)}(self, {_ident(rng)}):",
                f"{_ident(rng)} = self.{_ident(rng)}[{_ident(rng)}]",
                f"return {_ident(rng)}({_ident(rng)}, {rng.randint(0, 999)})",
                f"if {_ident(rng)} is None:",
            )
        )
        return f"{rng.randint(1, 2000):6d}\t{indent}{body}"
    if kind == 1:
        return (
            f"-rw-r--r-- 1 root root {rng.randint(0, 99999):6d} Jan {rng.randint(1, 28):2d} "
            f"/testbed/src/{_ident(rng)}/{_ident(rng)}.py"
        )
    if kind == 2:
        return json.dumps(
            {
                "reservation_id": f"{rng.getrandbits(24):06X}",
                "flight_number": f"HAT{rng.randint(1, 300):03d}",
                _ident(rng): rng.randint(0, 5000),
                "status": rng.choice(("available", "cancelled", "landed")),
            }
        )
    return " ".join(rng.choices(_WORDS, k=rng.randint(6, 16))).capitalize() + "."


def _pool(rng: random.Random, size: int = 3000) -> list[str]:
    return [_line(rng) for _ in range(size)]


def result_chars(rng: random.Random) -> int:
    """A tool result's length (rule 2)."""
    drawn = MEDIAN_CHARS * math.exp(rng.gauss(0.0, SIGMA))
    return int(min(RESULT_CHARS[1], max(RESULT_CHARS[0], drawn)))


def _text(rng: random.Random, pool: list[str], header: str, chars: int) -> str:
    lines = [header]
    size = len(header)
    while size < chars:
        line = rng.choice(pool)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]


def _exchange(rng: random.Random, pool: list[str], number: int) -> Iterator[Wire]:
    ref = f"{rng.getrandbits(24):06X}"
    yield {
        "role": "user",
        "content": f"Request {number}: please check reservation {ref} and "
        + " ".join(rng.choices(_WORDS, k=rng.randint(10, 50))),
    }
    for step in range(rng.randint(1, 4)):
        call_id = f"call_{number}_{step}_{rng.getrandbits(32):08x}"
        name = rng.choice(_TOOLS)
        arguments = json.dumps({"reservation_id": ref, "command": _line(rng)[:200]})
        thought = (
            " ".join(rng.choices(_WORDS, k=rng.randint(8, 40))) if rng.random() < 0.5 else None
        )
        yield {
            "role": "assistant",
            "content": thought,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            ],
        }
        header = f"OBSERVATION {number}.{step} ({name} {ref}):"
        yield {
            "role": "tool",
            "tool_call_id": call_id,
            "content": _text(rng, pool, header, result_chars(rng)),
        }
    reply = " ".join(rng.choices(_WORDS, k=rng.randint(20, 90)))
    yield {"role": "assistant", "content": f"Done with {ref}: {reply}."}


def system_prompt(rng: random.Random) -> Wire:
    """A policy-like system prompt of about 6,000 characters (like tau-bench's)."""
    return {"role": "system", "content": _text(rng, _pool(rng, 200), "# Agent policy", 6000)}


def exchanges(seed: int = 0) -> Iterator[Wire]:
    """An endless stream of exchanges (rule 1), without the system prompt."""
    rng = random.Random(seed)
    pool = _pool(rng)
    number = 0
    while True:
        number += 1
        yield from _exchange(rng, pool, number)


def history(n: int, seed: int = 0) -> list[Wire]:
    """Exactly `n` messages: the system prompt and exchanges (rule 3)."""
    rng = random.Random(seed + 1_000_003)
    messages: list[Wire] = [system_prompt(rng)]
    stream = exchanges(seed)
    while len(messages) < n:
        messages.append(next(stream))
    messages = messages[:n]
    last = messages[-1]
    if last.get("tool_calls"):
        messages[-1] = {"role": "assistant", "content": str(last.get("content") or "Done.")}
    return messages


def turns(seed: int = 0) -> Iterator[list[Wire]]:
    """Agent-loop turns: what arrives between two requests (a tool call and its result, or
    the closing reply and the next user request)."""
    pending: list[Wire] = []
    for message in exchanges(seed):
        pending.append(message)
        if message["role"] in ("tool", "user"):
            yield pending
            pending = []
