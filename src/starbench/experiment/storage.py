"""Result storage: an append-only row journal per cell, atomic table writes, cell status.

A cell folder holds

* ``rows.jsonl``: one JSON object per finished search, appended and fsync'ed as each instance
  completes; after a kill only the last line can be incomplete, and it is ignored;
* ``cell.json``: what the cell is (tree, seed, generator version, commit), its status and the
  overrides that rerun it;
* ``table.parquet`` (and ``table.csv`` on request): the tidy table, written atomically
  (temporary file in the same folder, then ``os.replace``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

JOURNAL = "rows.jsonl"
CELL = "cell.json"
TABLE = "table.parquet"
TABLE_CSV = "table.csv"


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class Journal:
    """The append-only row journal of one cell."""

    def __init__(self, folder: Path):
        self.path = folder / JOURNAL

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        rows = []
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                if not line.endswith("\n"):
                    break  # an incomplete last line, left by a kill
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    continue
        return rows

    def append(self, rows: Iterable[dict[str, Any]]) -> None:
        text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # repair a torn last line before appending after it
        if self.path.exists() and self.path.stat().st_size:
            with open(self.path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                torn = f.read(1) != b"\n"
            if torn:
                text = "\n" + text
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
