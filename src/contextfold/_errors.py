"""The exception tree. Every error contextfold raises on purpose is a ContextFoldError.

ContextFoldError
 ├── InvalidConversation (ValueError)   bad input: names the message index and field
 │    └── AmbiguousFormat               the payload could be more than one wire format
 ├── ConfigurationError (ValueError)    a bad option or policy value
 ├── BudgetUnreachable                  the protected set alone exceeds the budget
 ├── TokenizerError                     encoding data missing, corrupt or not installed
 ├── ArchiveError                       storage failed
 │    └── UnknownReference (KeyError)   recall() of a reference the archive does not hold
 └── SummarizerError                    a summarizer backend failed (after its retries)

Messages say what is wrong and, where possible, how to fix it.

UnknownModelWarning (UserWarning) is the one warning: a model name that looks like a typo
of a known one ("gtp-4o") is counted with the estimate, and said so once.
"""

from __future__ import annotations

__all__ = [
    "AmbiguousFormat",
    "ArchiveError",
    "BudgetUnreachable",
    "ConfigurationError",
    "ContextFoldError",
    "InvalidConversation",
    "SummarizerError",
    "TokenizerError",
    "UnknownModelWarning",
    "UnknownReference",
]


class UnknownModelWarning(UserWarning):
    """A model name contextfold does not know but that looks like one it does."""


class ContextFoldError(Exception):
    """Root of every error contextfold raises on purpose."""


class InvalidConversation(ContextFoldError, ValueError):
    """The payload is not a conversation we can read; `index` and `field` say where."""

    def __init__(
        self,
        reason: str,
        *,
        index: int | None = None,
        field: str | None = None,
        format: str | None = None,
    ) -> None:
        self.reason = reason
        self.index = index
        """Message (or item) index in the wire payload, when the problem is inside one."""
        self.field = field
        """Path of the offending field inside that message, e.g. `tool_calls[0].id`."""
        self.format = format
        """Wire format being read, when known."""
        super().__init__(str(self))

    @property
    def location(self) -> str:
        """Human-readable place of the problem, e.g. `message 3, field 'content'`."""
        parts = []
        if self.format is not None:
            parts.append(self.format)
        if self.index is not None:
            parts.append(f"message {self.index}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location
        return f"{where}: {self.reason}" if where else self.reason

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_invalid, (type(self), self.reason, self.index, self.field, self.format))


def _rebuild_invalid(
    cls: type[InvalidConversation],
    reason: str,
    index: int | None,
    field: str | None,
    fmt: str | None,
) -> InvalidConversation:
    return cls(reason, index=index, field=field, format=fmt)


class AmbiguousFormat(InvalidConversation):
    """The payload matches several wire formats; pass `format=` explicitly."""


class ConfigurationError(ContextFoldError, ValueError):
    """An option or policy value is out of range or inconsistent."""


class BudgetUnreachable(ContextFoldError):
    """The protected messages alone need more tokens than the budget allows."""

    def __init__(self, required: int, budget: int) -> None:
        self.required = required
        self.budget = budget
        super().__init__(
            f"the protected messages need {required} tokens but the budget is {budget}; "
            "raise the budget, unpin messages or shorten the protected tail"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.required, self.budget))


class TokenizerError(ContextFoldError):
    """A token counter could not be built (missing extra, missing or corrupt data)."""


class ArchiveError(ContextFoldError):
    """The archive could not store or read an entry."""


class UnknownReference(ArchiveError, KeyError):
    """`recall(ref)` was asked for a reference that this archive does not hold."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        super().__init__(ref)

    def __str__(self) -> str:
        return f"no archived payload under reference {self.ref!r}"

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.ref,))


class SummarizerError(ContextFoldError):
    """A summarizer backend failed; the message never contains credentials."""


def with_article(word: str) -> str:
    """`word` with its indefinite article, for error text: "an assistant", "a user"
    (a `u` said as "you" takes "a": user, unique, utility)."""
    folded = word.lower()
    vowel = folded[:1] in "aeio" or (folded[:1] == "u" and not folded.startswith(_YOU))
    return f"{'an' if vowel else 'a'} {word}"


_YOU = ("us", "uni", "uti")
"""Starts of words whose `u` is said as "you"."""
