"""Read a span of neutral messages into ledger entries, in one pass, oldest first.

Rules:
1. Goals and decisions come only from user and assistant text. Tool output is data: its
   identifiers are quoted (section `seen`), its sentences never become goals or plans.
2. An identifier the user or the agent mentioned (in text or tool-call arguments) goes to
   `identifiers`; one only seen in tool output goes to `seen`, at most a few per result.
3. A failing tool result opens an error; the next tool call is recorded as what addressed
   it, and a later successful call of the same tool marks it fixed.
4. Reasoning is never quoted; markers and the constraint card are skipped; a summary
   inside the span is read back as an earlier ledger (its header line dropped).
5. Events that change older entries (a completion that closes the latest open goal, a
   success that fixes an open error) are returned separately so the merge can apply them
   to entries from `previous` too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from .._messages import (
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
from ._facts import (
    Fact,
    clip,
    data_rank,
    defined_names,
    error_line,
    json_leaves,
    load_json,
    most_telling,
    outside_quotes,
    scalar_text,
    sentences,
    tagged_blocks,
    text_facts,
)
from ._ledger_text import (
    FIX_ARROW,
    LAST_ACTION,
    SHAPE_ROLES,
    Entry,
    Section,
    Status,
    is_setting,
    parse,
)

_REQUEST: Final = re.compile(
    r"\b(?:i'?d like|i would like|i want|i need|i'?m looking|i am looking|looking for|"
    r"can you|could you|would you|will you|please|help me|i'?m trying|your task|the task is|"
    r"goal is|how (?:do|can|to))\b|\?$|^(?:fix|implement|add|remove|change|update|cancel|book|"
    r"create|write|make|find|check|run|refactor|rename|delete|modify|move|upgrade|install)\b",
    re.I,
)
_DECISION: Final = re.compile(
    r"\b(?:go(?:ing)? with|decided|decide to|chose|choose|opt(?:ed)? for|switch(?:ed)? to|"
    r"instead of|rather than|the fix (?:is|was|will be)|root cause|is caused by|"
    r"(?:the|this) (?:issue|problem|bug|error) (?:is|was|occurs|happens|arises|comes)|"
    r"i'll use|we'll use|let's use|we should use)\b",
    re.I,
)
_PLAN: Final = re.compile(
    r"^(?:now,? |next,? |then,? |first,? |finally,? )?(?:let's|let me|i'll|i will|i need to|"
    r"we need to|we should|i should|next step)|\b(?:next step|plan is|will now|going to)\b",
    re.I,
)
_DONE: Final = re.compile(
    r"\b(?:(?:has|have) been (?:successfully )?|successfully |is now )(?:booked|cancell?ed|"
    r"updated|changed|modified|processed|completed|implemented|fixed|resolved|submitted|"
    r"refunded|upgraded|added|removed|applied)\b|\ball tests pass|\btask is complete",
    re.I,
)
_BOILERPLATE: Final = re.compile(
    r"\b(?:let me know|feel free|any (?:other|further|more) (?:questions|assistance)|"
    r"anything else|happy to help|glad to help|have a (?:great|nice|good))\b",
    re.I,
)
_FINISH_TOOLS: Final = frozenset({"submit", "finish", "done", "complete", "task_complete"})
_PATH_KEYS: Final = frozenset({"path", "file", "file_path", "filepath", "filename", "target_file"})
_PROSE_KEYS: Final = frozenset(
    {"old_str", "new_str", "file_text", "content", "thought", "summary", "text", "code"}
)
_EDITOR_VERBS: Final[dict[str, str]] = {
    "view": "viewed",
    "create": "created",
    "str_replace": "edited",
    "insert": "inserted",
    "undo_edit": "undone",
}
_SEEN_PER_RESULT: Final = 24
_SEEN_PER_DATA: Final = 150
_GOALS_PER_MESSAGE: Final = 3
_MIN_GOAL_WORDS: Final = 4
_VAGUE: Final = re.compile(
    r"^(?:\w+,? )?(?:can|could|would) you (?:please )?(?:help|assist)(?: me)?"
    r"(?: with (?:that|this|it))?\W*$",
    re.I,
)
_DECISIONS_PER_MESSAGE: Final = 2
_CLIP: Final = 200


@dataclass(slots=True)
class Extraction:
    """What a span yields: entries, plus events that may change older entries."""

    entries: list[Entry] = field(default_factory=list)
    earlier: list[Entry] = field(default_factory=list)
    """Entries read back from summaries found inside the span."""
    completions: list[int] = field(default_factory=list)
    """Seq of each statement that the latest open request was done."""
    successes: list[tuple[str, int]] = field(default_factory=list)
    """(tool name, seq) of each successful tool result."""
    first_action: tuple[str, str] | None = None
    """(action, ref) of the span's first tool call: what addressed an earlier open error."""
    facts: dict[str, Entry] = field(default_factory=dict)
    calls: dict[str, str] = field(default_factory=dict)
    """Tool name by call id (the latest call wins when a provider re-uses an id)."""
    open_errors: list[int] = field(default_factory=list)
    """Indexes into `entries` of errors still waiting for the next action."""
    last_action: Entry | None = None
    last_text: tuple[str, str, int] | None = None
    seq: int = 0

    def tick(self) -> int:
        """The next sequence number."""
        self.seq += 1
        return self.seq


