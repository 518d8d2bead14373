"""Files written whole or not at all: what every writer of the project's results uses."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import IO, Iterator


@contextlib.contextmanager
def replaced_whole(path: str, mode: str = "wb") -> Iterator[IO]:
    """A file to write ``path``'s new contents to; they replace ``path`` when the block ends
    without an error, in one rename, so a crash or a kill mid-write leaves the old file (or
    none) and never half of the new one. The file is readable by all, as results are meant to
    be shared (a temporary file is private)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
