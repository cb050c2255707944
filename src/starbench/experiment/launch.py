"""Running a plan's cells and saying how they ended: one cell, the summaries a launcher's jobs
wrote to their logs, the exit status, and SLURM jobs that died.

The Hydra entry (``starbench.commands.run``) hands each cell that Hydra launches to
``run_one``; after the launch it reports what the cells' folders say (``cell.json``,
``run.log``), never what it remembers: a cell run by a joblib worker, a submitit or SLURM job is
read from disk like one run in this process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starbench.errors import InputError, WriteFailed
from starbench.experiment.cellfolder import FolderBusy
from starbench.experiment.plan import Cell, Plan
from starbench.experiment.runner import run_cell
from starbench.experiment.settings import RunSettings
from starbench.experiment.stages import RUN_LOG, cell_status, mark
from starbench.ground.overrides import launcher_overrides, without_shard
from starbench.record.integrity import write_document
from starbench.record.repair import rerun_command
from starbench.record.storage import CELL, read_json


def run_one(
    settings: RunSettings, folder: Path, overrides: list[str], context: dict[str, Any]
) -> int:
    """Run one cell (Hydra's task, or the entry itself for a complete cell): its exit code,
    with a failure said in one line."""
    try:
        return run_cell(settings, folder, overrides=overrides, command=context).exit_code
    except WriteFailed as e:  # the disk, not the input: exit 1, the cell marked interrupted
        sys.stderr.write(f"starbench: error: {e}\n")
        return 1
    except InputError as e:
        sys.stderr.write(f"starbench: error: {e}\n")
        if not isinstance(e, FolderBusy):  # a busy folder is the other run's to mark
            mark_failed(folder, str(e))
        return 2


def mark_failed(folder: Path, message: str) -> None:
    """Record in ``cell.json`` that the cell's request was refused."""
    cell = read_json(folder / CELL) or {}
    cell.update(status="failed", error=message)
    write_document(folder / CELL, cell)


def command_context(hc: Any) -> dict[str, Any]:
    """What a cell's command had beside its overrides, read from Hydra's runtime config ``hc``,
    so that the command starbench prints to rerun it works as printed
    (``record.repair.rerun_command``): the config folder (``-cd``, absolute), the config
    name (``-cn``, when not the default), the launcher overrides (``hydra/launcher=...``,
    ``hydra.launcher.*``) and whether it ran as a cell of a sweep."""
    from hydra.types import RunMode

    config_dir = next(  # Hydra's record of -cd: provider command-line, schema file
        (
            str(s.path).removeprefix("file://")
            for s in hc.runtime.config_sources
            if s.provider == "command-line" and s.schema == "file"
        ),
        None,
    )
    name = hc.job.config_name
    return {
        "config_dir": str(Path(config_dir).resolve()) if config_dir else None,
        "config_name": name if name and name != "config" else None,
        "launcher": launcher_overrides(hc.overrides.hydra),
        "sweep": hc.mode == RunMode.MULTIRUN,
    }


def report_elsewhere(
    cells: Iterable[Cell], ran_here: set[Path], show: Callable[[str], None] = print
) -> None:
    """Show the summary of every cell another process ran (joblib workers, submitit and SLURM
    jobs, whose own output went to their logs), read from the cell's ``run.log``; the cells in
    ``ran_here`` showed theirs as they ran."""
    cells = list(cells)
    for i, (_overrides, _settings, folder) in enumerate(cells, 1):
        if folder.resolve() in ran_here:
            continue
        status = (read_json(folder / CELL) or {}).get("status", "not run")
        try:
            log = (folder / RUN_LOG).read_text(encoding="utf-8").splitlines()
        except OSError:
            log = []
        start = max((n for n, line in enumerate(log) if line.startswith("table: ")), default=None)
        show(f"cell {i}/{len(cells)}: {folder} ({status})")
        if start is not None:
            show("\n".join(log[start + 1 :]))


def exit_status(cells: Iterable[Cell]) -> int:
    """The run's exit status from its cells' folders: 2 for a single cell whose request was
    refused, 1 if any cell failed, has a mismatch or an error, or did not finish, else 0."""
    cells = list(cells)
    code = 0
    for _overrides, settings, folder in cells:
        cell = read_json(folder / CELL) or {}
        status = cell_status(cell)
        if not cell and settings.shards > 1 and settings.shard is not None:
            continue  # only some shards were asked for: the cell is complete when all are
        if status == "failed":
            return 2 if len(cells) == 1 else 1
        if status != "complete" or (cell.get("counts") or {}).get("error"):
            code = 1
    return code


def mark_dead(dead: Any, plan: Plan | None) -> str:
    """Mark the cell of a SLURM job that died (``experiment.slurm.DeadJob``) interrupted (its
    journaled rows are kept; a job killed outright could not say so itself) and return the one
    line that reports it, with the command that reruns the cell under the same launcher."""
    own = without_shard(dead.overrides)  # a shard's job: its cell's overrides
    cells = plan.cells if plan is not None else ()
    folder = next((f for o, _s, f in cells if without_shard(o) == own), None)
    if folder is None or plan is None:  # not a planned cell (Hydra run without a plan)
        return f"a cell ({' '.join(dead.overrides)}): {dead.describe()}"
    mark(folder, "interrupted", dead.describe())
    again = rerun_command(list(dead.overrides), folder, plan.context(list(dead.overrides), True))
    shard = [o for o in dead.overrides if o not in own]
    what = f"{shard[0]} of cell" if shard else "cell"
    return f"{what} {folder}: {dead.describe()} (its journaled rows are kept); rerun: {again}"
