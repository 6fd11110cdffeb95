"""Recall calls taken out of a stream on its way to the client.

A streamed answer that went live (text first, or another tool) may still call the recall
tool later; an answer held back may mix recall calls with other tools. Either way the
client must not see a tool it never declared, so every event the client gets passes
through a `Hider` (one per upstream answer).

Rules:
1. Events of a recall call are dropped: Chat's `tool_calls` entries at the call's index,
   Anthropic's content block events at its index, Responses' events at its output index.
2. What stays is renumbered densely (tool call index, block index, output index), as the
   SDKs accumulate by index; a finish that named tool use names a plain stop when no
   other tool call was kept; Responses' final response lists its output without them.
3. An event that changes is written again as `event:`/`data:` lines; every other event
   passes byte for byte.
4. An inactive Hider passes every event: the client declared the recall tool itself
   (`_recall` rule 4).
"""

from __future__ import annotations

import json
from typing import Any

import contextfold as cf

from ._sse import data_of

_RECALL = cf.RECALL_TOOL_NAME


class Hider:
    """Rules 1-3 for one upstream answer."""

    def __init__(self, format: cf.Format, *, active: bool = True) -> None:
        self.format = format
        self.active = active
        self.hidden: set[int] = set()
        self.kept: dict[int, int] = {}
        """Index in the upstream answer -> index the client sees."""
        self.tools = 0
        """Tool calls kept."""

    def __call__(self, event: bytes) -> bytes | None:
        if not self.active:
            return event
        data = data_of(event)
        if not isinstance(data, dict):
            return event
        if self.format == "openai-chat":
            changed = self._chat(data)
        elif self.format == "anthropic":
            changed = self._anthropic(data)
        else:
            changed = self._responses(data)
        if changed is None:
            return None
        if changed is False:
            return event
        kind = data.get("type") if self.format != "openai-chat" else None
        head = f"event: {kind}\n" if isinstance(kind, str) and event.startswith(b"event:") else ""
        return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()

    def _index(self, index: int, tool: bool, name: object) -> int | None:
        """The client's index for `index`, None when it is a recall call's (rules 1-2)."""
        if index in self.hidden:
            return None
        if index not in self.kept:
            if name == _RECALL:
                self.hidden.add(index)
                return None
            self.kept[index] = len(self.kept)
            self.tools += tool
        return self.kept[index]

    def _chat(self, data: dict[str, Any]) -> bool | None:
        changed = False
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            calls = delta.get("tool_calls")
            if calls:
                kept = []
                for call in calls:
                    name = (call.get("function") or {}).get("name")
                    index = self._index(int(call.get("index", 0)), True, name)
                    if index is not None:
                        kept.append({**call, "index": index})
                changed = changed or kept != calls
                if kept:
                    delta["tool_calls"] = kept
                else:
                    del delta["tool_calls"]
            if choice.get("finish_reason") == "tool_calls" and self.hidden and not self.tools:
                choice["finish_reason"] = "stop"
                changed = True
        return changed

    def _anthropic(self, data: dict[str, Any]) -> bool | None:
        kind = data.get("type")
        if kind == "message_delta":
            delta = data.get("delta") or {}
            if delta.get("stop_reason") == "tool_use" and self.hidden and not self.tools:
                delta["stop_reason"] = "end_turn"
                return True
            return False
        if "index" not in data or not str(kind).startswith("content_block_"):
            return False
        return self._move(data, "index", data.get("content_block") or {}, "tool_use")

    def _responses(self, data: dict[str, Any]) -> bool | None:
        response = data.get("response")
        if isinstance(response, dict) and isinstance(response.get("output"), list):
            output = response["output"]
            kept = [i for i in output if not (isinstance(i, dict) and i.get("name") == _RECALL)]
            response["output"] = kept
            return len(kept) != len(output)
        if "output_index" not in data:
            return False
        return self._move(data, "output_index", data.get("item") or {}, "function_call")

    def _move(
        self, data: dict[str, Any], key: str, part: dict[str, Any], tool_type: str
    ) -> bool | None:
        """Renumber the event's `key` past hidden calls: None drops the event (it belongs
        to a hidden call), False leaves it as it was, True says it changed."""
        tool = part.get("type") == tool_type
        index = self._index(int(data[key]), tool, part.get("name") if tool else None)
        if index is None:
            return None
        if index == data[key]:
            return False
        data[key] = index
        return True
