"""Result storage: an append-only row journal per cell, the cell folder's files by name, its lock.

A cell folder holds

* ``rows.jsonl``: the journal (version 3).  Each run that computes something first appends a
  *run header*, a JSON object ``{"journal": 3, "cell": ID, "run": N, "fields": [...],
  "identity": {...}, "budgets": {...}, "meta": {...}, "overrides": [...]}`` (the cell's identity,
  the run's budgets, metadata and command, once), then one JSON array per finished search,
  ``[ID, N, value, ...]`` with the values in the order of ``fields``.  Every line ends in a tab
  and the CRC-32 of its JSON (``integrity.sign``): a line that fails it or does not decode is
  never adopted (its row is computed again, the line kept in ``rows.jsonl.rejected``, one line
  says which); a version-2 journal (no checksums) is adopted once, said in one line, and
  rewritten as version 3.  Every row names its cell and its run; a folder whose rows name
  another cell is refused.  Lines are flushed as each instance completes (a kill -9 loses
  nothing: the page cache survives the process) and fsync'ed at most a few times a second and
  when the cell ends; after a crash of the machine only the last line can be incomplete, and it
  is ignored silently;
* ``cell.json``: what the cell is (tree, seed, generator version, commit), its status, the
  overrides that rerun it, and the SHA-256 of each table file (``tables``), which every reader
  checks before it uses the table (``tablefile.read``); the document carries the SHA-256 of its
  own canonical JSON (``integrity.seal``), so a damaged ``cell.json`` is never trusted;
* ``table.parquet`` (and ``table.csv`` on request): the tidy table, written atomically
  (temporary file ``.<name>.<pid>.<random>.tmp`` in the same folder, then ``os.replace``;
  temporaries left by a killed process are removed by the next write).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from starbench.record.integrity import Line, parse_line, read_document, read_lines, sign

JOURNAL = "rows.jsonl"
CELL = "cell.json"
TABLE = "table.parquet"
TABLE_CSV = "table.csv"
MANIFEST = "sweep.json"  # a sweep folder's list of the cells it asked for
JOURNAL_VERSION = 3
READABLE_VERSIONS = (2, 3)  # version 2 (no checksums) is adopted once and rewritten as 3
FSYNC_INTERVAL = 0.5  # seconds between fsyncs of the journal while a cell runs


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON document (``cell.json``, ``sweep.json``, ...) when it is intact (its ``sha256``
    holds, or it has none: ``integrity.read_document``), without that field; else None."""
    return read_document(Path(path)).data


def _unchecked(line: Line, checked: bool) -> Line:
    why = "has no checksum" if checked else "has a checksum in a version-2 journal"
    return Line(line.number, None, False, why, line.raw)


@dataclass
class JournalContents:
    """What a journal holds: its run headers by run number, its rows (dicts of ``fields``
    plus ``run``), the cells named by any line, lines of an older format (version 1, no run
    headers), its version (2: lines without checksums, 3: checksummed), the bad lines (failing
    their checksum or not decoding: never adopted), the rows dropped because their run header
    was bad, and whether its last line was torn."""

    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    cells: set[str] = field(default_factory=set)
    legacy: int = 0
    version: int = JOURNAL_VERSION
    bad: list[Line] = field(default_factory=list)
    orphans: list[Line] = field(default_factory=list)
    torn: bool = False
    #: the line each row came from (parallel to ``rows``)
    row_lines: list[Line] = field(default_factory=list)

    @property
    def needs_rewrite(self) -> bool:
        """Is the journal to be rewritten (as version 3, without its bad or torn lines)?"""
        return bool(self.bad or self.orphans or self.torn or self.version != JOURNAL_VERSION)


def shard_journal(shard: int, shards: int) -> str:
    """The journal of shard ``shard`` of ``shards`` (``rows.shard-3-of-8.jsonl``): the only file
    that shard writes."""
    return f"rows.shard-{shard}-of-{shards}.jsonl"


#: Every shard journal of a cell folder, whatever its number of shards.
SHARD_JOURNALS = "rows.shard-*-of-*.jsonl"


def shard_journals(folder: Path) -> list[Path]:
    """The shard journals in ``folder`` (sorted by name; their rows are adopted row by row)."""
    return sorted(p for p in Path(folder).glob(SHARD_JOURNALS) if p.is_file())


