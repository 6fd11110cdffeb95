"""`contextfold recall`: the original payload behind a marker, from an SQLite archive.

Rules:
1. REF is the reference in a marker (`r0123456789`); a whole pasted marker such as
   `[cf:r0123456789 tool result masked]` works too.
2. The archive is opened read-only in spirit: a missing file is an error, never created.
3. Text is printed as stored; a message or part is printed as readable text (what the
   recall tool hands the model), or with `--json` as its reference, kind, label and text.
"""

from __future__ import annotations

import re
from typing import Annotated, Final

import contextfold as cf

from ._io import fail, reporting, to_json, usage_error
from ._io import write_text as write
from ._params import argument, option

EXAMPLE: Final = "\b\nExample:\n  contextfold recall r3a57b177f5 --archive session.db"
_REF: Final = re.compile(r"(?<![0-9a-z])r[0-9a-f]{10}(?![0-9a-f])")

RefArgument = Annotated[str, argument(help="Reference from a [cf:...] marker.")]
ArchiveOption = Annotated[
    str,
    option("--archive", metavar="DB", help="SQLite archive written by compact --archive."),
]
JsonOption = Annotated[
    bool, option("--json", help="Print reference, kind, label and text as JSON.")
]


def recall(ref: RefArgument, archive: ArchiveOption, *, json: JsonOption = False) -> None:
    """Print the original payload that compaction replaced with a marker."""
    wanted = _reference(ref)
    with reporting(archive), cf.Archive(cf.SqliteStore(archive, readonly=True)) as store:
        if wanted not in store:
            fail(f"{archive}: no archived payload under reference {wanted!r}")
        entry = store.entry(wanted)
        text = store.recall_text(wanted)
    if json:
        data = {"ref": entry.ref, "kind": entry.kind, "label": entry.label, "text": text}
        write("-", to_json(data, indent=2) + "\n")
    else:
        write("-", text if text.endswith("\n") else text + "\n")


def _reference(text: str) -> str:
    """The one reference in `text` (rule 1)."""
    found: set[str] = set(_REF.findall(text.strip().lower()))
    if len(found) != 1:
        usage_error(f"{text[:60]!r} is not a reference; copy one from a marker, e.g. r0123456789")
    return found.pop()
