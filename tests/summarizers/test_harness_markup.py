"""Markup an agent's harness adds to the user's turn is not the user's (ledger rule 1).

Claude Code puts `<system-reminder>...</system-reminder>` blocks in user messages; the
ledger listed their first line as a user goal ("system-reminder: As you answer ...") and
every closing tag as a path ("/system-reminder", "/NOTE", "/diff" in SWE-agent output).
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold._statements._facts import text_facts

REMINDER = (
    "<system-reminder>\nAs you answer the user's questions, you can use the following "
    "context:\nNEVER create files unless they're absolutely necessary.\n</system-reminder>"
)


def _session() -> list[dict[str, object]]:
    parts = [{"type": "text", "text": REMINDER}, {"type": "text", "text": "Fix the failing test."}]
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": parts},
    ]
    for i in range(12):
        text = f"Looking at file {i}. " + "I traced the handler and the config loader. " * 40
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": "ok, next file please"})
    return messages


def test_a_system_reminder_is_neither_a_goal_nor_a_path() -> None:
    result = cf.compact(_session(), 300, model="gpt-4o")
    text = json.dumps(result.payload)
    assert "[cf:summary]" in text
    assert "system-reminder:" not in text
    assert "/system-reminder" not in text.replace("</system-reminder>", "")


tags = st.from_regex(r"[a-z][a-z_-]{1,12}", fullmatch=True)


@given(tag=tags)
def test_no_closing_tag_is_read_as_a_path(tag: str) -> None:
    facts = text_facts(f"<{tag}>\nsee src/app/main.py\n</{tag}>")
    values = [f.value for f in facts]
    assert f"/{tag}" not in values
    assert "src/app/main.py" in values
