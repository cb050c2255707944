"""starbench's SLURM launcher: hydra-submitit-launcher's, with jobs that die reported, not awaited.

``conf/hydra/launcher/slurm.yaml`` (``hydra/launcher=slurm``) selects it.  It submits the cells
as submitit's ``SlurmLauncher`` does (one job array, the same parameters), and differs in three
places (``starbench.experiment.slurm`` holds the logic):

* it waits with ``await_jobs``: a job that ended without a result (cancelled, timed out, its
  node lost; with or without ``sacct``) is a ``DeadJob`` the driver reports in one line with the
  command that reruns the cell, instead of a wait that never ends or a traceback;
* a submission sbatch refuses is one line (``submission_line``), exit 2;
* in the job, SIGTERM (``scancel``) stops the cell at once (``stop_on_sigterm``), where submitit
  ignores it until SLURM kills the job ``KillWait`` seconds later.

Hydra only instantiates plugins from the ``hydra_plugins`` package, hence this module's place.
"""

import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher
from omegaconf import OmegaConf

log = logging.getLogger(__name__)


class StarbenchSlurmLauncher(SlurmLauncher):
    """``SlurmLauncher`` that reports dead jobs and stops a job on SIGTERM."""

    def __call__(self, *args: Any, **kwargs: Any) -> JobReturn:  # in the job
        from starbench.experiment.slurm import JobCancelled, stop_on_sigterm

        stop_on_sigterm()
        try:
            return super().__call__(*args, **kwargs)
        except JobCancelled as e:  # the cell is marked interrupted; its rows are kept
            sys.stderr.write(f"starbench: {e}; the cell stops (its rows are kept)\n")
            raise SystemExit(143) from None

    def _executor(self) -> Any:
        """submitit's executor with this launch's parameters (as hydra-submitit-launcher's own
        ``launch`` builds it)."""
        import submitit

        folder = {"folder": self.params["submitit_folder"]}
        init = {"max_num_timeout"}
        folder.update({f"slurm_{k}": v for k, v in self.params.items() if k in init})
        executor = submitit.AutoExecutor(cluster="slurm", **folder)
        base = set(OmegaConf.structured(BaseQueueConf).keys())
        executor.update_parameters(
            **{
                k if k in base else f"slurm_{k}": v
                for k, v in self.params.items()
                if k not in init | {"submitit_folder"}
            }
        )
        return executor

    def launch(
        self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
    ) -> Sequence[JobReturn]:
        from submitit.core.utils import FailedJobError

        from starbench.experiment import slurm

        assert self.config is not None and len(job_overrides) > 0
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        if "mode" in self.config.hydra.sweep:
            os.chmod(sweep_dir, mode=int(str(self.config.hydra.sweep.mode), 8))
        n = len(job_overrides)
        nums = list(range(initial_job_idx, initial_job_idx + n))
        for num, overrides in zip(nums, job_overrides, strict=True):
            log.info(f"\t#{num} : {' '.join(filter_overrides(overrides))}")
        try:  # the arguments of ``__call__``, one list per parameter
            jobs = self._executor().map_array(
                self,
                [list(o) for o in job_overrides],
                ["hydra.sweep.dir"] * n,
                nums,
                [f"job_id_for_{num}" for num in nums],
                [Singleton.get_state()] * n,
            )
        except FailedJobError as e:
            sys.stderr.write(f"starbench: error: {slurm.submission_line(e)}\n")
            raise SystemExit(2) from None
        try:
            out = slurm.await_jobs(jobs, job_overrides)
        except slurm.NeverStarts as e:  # its jobs are cancelled: one line, exit 2
            sys.stderr.write(f"starbench: error: {e}\n")
            raise SystemExit(2) from None
        said = getattr(
            self.task_function, "job_died", None
        )  # starbench.commands.run.Task reports them
        for r in out:
            if isinstance(r, slurm.DeadJob) and said is not None:
                said(r)
        return [slurm.died(r) if isinstance(r, slurm.DeadJob) else r for r in out]
