"""Generated chatty sessions for the tight-budget survival benchmark.

Rules:
1. A session is a system prompt and five segments. Each segment holds two or three user
   statements, chatty filler exchanges ("ok", "thanks", acknowledgements, explanations),
   one or two small tool calls whose results are file views or logs, and sometimes a
   look-alike distractor: a rule or value written by a tool or by the assistant, which
   must never become user state. A segment ends with a plain user request.
2. Statements are of five kinds: rule, constraint (a limit with its value), fact, goal
   (goal or next step) and preference. Each carries a key value unique to it.
3. From segment 2 on, some statements update an earlier constraint, fact or goal: a new
   value for the same subject, phrased as corrections are ("Actually ...", "Change of
   plan: ...", "Scratch that ..."). The old value is stale from then on. A subject said
   again in the same words with a new value (a restatement) replaces the older one too,
   except a prohibition: "never deploy svc-a" and later "never deploy svc-b" both hold.
4. Every kind has several phrasings; even-numbered ones make the `dev` split, odd-numbered
   ones the `held-out` split, so a gain on one can be checked on the other.
5. Two styles: `agent` sessions have tool calls and explanatory assistant turns; `chat`
   sessions (like issue 10's example) have none: short acknowledgements only, so the
   statements are a large share of the tokens and tight budgets really bite.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

Wire = dict[str, Any]

KINDS = ("rule", "constraint", "fact", "goal", "preference")
SPLITS = ("dev", "held-out")
SEGMENTS = 5

SYSTEM = (
    "You are a careful engineering assistant working in the user's repository. Use the "
    "tools to read files and run commands. Keep the user informed."
)

# Each template: (subject, sentence); {v} is the key value.
TEMPLATES: dict[str, tuple[tuple[str, str], ...]] = {
    "rule": (
        ("deploy", "Never deploy the {v} service without a dry run first."),
        ("push", "Please don't push directly to the {v} branch; open a PR instead."),
        ("delete", "You must not delete anything under the folder {v}."),
        ("ask", "Always ask me before you touch the {v} config file."),
        ("tag", "Every commit message has to mention ticket {v}, no exceptions."),
        ("secrets", "Do not print the contents of {v} to the console, ever."),
        ("tests", "Make sure to run the {v} test suite before saying anything is done."),
        ("prod", "Under no circumstances restart {v} during business hours."),
    ),
    "constraint": (
        ("budget", "The monthly spend cap is {v}, never exceed it without my approval."),
        ("timeout", "Keep every request timeout at or below {v} seconds."),
        ("deadline", "Our deadline is {v}, it cannot move."),
        ("memory", "The worker must stay under {v} MB of memory."),
        ("rate", "We are limited to {v} API calls per minute."),
        ("size", "Responses have to stay under {v} KB."),
        ("retries", "Retry at most {v} times before giving up."),
        ("window", "The maintenance window is {v} UTC, only then can we migrate."),
    ),
    "fact": (
        ("host", "The staging database is at {v} port 6432."),
        ("ticket", "The ticket for this work is {v}."),
        ("oncall", "The on-call engineer this week is {v}."),
        ("bucket", "Backups go to the bucket {v}."),
        ("version", "We are on version {v} of the SDK."),
        ("account", "FYI my account id is {v}, in case you need it."),
        ("region", "Everything runs in region {v}."),
        ("owner", "The owner of the billing module is {v}, ask them about schema questions."),
    ),
    "goal": (
        ("next", "Next step after the schema change: backfill the {v} table."),
        ("goal", "My overall goal is to get {v} merged by the end of the week."),
        ("then", "Once that's done, I want you to migrate the {v} endpoint."),
        ("aim", "What I'm after is making the {v} job idempotent."),
        ("plan", "The plan is to split {v} into two services."),
        ("todo", "After the tests pass, the next thing is to document {v}."),
        ("target", "We're aiming to retire {v} completely this sprint."),
        ("priority", "Top priority right now is fixing the {v} crash."),
    ),
    "preference": (
        ("format", "I prefer answers as short bullet lists, tagged {v} at the end."),
        ("style", "I'd like you to use the {v} naming style for new variables."),
        ("lang", "Please write comments in {v}, that's what the team reads."),
        ("tone", "Keep it terse, I like replies that start with the word {v}."),
        ("dates", "Write dates as {v} from now on, that's my preference."),
        ("tool", "I'd rather you use {v} for formatting instead of anything else."),
        ("units", "Give sizes in {v} please, I find them easier to read."),
        ("sign", "When you finish a task, sign it off with {v} so I can grep for it."),
    ),
}

PROHIBITIONS = frozenset({"deploy", "push", "delete", "secrets", "prod"})
"""Rule subjects whose restatement about another named thing adds a rule (rule 3)."""
UPDATES: tuple[str, ...] = (
    "Actually, {sentence_new} Not {old}.",
    "Change of plan: {sentence_new}",
    "Scratch that, {sentence_new_lower}",
    "Correction: {sentence_new} ({old} is out of date.)",
    "Update: {sentence_new}",
    "Sorry, I gave you the wrong value before. {sentence_new}",
)

FILLER_USER = (
    "ok",
    "thanks",
    "Sounds good.",
    "Great, go ahead.",
    "Makes sense.",
    "Nice, keep going.",
    "Cool.",
    "Yep.",
    "Perfect, thank you!",
    "Alright.",
)
FILLER_ASSISTANT = (
    "Noted, I'll keep that in mind.",
    "Got it. I'll take that into account for everything that follows.",
    "Understood. Let me look at the relevant files before changing anything, so I do not "
    "break the existing behaviour.",
    "Sure. I've checked the module layout; the change is contained to a couple of "
    "functions, and the existing tests cover most of the paths.",
    "Done. The refactor compiles and the unit tests I ran locally pass. I'll continue "
    "with the remaining call sites next.",
    "Thanks for the context. That explains the odd retry logic I saw in the client "
    "wrapper earlier.",
    "Okay. I'll proceed step by step and report back after each change.",
    "Good question: the helper is only used in two places, so renaming it is safe. I'll "
    "update both and rerun the linter.",
)
ACKS = (
    "Noted, I'll keep that in mind.",
    "Got it.",
    "Great, let me know what's next.",
    "Understood.",
    "Sure thing.",
)
"""Short assistant replies of the `chat` style (rule 5)."""
REQUESTS = (
    "Summarize where we are and continue.",
    "Continue with the next step.",
    "What's left to do? Keep going.",
    "Go on, and tell me when something needs my decision.",
    "Please continue.",
)
DISTRACTORS: tuple[tuple[str, str], ...] = (
    ("tool", "CONTRIBUTING.md: Never push directly to the {v} branch. The spend cap is {v2}."),
    ("tool", "ops/notes.txt\ndeadline: {v2}\non-call: {v}\nrule: always deploy {v} on Fridays"),
    ("assistant", "For example, a rule like 'never deploy {v}' could apply, with a cap of {v2}."),
    ("tool", "config.yaml\nowner: {v}\nbudget_cap: {v2}\n# you must always restart {v} nightly"),
)
NAMES = (
    "Priya Raman", "Tomas Vidal", "Keiko Sato", "Amara Nwosu", "Lena Fischer", "Omar Haddad",
    "Sofia Rossi", "Jonas Berg", "Mei Lin", "Diego Alvarez", "Aisha Khan", "Nils Olsen",
)  # fmt: skip


@dataclass(frozen=True)
class Statement:
    """One planted user statement."""

    kind: str
    subject: str
    value: str
    sentence: str
    segment: int
    split: str
    replaces: str | None = None
    """The value this statement supersedes (an update), if any."""
    core: str = ""
    """The sentence that states the value, without an update's wording around it."""


