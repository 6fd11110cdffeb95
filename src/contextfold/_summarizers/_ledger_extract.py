"""Read a span of neutral messages into ledger entries: events oldest first, values newest first.

Rules:
1. Goals and decisions come only from user and assistant text. Tool output is data: its
   values are quoted (section `seen`), its sentences never become goals or plans.
2. A value's section is where it was best mentioned (see `_ledger_values`): the user's own
   words, then the agent's text or tool-call arguments, then tool output only (a few per
   result). Values inside documents the user pasted count as the agent's.
3. A failing tool result opens an error; the next tool call is recorded as what addressed
   it, and a later successful call of the same tool marks it fixed.
4. Reasoning is never quoted; markers (in tool results too: an earlier compaction's cut
   is no tool data) and the constraint card are skipped; a summary inside the span is
   read back as an earlier ledger (its header line dropped).
5. Events that change older entries (a completion that closes the latest open goal, a
   success that fixes an open error) are returned separately so the merge can apply them
   to entries from `previous` too.
6. Bounded work: every message read is read oldest first for events, goals, decisions,
   files and the user's values. Values from agent text, tool calls and tool output are
   read newest first, each kind only until the pool holds `pool` values of its source:
   what a bounded ledger cannot show is never extracted.
7. What is read at all is bounded too (`_ledger_reading`): the newest parts of each
   source (the user's text, the agent's text and calls, tool output) up to an allowance
   of characters that scales with the bound, the span's first user text; a note names
   how many messages were not read. A call not read still names its result's tool.
8. A user's sentence is a piece of their text with whitespace (or nothing) on each side, so
   a pattern that finds nothing in the text finds nothing in any of its sentences: DECISION
   and STATED are searched in each sentence only when they find something in the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from .._messages import (
    MARKER_RE,
    SUMMARY_HEADER,
    Card,
    Image,
    Marker,
    Message,
    Opaque,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    part_text,
)
from .._statements._facts import (
    Fact,
    clip,
    defined_names,
    error_line,
    outside_quotes,
    prose_facts,
    sentences,
)
from .._statements._json_leaves import scalar_text
from ._ledger_goals import CLIP, goals, next_steps
from ._ledger_read import PATH_KEYS, call_arguments, data_facts, tool_facts
from ._ledger_reading import Reading, Window, source, unread_entry, window
from ._ledger_sentences import DECISION, DECISION_LOW, DONE, GREETING, STATED, says_done
from ._ledger_text import FIX_ARROW, LAST_ACTION, Entry, Section, Status, parse
from ._ledger_values import AGENT, TOOL, USER, Pool

_FINISH_TOOLS: Final = frozenset({"submit", "finish", "done", "complete", "task_complete"})
_EDITOR_VERBS: Final[dict[str, str]] = {
    "view": "viewed",
    "create": "created",
    "str_replace": "edited",
    "insert": "inserted",
    "undo_edit": "undone",
}
_QUIET_TOOLS: Final = frozenset({"think"})
"""Tools that act on nothing: never what addressed an error."""
_NEXT_CLIP: Final = 100
_DECISIONS_PER_MESSAGE: Final = 2
_STATE_TRIES: Final = 8
"""How many of the newest assistant texts may be read for what happens next."""
_DEFINED_PER_FILE: Final = 3
"""Definitions a call's code is read for, per file it names."""
_SLOT: Final = 1 << 20
"""Entry seqs are `message index * _SLOT + k`: message order first, then order within."""


@dataclass(slots=True)
class Extraction:
    """What a span yields: entries, plus events that may change older entries (kept for
    a re-sent span: nothing of the reading's working state)."""

    entries: list[Entry] = field(default_factory=list)
    earlier: list[Entry] = field(default_factory=list)
    """Entries read back from summaries found inside the span."""
    completions: list[int] = field(default_factory=list)
    """Seq of each statement that the latest open request was done."""
    successes: list[tuple[str, int]] = field(default_factory=list)
    """(tool name, seq) of each successful tool result."""
    first_action: tuple[str, str] | None = None
    """(action, ref) of the span's first tool call: what addressed an earlier open error."""


@dataclass(slots=True)
class _Reader(Extraction):
    """An extraction being read, with the state the reading needs."""

    values: Pool = field(default_factory=Pool)
    calls: dict[str, str] = field(default_factory=dict)
    """Tool name by call id (the latest call wins when a provider re-uses an id)."""
    open_errors: list[int] = field(default_factory=list)
    """Indexes into `entries` of errors still waiting for the next action."""
    last_action: tuple[str, str] | None = None
    """(action, ref) of the latest tool call: the state entry is made once, at the end."""
    agent_texts: list[tuple[str, str, int]] = field(default_factory=list)
    """(text, ref, index) of each assistant text: the newest says what happens next."""
    seq: int = 0

    def at(self, index: int) -> None:
        """Start numbering the entries of message `index`."""
        self.seq = (index + 1) * _SLOT

    def tick(self) -> int:
        """The next sequence number."""
        self.seq += 1
        return self.seq


