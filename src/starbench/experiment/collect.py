"""``starbench collect DIR``: one tidy table from every cell below DIR, and what is missing.

Cells are the folders holding a ``cell.json``.  A table that cannot be read is reported
(``unreadable``) with the command that rebuilds it, and the other cells are still collected.
A sweep folder also holds ``sweep.json`` (written
by ``starbench run`` before launching), the list of the cells it asked for, so cells that never
started are reported as missing.  Every problem comes with the command that reruns the cell
(completed rows are kept: the rerun continues the cell).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from starbench.experiment.storage import CELL, TABLE, atomic_write, read_json

COLLECTED = "collected.parquet"


@dataclass
class Collected:
    table: Path | None
    rows: int
    cells: int
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, folder, command)


def rerun_command(overrides: list[str], folder: Path) -> str:
    from starbench.run import outline_algorithms

    keep = [
        outline_algorithms(o)
        for o in overrides
        if not o.lstrip("+~").startswith(("hydra.run.dir=", "hydra.sweep."))
    ]
    return shlex.join(["starbench", "run", *keep, f"hydra.run.dir={folder}"])


def collect(root: Path, csv: bool = False) -> Collected:
    import pandas as pd

    root = Path(root)
    cells = sorted({p.parent for p in root.rglob(CELL)})
    manifest = read_json(root / "sweep.json") or {"cells": []}
    # cells are sweep_dir/<cell name>: find them below this root wherever it is run from
    expected = {
        (root / Path(c["folder"]).name).resolve(): c["overrides"] for c in manifest["cells"]
    }
    problems: list[tuple[str, str, str]] = []
    frames = []

    def read(table: Path) -> bool:
        try:
            frames.append(pd.read_parquet(table))
        except Exception:  # noqa: BLE001 - any unreadable table is reported, not fatal
            problems.append(("unreadable", str(table), rerun_command(overrides, folder)))
            return False
        return True

    for folder in cells:
        cell = read_json(folder / CELL) or {}
        overrides = expected.get(folder.resolve(), cell.get("overrides") or [])
        status = cell.get("status")
        table = folder / TABLE
        counts = cell.get("counts") or {}
        if status == "complete" and table.exists() and not counts.get("error"):
            read(table)
            continue
        if status == "mismatch" and table.exists():
            if read(table):
                problems.append(("mismatched", str(folder), rerun_command(overrides, folder)))
        elif status in ("complete", "mismatch") and table.exists():
            if read(table):
                problems.append(("failed", str(folder), rerun_command(overrides, folder)))
        else:
            kind = "failed" if status == "failed" else "incomplete"
            problems.append((kind, str(folder), rerun_command(overrides, folder)))
    found = {c.resolve() for c in cells}
    for folder, overrides in expected.items():
        if folder not in found:
            problems.append(("missing", str(folder), rerun_command(overrides, folder)))
    if not frames:
        return Collected(None, 0, len(cells), problems)
    df = pd.concat(frames, ignore_index=True)
    out = root / COLLECTED
    atomic_write(out, lambda p: df.to_parquet(p, index=False))
    if csv:
        atomic_write(root / "collected.csv", lambda p: df.to_csv(p, index=False))
    return Collected(out, len(df), len(cells), problems)
