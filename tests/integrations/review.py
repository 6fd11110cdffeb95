"""A structured output of about 2,100 tokens as a schema: the review the structured-output
tests ask their agents for."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, create_model

ABOUT = (
    "One finding of the review for this area of the codebase: what is wrong, where it is "
    "(file and line), how severe it is, and what to change, in one or two sentences."
)
_FIELDS: dict[str, Any] = {
    f"area_{i}": (str, Field(description=f"{ABOUT} Area {i}.")) for i in range(40)
}
Review: type[BaseModel] = create_model(
    "Review", __doc__="The review of the repository, one finding per area.", **_FIELDS
)
ANSWER = {f"area_{i}": "fine" for i in range(40)}
"""A valid review."""
