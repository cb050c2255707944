"""The runner: every algorithm on the same trees, values verified, rows saved as they complete.

One cell (``run_cell``): check the folder (``cellfolder``), take the cell's lock, and run its
stages (``stages``: load what it holds, ask what is pending, compute it, write the table and
``cell.json``); a cell asked in ``shards`` goes to ``shards``, the stages' other caller.  A full
disk or a lost mount is one line and the cell marked interrupted (its journaled rows are kept);
an interrupted run never leaves the cell marked running.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starbench.errors import ConfigError, WriteFailed
from starbench.experiment import cellfolder, shards, stages
from starbench.experiment.settings import RunSettings
from starbench.experiment.stages import CellOutcome
from starbench.record.storage import CellBusy, CellLock


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")


def run_cell(
    settings: RunSettings,
    folder: Path,
    *,
    overrides: list[str] | None = None,
    out: Callable[[str], None] = print,
    warn: Callable[[str], None] = _stderr,
    command: dict[str, Any] | None = None,
) -> CellOutcome:
    """Run (or continue) one cell in ``folder``; write its table; return what happened.  What
    it prints (progress, notes, the summary) also goes to the cell's ``run.log``."""
    folder = Path(folder)
    cellfolder.check_writable(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"hydra.run.dir: cannot create {folder} ({e.strerror})") from None
    if settings.shards > 1:
        return shards.run_shards(settings, folder, overrides, out, warn, command)
    lock = CellLock(folder)
    try:
        lock.acquire()
    except CellBusy as e:
        raise cellfolder.busy(folder, "hydra.run.dir", str(e)) from None
    try:
        cellfolder.check_unlocked(folder, cell=False)  # no shard of the cell is computing
        return stages.run_whole(settings, folder, overrides, out, warn, command)
    except OSError as e:  # a full disk, a lost mount: one line, the journaled rows are kept
        where = e.filename or folder
        message = (
            f"{where}: cannot write ({e.strerror or e}); the cell is marked interrupted, the rows "
            f"journaled so far are kept, and the same command continues it"
        )
        stages.mark(folder, "interrupted", message)
        raise WriteFailed(message) from None
    except BaseException as e:  # killed (Ctrl-C) or failed: never left "running"
        stages.mark(folder, "interrupted", f"{type(e).__name__}: {e}")
        raise
    finally:
        lock.release()
