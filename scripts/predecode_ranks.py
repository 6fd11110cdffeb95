"""Write the pre-decoded rank files in src/contextfold/_tokens/data from tiktoken's published
`.tiktoken` files (base64 token, space, rank per line), and print their sha256.

Usage: .venv/bin/python scripts/predecode_ranks.py NAME=PATH.tiktoken[.gz] ...
The published files are what tiktoken downloads (openaipublic.blob.core.windows.net/encodings);
their sha256 must equal tiktoken's `expected_hash` (kept in `_load.ENCODINGS`).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import sys
from pathlib import Path

from contextfold._tokens import _load

DATA = Path(__file__).resolve().parents[1] / "src" / "contextfold" / "_tokens" / "data"


def main(argv: list[str]) -> int:
    """Convert each NAME=PATH."""
    for arg in argv:
        name, path = arg.split("=", 1)
        raw = Path(path).read_bytes()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        spec = _load.ENCODINGS[name]
        assert hashlib.sha256(raw).hexdigest() == spec.sha256, "not the published file"
        ranks = {
            base64.b64decode(token): int(rank)
            for token, rank in (line.split() for line in raw.splitlines() if line)
        }
        data = _load.predecoded(ranks)
        (DATA / spec.file).write_bytes(gzip.compress(data, 9, mtime=0))
        print(name, spec.file, hashlib.sha256(data).hexdigest())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