class Journal:
    """The append-only row journal of one cell (``rows.jsonl``) or of one of its shards
    (``shard_journal``): each line checksummed (``integrity``)."""

    def __init__(self, folder: Path, name: str = JOURNAL):
        self.path = Path(folder) / name
        self._file: Any = None
        self._synced = 0.0

    def first_header(self) -> dict[str, Any] | None:
        """The first run header (cheap: the journal's first line), or None when that line is
        not a run header or is damaged."""
        try:
            with open(self.path, "rb") as f:
                raw = f.readline()
        except OSError:
            return None
        if not raw.endswith(b"\n"):
            return None
        line = parse_line(1, raw[:-1], legacy=True)
        head = line.value
        if not isinstance(head, dict) or head.get("journal") not in READABLE_VERSIONS:
            return None
        if line.checked != (head["journal"] == JOURNAL_VERSION):
            return None  # a version-3 header without its checksum, or the reverse
        return head

    def read(self, make_row: Callable[[dict[str, Any]], Any] = dict) -> JournalContents:
        out = JournalContents()
        if not self.path.exists():
            return out
        lines, out.torn = read_lines(self.path, legacy=True)
        # the journal's version: that of its first run header that reads (version 2 headers
        # have no checksum; a version-3 journal is checked line by line)
        for ln in lines:
            version = ln.value.get("journal") if isinstance(ln.value, dict) else None
            if version in READABLE_VERSIONS and ln.checked == (version == JOURNAL_VERSION):
                out.version = int(version)
                break
        checked = out.version == JOURNAL_VERSION
        fields_of: dict[int, list[str]] = {}
        for ln in lines:
            rec = ln.value
            if ln.problem is not None or ln.checked != checked:
                out.bad.append(ln if ln.problem else _unchecked(ln, checked))
                continue
            if isinstance(rec, list) and len(rec) >= 2:
                cell, run, *values = rec
                out.cells.add(str(cell))
                names = fields_of.get(run)
                if names is None or len(names) != len(values):
                    out.orphans.append(ln)  # its run header is lost: not provably this cell's
                    continue
                row = dict(zip(names, values, strict=True))
                row["run"] = run
                out.rows.append(make_row(row))
                out.row_lines.append(ln)
            elif isinstance(rec, dict) and rec.get("journal") == out.version:
                out.cells.add(str(rec.get("cell")))
                fields_of[rec["run"]] = list(rec["fields"])
                out.runs[rec["run"]] = {**rec, "journal": JOURNAL_VERSION}
            else:
                out.legacy += 1
        return out

    def rewrite(self, contents: JournalContents) -> None:
        """Rewrite the journal as version 3 with the lines ``contents`` adopted (its bad,
        orphaned and torn lines left out; the bad and orphaned ones appended to
        ``rows.jsonl.rejected``)."""
        from starbench.record.integrity import keep_rejected, rewrite

        self.close()
        dropped = {ln.number for ln in (*contents.bad, *contents.orphans)}
        if dropped:
            rejected = sorted((*contents.bad, *contents.orphans), key=attrgetter("number"))
            keep_rejected(self.path, rejected)
        lines, _torn = read_lines(self.path, legacy=True)
        texts = []
        for ln in lines:
            if ln.number in dropped or ln.value is None:
                continue
            rec = ln.value
            if isinstance(rec, dict) and "journal" in rec:
                rec = {**rec, "journal": JOURNAL_VERSION}
            texts.append(json.dumps(rec, separators=(",", ":")))
        rewrite(self.path, texts)

    def append_header(self, header: dict[str, Any]) -> None:
        text = json.dumps({**header, "journal": JOURNAL_VERSION}, separators=(",", ":"))
        self._write(sign(text))

    def append(self, cell: str, run: int, rows: Iterable[Iterable[Any]]) -> None:
        self._write(
            "\n".join(sign(json.dumps([cell, run, *r], separators=(",", ":"))) for r in rows)
        )

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


def shard_lock(shard: int) -> str:
    """The lock a shard holds while it computes (``.lock.shard-3``)."""
    return f"{LOCK}.shard-{shard}"


class CellLock:
    """The exclusive lock of one cell folder (``.lock``, an ``flock``), held by the process that
    computes the cell, so that a second run into the same folder is refused in one line instead
    of computing everything twice; a shard holds its own (``shard_lock``).  The lock dies with
    its process (a kill -9 frees it)."""

    def __init__(self, folder: Path, name: str = LOCK):
        self.path = Path(folder) / name
        self._fd: int | None = None

    def acquire(self, wait: float = 0.0) -> CellLock:
        """Take the lock, waiting up to ``wait`` seconds for its holder; ``CellBusy`` (naming
        the holder) if it is still held."""
        try:
            import fcntl
        except ImportError:  # no flock on this platform: no lock
            return self
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        end = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() < end:
                    time.sleep(0.05)
                    continue
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
