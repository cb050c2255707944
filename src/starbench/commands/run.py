"""``starbench run``: the Hydra app, and only that.

``main(argv)`` plans the command first (``starbench.experiment.plan``: every cell composed and
checked, the first problem one line on stderr and exit status 2, before anything runs;
``--verbose`` shows Hydra's own message), then hands Hydra a ``Task`` that runs one cell
(``experiment.launch.run_one``) and carries the plan to starbench's sweeper and SLURM launcher
(``hydra_plugins``: they read it from the task function Hydra gives them).  The exit status is 1
if any cell has a mismatch, an error or did not finish.  Also ``python -m starbench.commands.run``.
Nothing in this module keeps state between calls: what a launch learns (the cells this process
ran, the SLURM jobs that died) lives in its ``Task``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from starbench.errors import InputError
from starbench.experiment import launch as launching
from starbench.experiment.plan import (
    HYDRA_INFO_FLAGS,
    Plan,
    composition_error,
    exclusive_flags,
    hydra_args,
    hydra_search_path,
    is_complete,
    plan,
    settings_of,
    skipped_line,
    write_manifest,
)
from starbench.ground.configs import CONF_DIR
from starbench.ground.overrides import inline_algorithms, task_overrides


class Task:
    """Hydra's task function for one launch: runs the cell Hydra composed.

    It carries the launch's ``plan`` and the ``jobs`` to launch (the sweeper reads both) and
    collects what the launch learns: ``ran_here``, the cell folders this process ran itself
    (their summaries were shown as they ran), and ``dead``, the SLURM jobs that died (the
    launcher reports them through ``job_died``).  A launcher that runs the task in another
    process gets it without the plan (``__getstate__``): a job needs none of it."""

    def __init__(self, plan: Plan | None = None, jobs: list[list[str]] | None = None):
        self.plan = plan
        self.jobs = jobs
        self.ran_here: set[Path] = set()
        self.dead: list[Any] = []

    def __getstate__(self) -> dict[str, Any]:
        return {"plan": None, "jobs": None, "ran_here": set(), "dead": []}

    def job_died(self, dead: Any) -> None:
        """A job of this launch ended without a result (``experiment.slurm.DeadJob``)."""
        self.dead.append(dead)

    def __call__(self, cfg: Any) -> int:
        from hydra.core.hydra_config import HydraConfig

        hc = HydraConfig.get()
        folder = Path(hc.runtime.output_dir)
        total = os.environ.get("STARBENCH_CELLS")
        if total and int(total) > 1:
            num = int(hc.job.get("num", 0) or 0)
            sys.stderr.write(f"starbench: cell {num + 1}/{total}: {folder}\n")
        self.ran_here.add(folder.resolve())
        context = launching.command_context(hc)
        try:
            settings = settings_of(cfg, context["config_dir"])
        except InputError as e:
            sys.stderr.write(f"starbench: error: {e}\n")
            launching.mark_failed(folder, str(e))
            return 2
        return launching.run_one(settings, folder, list(hc.overrides.task), context)


def hydra_main(argv: list[str], task: Task | None = None, prog: str = "starbench run") -> None:
    """Run Hydra's app over ``conf/`` with ``argv`` as its command line and ``task`` (a fresh
    ``Task`` by default) as its task function."""
    import hydra

    app = hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")(
        task or Task()
    )
    old = sys.argv
    sys.argv = [prog, *argv]
    try:
        app()
    finally:
        sys.argv = old


def _error(text: str) -> int:
    sys.stderr.write(f"starbench: error: {text}\n")
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = inline_algorithms(list(sys.argv[1:] if argv is None else argv))
    verbose = "--verbose" in argv
    argv = [a for a in argv if a != "--verbose"]
    if not CONF_DIR.is_dir():
        return _error(
            f"no config folder at {CONF_DIR}: this installation of starbench is incomplete; "
            f"reinstall it (pip install starbench, or pip install -e . in its source tree)"
        )
    if any(a in ("--help", "-h") for a in argv):
        from starbench.commands.help import run_help

        try:
            extra = hydra_args([a for a in argv if a not in ("--help", "-h")]).config_dir
        except InputError:
            extra = None
        sys.stdout.write(run_help(CONF_DIR, Path(extra) if extra else None))
        return 0
    try:
        args = hydra_args(argv)
        clash = exclusive_flags(args)
    except InputError as e:
        return _error(str(e))
    if clash:
        return _error(clash)
    if args.shell_completion:
        # Hydra's own completion: `eval "$(starbench run -sc install=bash)"` installs it for the
        # `starbench` command, whose `starbench -sc query=bash` (cli.main) answers the shell
        hydra_main(argv, prog="starbench")
        return 0
    if any(a.split("=")[0] in HYDRA_INFO_FLAGS for a in argv):
        try:  # composition errors are one line here too
            with hydra_search_path(args.config_dir):
                from hydra import compose
                from hydra.core.override_parser.overrides_parser import OverridesParser

                parsed = OverridesParser.create().parse_overrides(args.overrides)
                fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
                compose(args.config_name or "config", overrides=fixed)
        except InputError as e:
            return _error(str(e))
        except Exception as e:
            if verbose:
                raise
            return _error(f"{composition_error(e)} (--verbose for details)")
        hydra_main(argv)  # --cfg job, --info, ...: Hydra answers, nothing runs
        return 0
    try:
        planned = plan(argv)
    except InputError as e:
        return _error(str(e))
    except Exception as e:  # Hydra's composition errors: one line unless --verbose
        if verbose:
            raise
        return _error(f"{composition_error(e)} (--verbose for details)")
    return launch(planned, list(args.overrides))


def launch(planned: Plan, overrides: list[str]) -> int:
    """Say the plan's notes, record a sweep's manifest, run the complete cells here (nothing to
    launch for them), launch the rest through Hydra, and report: the run's exit status."""
    for line in planned.notes:
        sys.stderr.write(line + "\n")
    if planned.sweep_dir is not None:
        try:
            write_manifest(planned)
        except InputError as e:
            return _error(str(e))
    cells = list(planned.cells)
    done = [c for c in cells if is_complete(c.folder)]
    jobs = [list(j) for j in planned.jobs]
    task = Task(planned, jobs)
    code = 0
    if done and (len(done) == len(cells) or planned.own_sweeper):
        # complete cells are not launched (no job, no queue slot on a cluster): each is still
        # verified and summarised here, as its job would have done
        if planned.multirun and len(done) == len(cells):  # nothing is launched: said here
            sys.stderr.write(skipped_line(len(done)) + "\n")
        context = planned.context(overrides, sweep=planned.multirun)
        for i, (cell_overrides, settings, folder) in enumerate(done):
            if len(done) > 1:
                sys.stderr.write(f"starbench: complete cell {i + 1}/{len(done)}: {folder}\n")
            task.ran_here.add(folder.resolve())
            one = launching.run_one(settings, folder, task_overrides(cell_overrides), context)
            code = max(code, one)
        if len(done) == len(cells):
            return code or launching.exit_status(cells)
        # the sweeper launches the other cells' jobs only, and says how many cells it skipped
        task.jobs = planned.jobs_without(done)
        sys.stderr.write(skipped_line(len(done)) + "\n")
    launched = len(task.jobs) if planned.multirun else len(cells)
    os.environ["STARBENCH_CELLS"] = str(launched)  # each job's "cell i/N" line
    failed = False
    try:
        hydra_main(list(planned.launch), task)
    except SystemExit as e:  # Hydra exits 1 when a job of a sweep failed
        if e.code == 2:  # the launcher refused the launch (a line said why)
            return 2
        failed = e.code not in (0, None)
    dead = [launching.mark_dead(d, planned) for d in task.dead]
    if planned.multirun and planned.output_elsewhere:
        launching.report_elsewhere(cells, task.ran_here)
    for line in dead:
        sys.stderr.write(f"starbench: {line}\n")
    code = max(code, launching.exit_status(cells), 1 if dead else 0)
    return max(1, code) if failed else code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