def extract(
    messages: tuple[Message, ...], refs: tuple[str, ...], pool: int, limit: Reading
) -> Extraction:
    """Entries for `messages` (oldest first) as far as `limit` reads them (rule 7);
    `refs[i]` is message i's archive ref or ''."""
    out = _Reader()
    seen = window(messages, limit)
    for index in seen.indexes(len(messages)):
        out.at(index)
        message = messages[index]
        ref = refs[index] if index < len(refs) else ""
        for part in message.parts:
            if seen.reads(index, source(message, part)):
                _part(out, message, part, ref, index)
            elif isinstance(part, ToolCall):  # its result may be read: it names the tool
                out.calls[part.id] = part.name
    _values(out, messages, refs, pool, seen)
    _finish(out, messages)
    note = unread_entry(seen.unread)
    if note is not None:
        out.entries.append(replace(note, seq=seen.start * _SLOT))
    return Extraction(out.entries, out.earlier, out.completions, out.successes, out.first_action)


def _part(out: _Reader, message: Message, part: object, ref: str, index: int) -> None:
    match part:
        case Text():
            if message.role == "user":
                _user_text(out, part.text, ref)
            elif message.role == "assistant":
                _assistant_text(out, part.text, ref, index)
            elif message.role == "tool":
                _tool_output(out, "", _tool_text(part), False, ref)
        case ToolCall():
            _tool_call(out, part, ref)
        case ToolResult():
            name = out.calls.get(part.call_id, "")
            _tool_output(out, name, _tool_text(part), part.is_error, ref)
        case Summary():
            out.earlier.extend(parse(_summary_body(part.text)))
        case Reasoning() | Marker() | Card() | Image() | Opaque():
            pass


def _tool_text(part: Text | ToolResult) -> str:
    """What the tool wrote in a result (rule 4): its text without the markers an earlier
    compaction put there (a masked result, a pruned result's cut), whose references and
    char counts are no tool data."""
    if isinstance(part, ToolResult):
        text = "\n".join(part_text(p) for p in part.parts if not isinstance(p, Marker))
    else:
        text = part.text
    return MARKER_RE.sub(" ", text) if "[cf:" in text else text


def _summary_body(text: str) -> str:
    """A summary's text without its header line (the engine's, with whatever it adds)."""
    return text.split("\n", 1)[1] if "\n" in text else text.removeprefix(SUMMARY_HEADER)


def _add(
    out: _Reader, section: Section, text: str, ref: str, *, group: str = "", status: Status = ""
) -> None:
    refs = (ref,) if ref else ()
    out.entries.append(Entry(section, text, group=group, refs=refs, seq=out.tick(), status=status))


# --- user and assistant text ----------------------------------------------------------------


def _user_text(out: _Reader, text: str, ref: str) -> None:
    own_text = outside_quotes(text)
    own = [GREETING.sub("", s) for s in sentences(own_text) if "###" not in s]
    decides = DECISION.search(own_text) is not None  # rule 8
    for goal in goals(text, own, decides, STATED.search(own_text) is not None):
        _add(out, "goals", goal, ref, status="open")
    if decides:
        _decisions(out, own, ref)
    out.seq = out.values.note(prose_facts(own_text), USER, out.seq, ref)
    if own_text != text:
        out.seq = out.values.note(prose_facts(text), AGENT, out.seq, ref)


def _assistant_text(out: _Reader, text: str, ref: str, index: int) -> None:
    out.agent_texts.append((text, ref, index))
    low = text.lower()
    decided = DECISION_LOW.search(low) is not None
    done = says_done(low)
    if not (decided or done):
        return
    said = sentences(outside_quotes(text))
    if decided:
        _decisions(out, [s for s in said if not s.endswith("?")], ref)
    if done and any(DONE.search(s) for s in said):
        out.completions.append(out.tick())


def _decisions(out: _Reader, said: list[str], ref: str) -> None:
    found = [clip(s, CLIP) for s in said if DECISION.search(s) and not s.startswith("#")]
    for text in found[:_DECISIONS_PER_MESSAGE]:
        _add(out, "decisions", text, ref)


# --- tool calls and results -----------------------------------------------------------------


