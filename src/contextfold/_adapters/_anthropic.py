"""Placeholder for the anthropic adapter (being written)."""

from __future__ import annotations

from .._messages import Conversation
from .._validation import Problem


def to_conversation(payload: object) -> Conversation:
    """Parse a anthropic payload."""
    raise NotImplementedError


def from_conversation(conversation: Conversation) -> object:
    """Render a anthropic payload."""
    raise NotImplementedError


def validate(payload: object) -> list[Problem]:
    """Problems the provider would reject."""
    raise NotImplementedError
