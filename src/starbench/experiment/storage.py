"""Result storage: an append-only row journal per cell, atomic table writes, cell status.

A cell folder holds

* ``rows.jsonl``: the journal.  Each run that computes something first appends a *run header*,
  a JSON object ``{"journal": 2, "cell": ID, "run": N, "fields": [...], "identity": {...},
  "budgets": {...}, "meta": {...}}`` (the cell's identity, the run's budgets and metadata, once),
  then one JSON array per finished search, ``[ID, N, value, ...]`` with the values in the order
  of ``fields``.  Every row thus names its cell and its run; a folder whose rows name another
  cell is refused.  Lines are flushed as each instance completes (a kill -9 loses nothing: the
  page cache survives the process) and fsync'ed at most a few times a second and when the cell
  ends; after a crash of the machine only the last line can be incomplete, and it is ignored;
* ``cell.json``: what the cell is (tree, seed, generator version, commit), its status, the
  overrides that rerun it, and the SHA-256 of each table file (``tables``), which every reader
  checks before it uses the table (``tablefile.read``);
* ``table.parquet`` (and ``table.csv`` on request): the tidy table, written atomically
  (temporary file ``.<name>.<pid>.<random>.tmp`` in the same folder, then ``os.replace``;
  temporaries left by a killed process are removed by the next write).
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JOURNAL = "rows.jsonl"
CELL = "cell.json"
TABLE = "table.parquet"
TABLE_CSV = "table.csv"
JOURNAL_VERSION = 2
FSYNC_INTERVAL = 0.5  # seconds between fsyncs of the journal while a cell runs


def alive(pid: int, host: str | None = None) -> bool:
    """Does process ``pid`` live?  A process of another machine (``host``, a cluster job) is
    taken to: not this machine's to tell."""
    if host is not None:
        import socket

        if host != socket.gethostname():
            return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporaries of ``path`` left by processes that no longer run."""
    removed = []
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        middle = tmp.name[len(path.name) + 2 : -len(".tmp")]
        pid = middle.split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and alive(int(pid)):
            continue
        if pid.isdigit() and int(pid) == os.getpid():
            continue
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, path)
    except OSError as e:  # name the file being written (a full disk names none)
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes (the checksum ``cell.json`` records for its tables)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass
class JournalContents:
    """What a journal holds: its run headers by run number, its rows (dicts of ``fields``
    plus ``run``), the cells named by any line, and lines of an older format."""

    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    cells: set[str] = field(default_factory=set)
    legacy: int = 0


class Journal:
    """The append-only row journal of one cell."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / JOURNAL
        self._file: Any = None
        self._synced = 0.0

    def first_header(self) -> dict[str, Any] | None:
        """The first run header (cheap: the journal's first line), or None."""
        try:
            with open(self.path, encoding="utf-8") as f:
                line = f.readline()
        except OSError:
            return None
        try:
            head = json.loads(line)
        except ValueError:
            return None
        return head if isinstance(head, dict) and "journal" in head else None

    def read(self, make_row: Callable[[dict[str, Any]], Any] = dict) -> JournalContents:
        out = JournalContents()
        if not self.path.exists():
            return out
        fields_of: dict[int, list[str]] = {}
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                if not line.endswith("\n"):
                    break  # an incomplete last line, left by a crash
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, list) and len(rec) >= 2:
                    cell, run, *values = rec
                    out.cells.add(str(cell))
                    names = fields_of.get(run)
                    if names is None or len(names) != len(values):
                        continue  # a row whose header was lost: not provably this cell's
                    row = dict(zip(names, values, strict=True))
                    row["run"] = run
                    out.rows.append(make_row(row))
                elif isinstance(rec, dict) and rec.get("journal") == JOURNAL_VERSION:
                    out.cells.add(str(rec.get("cell")))
                    fields_of[rec["run"]] = list(rec["fields"])
                    out.runs[rec["run"]] = rec
                else:
                    out.legacy += 1
        return out

    def append_header(self, header: dict[str, Any]) -> None:
        self._write(json.dumps({"journal": JOURNAL_VERSION, **header}, separators=(",", ":")))

    def append(self, cell: str, run: int, rows: Iterable[Iterable[Any]]) -> None:
        self._write("\n".join(json.dumps([cell, run, *r], separators=(",", ":")) for r in rows))

    def _write(self, text: str) -> None:
        try:
            self._append(text)
        except OSError as e:  # name the journal (a full disk names no file)
            raise OSError(e.errno, e.strerror or str(e), str(self.path)) from None

    def _append(self, text: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            torn = False
            if self.path.exists() and self.path.stat().st_size:
                with open(self.path, "rb") as f:
                    f.seek(-1, os.SEEK_END)
                    torn = f.read(1) != b"\n"
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open
            if torn:  # repair a torn last line before appending after it
                self._file.write("\n")
        self._file.write(text + "\n")
        self._file.flush()
        now = time.monotonic()
        if now - self._synced >= FSYNC_INTERVAL:
            os.fsync(self._file.fileno())
            self._synced = now

    def close(self) -> None:
        if self._file is not None:
            f, self._file = self._file, None
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as e:
                raise OSError(e.errno, e.strerror or str(e), str(self.path)) from None
            finally:
                with contextlib.suppress(OSError):
                    f.close()


LOCK = ".lock"


class CellBusy(Exception):
    """Another process is writing this cell (its lock is held)."""


class CellLock:
    """The exclusive lock of one cell folder (``.lock``, an ``flock``), held by the process that
    computes the cell, so that a second run into the same folder is refused in one line instead
    of computing everything twice.  The lock dies with its process (a kill -9 frees it)."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / LOCK
        self._fd: int | None = None

    def acquire(self) -> CellLock:
        try:
            import fcntl
        except ImportError:  # no flock on this platform: no lock
            return self
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = os.read(fd, 64).decode(errors="replace").strip() or "another process"
            finally:
                os.close(fd)
            raise CellBusy(holder) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None

    def __enter__(self) -> CellLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
