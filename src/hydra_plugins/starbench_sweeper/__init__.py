"""starbench's Hydra sweeper: the union of several sweeps, launched as one batch.

An experiment may list several sweeps under its top-level ``sweeps`` key (each a mapping of key
to comma-separated values, like ``hydra.sweeper.params``); the study is the union of their
grids.  Hydra's basic sweeper expands one grid per launch, so several sweeps used to mean several
launches, and on SLURM each waited for its job array to finish before the next was submitted.
This sweeper expands every grid (each one combined with ``hydra.sweeper.params`` and the command
line's overrides, as the basic sweeper would) and hands all cells to the launcher at once: one
job array for the whole study.  ``starbench run`` selects it (``hydra/sweeper=starbench``) for
every multirun (unless a sweeper is given), and hands it the cells it planned (``PLANNED``):
jobs that land in one cell (a parameter without effect, normalised away) are launched once.

Hydra only instantiates plugins from the ``hydra_plugins`` package, hence this module's place.
"""

# No ``from __future__ import annotations``: Hydra's plugin scan executes this module outside
# ``sys.modules``, where dataclasses cannot resolve string annotations.
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.config_store import ConfigStore
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf


@dataclass
class UnionSweeperConf:
    _target_: str = "hydra_plugins.starbench_sweeper.UnionSweeper"
    max_batch_size: Optional[int] = None  # noqa: UP045  (OmegaConf reads the annotation)
    params: Optional[dict[str, str]] = None  # noqa: UP045


#: The cells ``starbench run`` planned for this launch (each cell once, checked before anything
#: runs), set by its ``plan``; empty when Hydra is run otherwise, and the sweeper expands the
#: grids itself.
PLANNED: list = []
#: The overrides of the planned cells that are already complete: ``starbench run`` verified
#: and summarised them itself, so their jobs (a sharded cell's too) are filtered out here before
#: the launch (on a cluster each job is a queue slot), with one line saying how many cells.
COMPLETE: list = []


def launched(cells: list) -> list:
    """``cells`` (jobs) without those of the ``COMPLETE`` cells."""
    from starbench.experiment.shards import without_shard

    done = {tuple(without_shard(c)) for c in COMPLETE}
    return [c for c in cells if tuple(without_shard(c)) not in done]


def skipped_line(cells: int) -> str:
    """The line that says how many complete cells a sweep does not launch."""
    return f"starbench: {cells} complete cells skipped"


ConfigStore.instance().store(
    group="hydra/sweeper", name="starbench", node=UnionSweeperConf, provider="starbench"
)


def union_cells(
    sweeps: list,
    params: dict | None,
    arguments: list,
    parser: Any,  # noqa: UP045
) -> list:
    """Every cell of every sweep (in order, each sweep's grid as the basic sweeper expands it)."""
    base = [f"{k}={v}" for k, v in (params or {}).items()]
    cells: list = []
    for sweep in sweeps or [{}]:
        own = [f"{k}={v}" for k, v in sweep.items()]
        parsed = parser.parse_overrides([*own, *base, *arguments])
        cells.extend(BasicSweeper.split_arguments(parsed, None)[0])
    return cells


def _reported(result: Any) -> bool:
    """Is this a SLURM job that died (``starbench.experiment.slurm.JobDied``)?  The command
    reports those itself, in one line each, after the other cells finish."""
    from starbench.experiment.slurm import JobDied

    return isinstance(getattr(result, "_return_value", None), JobDied)


class UnionSweeper(BasicSweeper):
    """Hydra's basic sweeper over the union of the config's ``sweeps`` grids, in one batch
    (or batches of ``max_batch_size``)."""

    def sweep(self, arguments: list[str]) -> Any:
        assert self.config is not None and self.launcher is not None
        assert self.hydra_context is not None
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        given = self.config.get("sweeps")
        sweeps = OmegaConf.to_container(given, resolve=False) if given else []
        cells = list(PLANNED) or union_cells(list(sweeps), self.params, list(arguments), parser)
        if COMPLETE:
            import sys

            cells = launched(cells)
            sys.stderr.write(skipped_line(len(COMPLETE)) + "\n")
        self.overrides = list(self.split_overrides_to_chunks(cells, self.max_batch_size))
        sweep_dir = Path(self.config.hydra.sweep.dir)
        sweep_dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(self.config, sweep_dir / "multirun.yaml")
        returns = []
        first = 0
        while not self.is_done():
            batch = self.get_job_batch()
            results = self.launcher.launch(batch, initial_job_idx=first)
            for r in results:
                if _reported(r):
                    continue
                _ = r.return_value  # a failed job raises here, as with the basic sweeper
            first += len(batch)
            returns.append(results)
        return returns