@dataclass
class Session:
    """A generated session: segments of wire messages and what was planted where."""

    seed: int
    split: str
    style: str
    system: Wire
    segments: list[list[Wire]] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    distractors: list[tuple[int, str]] = field(default_factory=list)
    """(segment, value) written only by a tool or the assistant."""

    def distractors_until(self, upto: int) -> list[str]:
        """Distractor values shown by segment `upto`."""
        return [value for segment, value in self.distractors if segment <= upto]

    def current(self, upto: int) -> list[Statement]:
        """Statements said by segment `upto` whose value still holds."""
        said = [s for s in self.statements if s.segment <= upto]
        stale = {s.replaces for s in said if s.replaces}
        return [s for s in said if s.value not in stale]

    def stale(self, upto: int) -> list[tuple[str, str]]:
        """(old value, current value) pairs superseded by segment `upto`: each replaced value
        against its subject's newest value, unless a later statement restored it (A, B, A)."""
        said = [s for s in self.statements if s.segment <= upto]
        newest = {(s.kind, s.subject): s.value for s in said}  # statements are in order
        pairs = [(s.replaces, newest[s.kind, s.subject]) for s in said if s.replaces]
        return [(old, new) for old, new in pairs if old != new]


def _value(rng: random.Random, kind: str, subject: str) -> str:  # noqa: PLR0911
    tag = f"{rng.getrandbits(20):05x}"
    if not any(c.isdigit() for c in tag):  # an all-letter tag reads as a word, not a value
        tag = f"{rng.randint(0, 9)}{tag[1:]}"
    match subject:
        case "budget":
            return f"${rng.randint(2, 9)},{rng.randint(100, 999)}"
        case "deadline":
            return f"2027-{rng.randint(1, 12):02d}-{rng.randint(10, 28)}"
        case "timeout" | "retries" | "rate" | "memory" | "size":
            return str(rng.randint(1000, 9999))
        case "window":
            return (
                f"{rng.randint(0, 9):02d}:{rng.choice(('15', '30', '45'))}-{rng.randint(10, 23)}:00"
            )
        case "oncall" | "owner":
            return f"{rng.choice(NAMES)} ({tag})"
        case "ticket" | "tag":
            return f"{rng.choice(('BILL', 'OPS', 'INFRA', 'DATA'))}-{rng.randint(1000, 9999)}"
        case "host":
            return f"pg-{tag}.internal"
        case "version":
            return f"{rng.randint(2, 9)}.{rng.randint(10, 99)}.{rng.randint(1, 9)}"
        case _:
            return f"{subject}-{tag}"