def _tool_call(out: _Reader, call: ToolCall, ref: str) -> None:
    args = call_arguments(call)
    action = _action(call.name, args, call.arguments)
    out.calls[call.id] = call.name
    if call.name not in _QUIET_TOOLS:
        _addressed(out, clip(action, _NEXT_CLIP), ref)
    out.last_action = (action, ref)
    if call.name in _FINISH_TOOLS:
        out.completions.append(out.tick())
    _files(out, call.name, args, ref)


def _addressed(out: _Reader, action: str, ref: str) -> None:
    """`action` is what the span did first, and what addressed each open error."""
    if out.first_action is None:
        out.first_action = (action, ref)
    for index in out.open_errors:
        error = out.entries[index]
        out.entries[index] = Entry(
            "errors",
            f"{error.text}{FIX_ARROW}{action}",
            status="open",
            refs=(*error.refs, ref),
            seq=error.seq,
        )
    out.open_errors.clear()


def _action(name: str, args: dict[str, object], raw: str) -> str:
    """A one-line description of a tool call."""
    command = args.get("command")
    path = next((args[k] for k in PATH_KEYS if isinstance(args.get(k), str)), None)
    if isinstance(command, str) and path is None:
        return clip(f"{name}: {command}", 160)
    if isinstance(command, str) and isinstance(path, str):
        return clip(f"{name} {command} {path}", 160)
    shown = ", ".join(
        f"{k}={scalar_text(v)}" for k, v in args.items() if isinstance(v, str | int | float)
    )
    return clip(f"{name}({shown or raw})", 160)


def _files(out: _Reader, name: str, args: dict[str, object], ref: str) -> None:
    """What the call did to each file it names, and the definitions it wrote there."""
    command = args.get("command")
    verb = _EDITOR_VERBS.get(command, "") if isinstance(command, str) else ""
    for key, value in args.items():
        if key in PATH_KEYS and isinstance(value, str):
            _add(out, "files", verb or name, ref, group=value)
            for code_key in ("old_str", "new_str", "file_text"):
                code = args.get(code_key)
                if isinstance(code, str):
                    for defined in defined_names(code, _DEFINED_PER_FILE):
                        _add(out, "files", defined, ref, group=value)


def _tool_output(out: _Reader, name: str, text: str, is_error: bool, ref: str) -> None:
    problem = error_line(text)
    if is_error or problem is not None:
        shown = problem or clip(text, CLIP)
        label = f"{name}: {shown}" if name else shown
        out.open_errors.append(len(out.entries))
        _add(out, "errors", label, ref, status="open")
    else:
        out.successes.append((name, out.tick()))


# --- values, newest first ----------------------------------------------------------------------


def _values(
    out: _Reader, messages: tuple[Message, ...], refs: tuple[str, ...], pool: int, seen: Window
) -> None:
    """Values of agent text, tool calls and tool output read, newest first, while they may
    fit."""
    values = out.values
    for index in range(len(messages) - 1, seen.start - 1, -1):
        agent, tool = not values.full(AGENT, pool), not values.full(TOOL, pool)
        if not (agent or tool):
            return
        agent, tool = agent and index >= seen.agent, tool and index >= seen.tool
        if not (agent or tool):
            continue
        message = messages[index]
        ref = refs[index] if index < len(refs) else ""
        out.at(index)
        for part in message.parts:
            found = _part_values(message, part, agent, tool)
            if found is not None:
                out.seq = values.note(*found, out.seq, ref)


def _part_values(
    message: Message, part: object, agent: bool, tool: bool
) -> tuple[Sequence[Fact], int] | None:
    """(facts, source) of one part, for the sources still being read."""
    match part:
        case Text() if message.role == "assistant" and agent:
            return prose_facts(part.text), AGENT
        case Text() if message.role == "tool" and tool:
            return tool_facts(_tool_text(part)), TOOL
        case ToolCall() if agent:
            return data_facts(part), AGENT
        case ToolResult() if tool:
            return tool_facts(_tool_text(part)), TOOL
        case _:
            return None


def _finish(out: _Reader, messages: tuple[Message, ...]) -> None:
    out.entries.extend(out.values.entries())
    for text, ref, index in reversed(out.agent_texts[-_STATE_TRIES:]):
        chosen = next_steps(sentences(outside_quotes(text)))
        if chosen:
            joined = " ".join(clip(s, CLIP) for s in chosen)
            seq = (index + 2) * _SLOT - 2
            out.entries.append(Entry("state", joined, refs=(ref,) if ref else (), seq=seq))
            break
    if out.last_action is not None:
        action, ref = out.last_action
        seq = (len(messages) + 1) * _SLOT
        refs = (ref,) if ref else ()
        out.entries.append(Entry("state", f"{LAST_ACTION}{action}", refs=refs, seq=seq))
