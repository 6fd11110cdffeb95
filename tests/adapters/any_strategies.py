"""Payloads in any of the three wire formats, for properties that hold in every one."""

from __future__ import annotations

from hypothesis import strategies as st

from . import anthropic_strategies, chat_strategies, responses_strategies

payloads = st.one_of(
    chat_strategies.payloads,
    anthropic_strategies.payloads(),
    responses_strategies.payloads,
)