def _user(text: str) -> Wire:
    return {"role": "user", "content": text}


def _assistant(text: str) -> Wire:
    return {"role": "assistant", "content": text}


def _tool_exchange(rng: random.Random, call: str, text: str) -> list[Wire]:
    name = rng.choice(("read_file", "run_command"))
    arg = '{"path": "src/app/module.py"}' if name == "read_file" else '{"cmd": "pytest -q"}'
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call, "type": "function", "function": {"name": name, "arguments": arg}}
            ],
        },
        {"role": "tool", "tool_call_id": call, "content": text},
    ]


def _file_view(rng: random.Random) -> str:
    lines = []
    for n in range(rng.randint(12, 40)):
        lines.append(f"{n + 1:4d}  def handler_{rng.getrandbits(16):04x}(request): return None")
    return "\n".join(lines)


def _sentence(template: str, value: str) -> str:
    return template.format(v=value)


def generate(seed: int, split: str, style: str = "agent") -> Session:
    """One session (rules 1-5); `split` picks the phrasings, `style` the filler."""
    chat = style == "chat"
    rng = random.Random(f"{style}:{split}:{seed}")
    parity = SPLITS.index(split)
    pool = {k: [t for i, t in enumerate(v) if i % 2 == parity] for k, v in TEMPLATES.items()}
    session = Session(seed, split, style, {"role": "system", "content": SYSTEM})
    calls = 0
    for segment in range(1, SEGMENTS + 1):
        wire: list[Wire] = []
        if segment > 1:
            wire.append(_assistant(rng.choice(FILLER_ASSISTANT)))
        said: list[Wire] = []
        for _ in range(rng.randint(2, 3)):
            said.append(_user(_plant(rng, session, pool, segment)))
        for message in said:
            wire.append(message)
            wire.append(_assistant(rng.choice(ACKS if chat else FILLER_ASSISTANT)))
            for _ in range(rng.randint(1, 3) if chat else rng.randint(1, 2)):
                reply = rng.choice(ACKS if chat else FILLER_ASSISTANT)
                wire += [_user(rng.choice(FILLER_USER)), _assistant(reply)]
            if not chat and rng.random() < 0.6:
                calls += 1
                wire += _tool_exchange(rng, f"call_{seed}_{calls}", _file_view(rng))
                wire.append(_assistant(rng.choice(FILLER_ASSISTANT)))
                wire.append(_user(rng.choice(FILLER_USER)))
                wire.append(_assistant(rng.choice(FILLER_ASSISTANT)))
        if rng.random() < 0.5:
            calls += 1
            wire += _distractor(rng, session, f"call_{seed}_{calls}", segment, chat=chat)
        wire.append(_user(rng.choice(REQUESTS)))
        session.segments.append(wire)
    return session


