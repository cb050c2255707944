"""``starbench collect DIR``: one tidy table from every cell below DIR, and what is missing.

Cells are the folders holding a ``cell.json``.  A table that cannot be read or fails its
checksum is reported (``corrupt``, one line saying why) with the command that rebuilds it, and
the other cells are still collected.  ``collected.parquet`` gets its own checksum in
``collected.json``.
A sweep folder also holds ``sweep.json`` (written
by ``starbench run`` before launching), the list of the cells it asked for and each one's request
(``coverage.Request``), so cells that never started are reported as missing.  Every cell's table
is checked against what was asked of it (its sweep's request, else the last command's):
a cell short of it is ``incomplete``, named with the command that completes it (a cell run in
shards whose table is not written yet: the command for exactly the shards that lack rows, and
when none does, ``collect`` writes the table from the shards' journals itself); a
cell holding more than it was asked (an algorithm added to one cell) is listed in one line and
is no problem.
Every problem comes with the command that reruns the cell (completed rows are kept: the rerun
continues the cell).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starbench.experiment.stages import cell_status
from starbench.ground.files import atomic_write, file_digest
from starbench.ground.overrides import without_shard
from starbench.record import tablefile
from starbench.record.coverage import Coverage, Request, check, held_of_table
from starbench.record.integrity import read_document, write_document
from starbench.record.repair import command_of, rerun_command, unverifiable_line
from starbench.record.storage import (
    CELL,
    JOURNAL,
    MANIFEST,
    SHARD_JOURNALS,
    TABLE,
    shard_journals,
)

COLLECTED = "collected.parquet"


@dataclass
class Collected:
    table: Path | None
    rows: int
    cells: int
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, folder, command)
    coverage: list[tuple[str, Coverage]] = field(default_factory=list)  # (folder, coverage)
    used: int = 0  # the cells whose tables are in ``table``

    @property
    def beyond(self) -> list[tuple[str, Coverage]]:
        """The complete cells that hold more than they were asked for."""
        return [(f, c) for f, c in self.coverage if c.complete and c.extra]


def request_of(cell: dict[str, Any], manifest: dict[str, Any] | None) -> Request | None:
    """What was asked of a cell: its sweep's request, else the last command's (``cell.json``),
    else (cells stored before requests were recorded) the algorithms and trees it lists."""
    for source in (manifest, cell):
        if source and source.get("request"):
            return Request.from_json(source["request"])
    if cell.get("algorithms"):
        return Request.from_json({"algorithms": cell["algorithms"], "trees": cell.get("trees")})
    return None


def _sharded(folder: Path, asked: dict[str, Any] | None) -> tuple[str, str, str] | None:
    """A cell computed in shards whose table is not written yet: ``incomplete``, with the
    command for exactly the shards that lack rows.  When none does (the last shard ended before
    it wrote the table), the table and ``cell.json`` are written here from the shards'
    journals, as the last shard would have (None); the command that does it if that fails."""
    from starbench.experiment import shards

    recorded, context = shards.recorded_command(folder)
    overrides = list((asked or {}).get("overrides") or recorded)
    command = command_of(asked, {"command": context} if context else None)
    request = request_of({}, asked)
    n = shards.shards_of(overrides, folder)
    missing = shards.missing_of_request(folder, request, n) if request is not None else []
    if missing:
        again = shards.missing_command(overrides, folder, command, missing)
        return ("incomplete", str(folder), again)
    again = rerun_command(without_shard(overrides), folder, command)
    if _write_sharded_table(folder, again, context):
        return None
    return ("incomplete", str(folder), again)


def _write_sharded_table(folder: Path, command: str, context: dict[str, Any] | None) -> bool:
    """Write the table of a sharded cell whose shards are all done, with the settings its own
    command composes; False (nothing written) when that fails."""
    import shlex

    from starbench.experiment import shards
    from starbench.experiment.plan import plan

    try:
        cells = plan(shlex.split(command)[2:]).cells
        (overrides, settings, _f), *_ = [c for c in cells if c.folder.resolve() == folder.resolve()]
        n = min(settings.shards, settings.trees)
        quiet = lambda _line: None  # noqa: E731 - collect reports the cell itself
        shards.finish(settings, folder, n, {}, overrides, quiet, quiet, context)
    except Exception:  # noqa: BLE001 - reported as incomplete, with the command that does it
        return False
    return read_document(folder / CELL).intact


def collect(root: Path, csv: bool = False, write: bool = True) -> Collected:
    """Every readable cell below ``root`` into ``root/collected.parquet`` (and its checksum in
    ``collected.json``), with the problems and each cell's coverage; ``write=False`` checks and
    reads only (``table`` None: nothing written, a committed study's checkout untouched)."""
    import pandas as pd

    root = Path(root)
    # a cell is a folder holding any of a cell's files (a lost cell.json is reported, not missed)
    cells = sorted(
        {p.parent for name in (CELL, TABLE, JOURNAL, SHARD_JOURNALS) for p in root.rglob(name)}
    )
    problems: list[tuple[str, str, str]] = []
    sweep = read_document(root / MANIFEST)
    if sweep.damaged:
        problems.append(
            (
                "damaged",
                f"{sweep.path}: {sweep.why()}; the cells it lists are not checked: restore it "
                f"with git checkout -- {sweep.path}, or rerun the sweep (it writes it again)",
                "",
            )
        )
    manifest = sweep.data or {"cells": []}
    # cells are sweep_dir/<cell name>: find them below this root wherever it is run from
    expected = {(root / Path(c["folder"]).name).resolve(): c for c in manifest["cells"]}
    coverage: list[tuple[str, Coverage]] = []
    frames = []

    def read(table: Path) -> Any:
        try:
            df = tablefile.read(table)
        except tablefile.CorruptTable as e:  # reported with its reason, not collected
            problems.append(("corrupt", str(e), rerun_command(overrides, folder, command)))
            return None
        frames.append(df)
        return df

    for folder in cells:
        doc = read_document(folder / CELL)
        if doc.state == "missing" and shard_journals(folder):
            problem = _sharded(folder, expected.get(folder.resolve()))
            if problem is not None:
                problems.append(problem)
                continue
            doc = read_document(folder / CELL)  # every shard was done: its table now written
        if not doc.intact:  # nothing of the cell is trusted without it: never "incomplete"
            problems.append(("damaged", unverifiable_line(folder, doc), ""))
            continue
        cell = doc.data or {}
        asked = expected.get(folder.resolve())
        overrides = (asked or {}).get("overrides") or cell.get("overrides") or []
        command = command_of(asked, cell)
        status = cell_status(cell)
        table = folder / TABLE
        counts = cell.get("counts") or {}
        df = None
        if status in ("complete", "mismatch") and table.exists():
            df = read(table)
            if df is not None and status == "mismatch":
                problems.append(
                    ("mismatched", str(folder), rerun_command(overrides, folder, command))
                )
            elif df is not None and counts.get("error"):
                problems.append(("failed", str(folder), rerun_command(overrides, folder, command)))
        else:
            kind = {"failed": "failed", "interrupted": "interrupted"}.get(status, "incomplete")
            problems.append((kind, str(folder), rerun_command(overrides, folder, command)))
        request = request_of(cell, asked)
        if df is not None and request is not None:
            cov = check(held_of_table(df), request)
            coverage.append((str(folder), cov))
            if not cov.complete:
                problems.append(
                    ("incomplete", str(folder), rerun_command(overrides, folder, command))
                )
    found = {c.resolve() for c in cells}
    for folder, asked in expected.items():
        if folder not in found:
            again = rerun_command(asked["overrides"], folder, command_of(asked, None))
            problems.append(("missing", str(folder), again))
    if not frames or not write:
        rows = sum(len(f) for f in frames)
        return Collected(None, rows, len(cells), problems, coverage, used=len(frames))
    df = pd.concat(frames, ignore_index=True)
    out = root / COLLECTED
    atomic_write(out, lambda p: df.to_parquet(p, index=False, write_page_checksum=True))
    tables = {COLLECTED: file_digest(out)}
    if csv:
        atomic_write(root / "collected.csv", lambda p: df.to_csv(p, index=False))
        tables["collected.csv"] = file_digest(root / "collected.csv")
    # the collected table's checksum, checked by every reader (``tablefile.read``)
    write_document(
        out.with_suffix(".json"), {"rows": len(df), "cells": len(frames), "tables": tables}, None
    )
    return Collected(out, len(df), len(cells), problems, coverage, used=len(frames))