def extract(messages: tuple[Message, ...], refs: tuple[str, ...]) -> Extraction:
    """Entries for `messages` (oldest first); `refs[i]` is message i's archive ref or ''."""
    out = Extraction()
    for index, message in enumerate(messages):
        ref = refs[index] if index < len(refs) else ""
        for part in message.parts:
            _part(out, message, part, ref)
    _finish(out)
    return out


def _part(out: Extraction, message: Message, part: object, ref: str) -> None:
    match part:
        case Text():
            if message.role == "user":
                _user_text(out, part.text, ref)
            elif message.role == "assistant":
                _assistant_text(out, part.text, ref)
            elif message.role == "tool":
                _tool_output(out, "", part.text, False, ref)
        case ToolCall():
            _tool_call(out, part, ref)
        case ToolResult():
            name = out.calls.get(part.call_id, "")
            _tool_output(out, name, part_text(part), part.is_error, ref)
        case Summary():
            out.earlier.extend(parse(_summary_body(part.text)))
        case Reasoning() | Marker() | Card() | Image() | Opaque():
            pass


def _summary_body(text: str) -> str:
    """A summary's text without its header line (the engine's, with whatever it adds)."""
    return text.split("\n", 1)[1] if "\n" in text else text.removeprefix(SUMMARY_HEADER)


def _add(
    out: Extraction, section: Section, text: str, ref: str, *, group: str = "", status: Status = ""
) -> None:
    refs = (ref,) if ref else ()
    out.entries.append(Entry(section, text, group=group, refs=refs, seq=out.tick(), status=status))


def _note_fact(out: Extraction, fact: Fact, ref: str, *, spoken: bool) -> None:
    """Record `fact`; `spoken` when the user or the agent mentioned it (rule 2)."""
    if any(c in fact.value for c in "\n\r\t"):
        return
    section: Section = "identifiers" if spoken else "seen"
    known = out.facts.get(fact.value)
    if known is not None and known.section == "identifiers":
        section = "identifiers"
    role = fact.role if known is None or _better_role(fact, known) else known.group
    out.facts[fact.value] = Entry(
        section, fact.value, group=role, refs=(ref,) if ref else (), seq=out.tick()
    )


def _better_role(fact: Fact, known: Entry) -> bool:
    """A name from the data beats a shape; a field of many beats a single-valued setting."""
    if not fact.named:
        return False
    if known.group in SHAPE_ROLES:
        return True
    return is_setting(known.group, known.text) or not is_setting(fact.role, fact.value)


# --- user and assistant text ----------------------------------------------------------------


def _user_text(out: Extraction, text: str, ref: str) -> None:
    goals: list[str] = []
    for tag, body in tagged_blocks(text):
        first = next((s for s in body.splitlines() if len(s.strip()) >= 12), "")
        if first and not first.strip().startswith("/"):
            goals.append(f"{tag}: {clip(first, _CLIP)}")
    own = [s for s in sentences(outside_quotes(text)) if "###" not in s]
    goals += [clip(s, _CLIP) for s in _requests(own)]
    for goal in goals[:_GOALS_PER_MESSAGE]:
        _add(out, "goals", goal, ref, status="open")
    _decisions(out, own, ref)
    for fact in text_facts(text):
        _note_fact(out, fact, ref, spoken=True)


def _requests(said: list[str]) -> list[str]:
    """Sentences asking for something; for a bare "Can you help with that?", the one before."""
    out: list[str] = []
    for index, sentence in enumerate(said):
        if _VAGUE.search(sentence) is not None:
            before = said[index - 1] if index else ""
            if len(before.split()) >= _MIN_GOAL_WORDS and before not in out:
                out.append(before)
        elif _asks(sentence):
            out.append(sentence)
    return out


def _asks(sentence: str) -> bool:
    """A request with some content that is not also a decision."""
    return (
        len(sentence.split()) >= _MIN_GOAL_WORDS
        and _REQUEST.search(sentence) is not None
        and _DECISION.search(sentence) is None
    )


