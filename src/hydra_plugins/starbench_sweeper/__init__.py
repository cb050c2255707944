"""starbench's Hydra sweeper: the union of several sweeps, launched as one batch.

An experiment may list several sweeps under its top-level ``sweeps`` key (each a mapping of key
to comma-separated values, like ``hydra.sweeper.params``); the study is the union of their
grids.  Hydra's basic sweeper expands one grid per launch, so several sweeps used to mean several
launches, and on SLURM each waited for its job array to finish before the next was submitted.
This sweeper expands every grid (each one combined with ``hydra.sweeper.params`` and the command
line's overrides, as the basic sweeper would) and hands all cells to the launcher at once: one
job array for the whole study.  ``starbench run`` selects it (``hydra/sweeper=starbench``) for
every multirun (unless a sweeper is given), and hands it the jobs it planned through the task
function (``starbench.commands.run.Task``: its ``jobs``, the planned cells' jobs without those
of the cells already complete): jobs that land in one cell (a parameter without effect, normalised
away) are launched once.  Run by Hydra otherwise (no planned jobs), it expands the grids
itself.  It keeps no state of its own between launches.

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


ConfigStore.instance().store(
    group="hydra/sweeper", name="starbench", node=UnionSweeperConf, provider="starbench"
)


def _reported(result: Any) -> bool:
    """Is this a SLURM job that died (``starbench.experiment.slurm.JobDied``)?  The command
    reports those itself, in one line each, after the other cells finish."""
    from starbench.experiment.slurm import JobDied

    return isinstance(getattr(result, "_return_value", None), JobDied)


class UnionSweeper(BasicSweeper):
    """Hydra's basic sweeper over the union of the config's ``sweeps`` grids, in one batch
    (or batches of ``max_batch_size``)."""

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        super().setup(hydra_context=hydra_context, task_function=task_function, config=config)
        #: the jobs ``starbench run`` planned for this launch (``starbench.commands.run.Task.jobs``)
        self.planned = getattr(task_function, "jobs", None)

    def sweep(self, arguments: list[str]) -> Any:
        assert self.config is not None and self.launcher is not None
        assert self.hydra_context is not None
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        given = self.config.get("sweeps")
        sweeps = OmegaConf.to_container(given, resolve=False) if given else []
        if self.planned is not None:
            cells = [list(job) for job in self.planned]
        else:
            from starbench.experiment.plan import union_cells

            cells = union_cells(list(sweeps), self.params, list(arguments), parser)
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