def _plant(
    rng: random.Random, session: Session, pool: dict[str, list[tuple[str, str]]], segment: int
) -> str:
    updatable = [s for s in session.current(segment) if s.kind in ("constraint", "fact", "goal")]
    if segment > 1 and updatable and rng.random() < 0.3:
        old = rng.choice(updatable)
        template = next(t for k in KINDS for subj, t in pool[k] if subj == old.subject)
        value = _value(rng, old.kind, old.subject)
        new = _sentence(template, value)
        text = rng.choice(UPDATES).format(
            sentence_new=new, sentence_new_lower=new[0].lower() + new[1:], old=old.value
        )
        session.statements.append(
            Statement(old.kind, old.subject, value, text, segment, session.split, old.value, new)
        )
        return text
    kind = rng.choice(KINDS)
    used = {s.subject for s in session.statements}
    choices = [t for t in pool[kind] if t[0] not in used] or pool[kind]
    subject, template = rng.choice(choices)
    value = _value(rng, kind, subject)
    text = _sentence(template, value)
    # the same subject said again with a new value is a restatement: it replaces the older
    older = next((s for s in reversed(session.current(segment)) if s.subject == subject), None)
    coexists = subject in PROHIBITIONS  # "never deploy svc-a", later "never deploy svc-b"
    replaces = older.value if older is not None and not coexists else None
    session.statements.append(
        Statement(kind, subject, value, text, segment, session.split, replaces, text)
    )
    return text


def _distractor(
    rng: random.Random, session: Session, call: str, segment: int, *, chat: bool
) -> list[Wire]:
    source, template = rng.choice(
        [d for d in DISTRACTORS if d[0] == "assistant"] if chat else DISTRACTORS
    )
    v = f"decoy-{rng.getrandbits(20):05x}"
    v2 = f"${rng.randint(10, 99)},{rng.randint(100, 999)}"
    session.distractors += [(segment, v), (segment, v2)]
    text = template.format(v=v, v2=v2)
    if source == "assistant":
        return [_assistant(text), _user(rng.choice(FILLER_USER))]
    return [*_tool_exchange(rng, call, text), _assistant(rng.choice(FILLER_ASSISTANT))]


def wire(session: Session, upto: int = SEGMENTS) -> list[Wire]:
    """The whole session through segment `upto`."""
    out = [session.system]
    for segment in session.segments[:upto]:
        out += segment
    return out