def _assistant_text(out: Extraction, text: str, ref: str) -> None:
    said = sentences(outside_quotes(text))
    _decisions(out, [s for s in said if not s.endswith("?")], ref)
    if any(_DONE.search(s) for s in said):
        out.completions.append(out.tick())
    plans = [s for s in said if _PLAN.search(s)]
    chosen = plans[-2:] if plans else [s for s in said if not _BOILERPLATE.search(s)][-1:]
    if chosen:
        out.last_text = (" ".join(clip(s, _CLIP) for s in chosen), ref, out.tick())
    for fact in text_facts(text):
        _note_fact(out, fact, ref, spoken=True)


def _decisions(out: Extraction, said: list[str], ref: str) -> None:
    found = [clip(s, _CLIP) for s in said if _DECISION.search(s) and not s.startswith("#")]
    for text in found[:_DECISIONS_PER_MESSAGE]:
        _add(out, "decisions", text, ref)


# --- tool calls and results -----------------------------------------------------------------


def _tool_call(out: Extraction, call: ToolCall, ref: str) -> None:
    data = load_json(call.arguments)
    args = data if isinstance(data, dict) else {}
    action = _action(call.name, args, call.arguments)
    out.calls[call.id] = call.name
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
    out.last_action = Entry("state", f"{LAST_ACTION}{action}", refs=(ref,) if ref else ())
    if call.name in _FINISH_TOOLS:
        out.completions.append(out.tick())
    _call_facts(out, call.name, args, ref)


def _action(name: str, args: dict[str, object], raw: str) -> str:
    """A one-line description of a tool call."""
    command = args.get("command")
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
    if isinstance(command, str) and path is None:
        return clip(f"{name}: {command}", 160)
    if isinstance(command, str) and isinstance(path, str):
        return clip(f"{name} {command} {path}", 160)
    shown = ", ".join(
        f"{k}={scalar_text(v)}" for k, v in args.items() if isinstance(v, str | int | float)
    )
    return clip(f"{name}({shown or raw})", 160)


def _call_facts(out: Extraction, name: str, args: dict[str, object], ref: str) -> None:
    command = args.get("command")
    verb = _EDITOR_VERBS.get(command, "") if isinstance(command, str) else ""
    for key, value in args.items():
        if key in _PATH_KEYS and isinstance(value, str):
            _file(out, value, verb or name, ref)
            _note_fact(out, Fact("path", value), ref, spoken=True)
        elif key in _PROSE_KEYS and isinstance(value, str):
            _prose_arg(out, key, value, args, ref)
        elif key == "command" and isinstance(value, str) and " " in value.strip():
            _note_fact(out, Fact("command", clip(value, 160), True), ref, spoken=True)
            for fact in text_facts(value):
                _note_fact(out, fact, ref, spoken=True)
        elif key != "command":
            _json_facts(out, {key: value}, ref, spoken=True)


def _prose_arg(out: Extraction, key: str, value: str, args: dict[str, object], ref: str) -> None:
    """Code or notes the agent passed as an argument: its definitions and values."""
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
    if isinstance(path, str) and key in ("old_str", "new_str", "file_text"):
        for name in defined_names(value)[:3]:
            _file(out, path, name, ref)
    for fact in text_facts(value, prose=False):
        _note_fact(out, fact, ref, spoken=True)


def _file(out: Extraction, path: str, action: str, ref: str) -> None:
    _add(out, "files", action, ref, group=path)


def _json_facts(out: Extraction, data: object, ref: str, *, spoken: bool) -> None:
    facts = [
        Fact(role, text, True)
        for role, value in json_leaves(data)
        if (text := scalar_text(value)).strip() and len(text) <= 160 and "\n" not in text
    ]
    if not spoken:
        facts = sorted(facts, key=data_rank)[:_SEEN_PER_DATA]
    for fact in facts:
        _note_fact(out, fact, ref, spoken=spoken)


def _tool_output(out: Extraction, name: str, text: str, is_error: bool, ref: str) -> None:
    problem = error_line(text)
    if is_error or problem is not None:
        shown = problem or clip(text, _CLIP)
        label = f"{name}: {shown}" if name else shown
        out.open_errors.append(len(out.entries))
        _add(out, "errors", label, ref, status="open")
    else:
        out.successes.append((name, out.tick()))
    data = load_json(text)
    if data is not None:
        _json_facts(out, data, ref, spoken=False)
        return
    for fact in most_telling(text_facts(text, prose=False))[:_SEEN_PER_RESULT]:
        _note_fact(out, fact, ref, spoken=False)


def _finish(out: Extraction) -> None:
    out.entries.extend(out.facts.values())
    if out.last_text is not None:
        text, ref, seq = out.last_text
        out.entries.append(Entry("state", text, refs=(ref,) if ref else (), seq=seq))
    if out.last_action is not None:
        out.entries.append(
            Entry("state", out.last_action.text, refs=out.last_action.refs, seq=out.tick())
        )
