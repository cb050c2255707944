"""SLURM jobs as the driver sees them: submitted, waited for, and reported when they die.

``starbench run -m hydra/launcher=slurm`` submits one job array per launch through submitit
(``hydra_plugins.starbench_slurm``).  submitit waits for a job by its result file and asks
``sacct`` now and then; a job that was cancelled, timed out or lost its node writes no result
file, and without job accounting (no ``slurmdbd``: ``sacct`` exits 1) submitit would wait for it
forever.  This module waits instead:

* every poll asks the job states once for the whole array: ``sacct`` where accounting runs,
  else ``squeue --states=all``, which lists a job for ``MinJobAge`` (300 s by default) after it
  ends, and nothing afterwards;
* a job is done when its result file exists (its cell's outcome, whatever it is);
* a job is **dead** when its state is a final one (``CANCELLED``, ``TIMEOUT``, ``NODE_FAIL``,
  ``FAILED``, ...; or it is no longer listed at all) and its result file is still missing
  ``GRACE_S`` seconds later (a shared file system may show the file late).

The other jobs are waited for as usual; the dead ones are returned as ``DeadJob`` and the
command reports each in one line with the command that reruns its cell (the launcher hands
them to the launch's task, ``starbench.commands.run.Task.job_died``), and exits 1.

On the job side, SLURM asks a job to stop with SIGTERM (``scancel``, a time limit, preemption)
and kills it ``KillWait`` seconds later (30 by default); submitit ignores SIGTERM, so
``stop_on_sigterm`` turns it into ``JobCancelled``: the cell is marked interrupted at once, its
journaled rows are kept, and the process ends.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: States after which a job runs no more (SLURM's ``JOB_STATE_BASE`` values past RUNNING).
FINAL = frozenset(
    {
        "BOOT_FAIL",
        "CANCELLED",
        "COMPLETED",
        "DEADLINE",
        "FAILED",
        "NODE_FAIL",
        "OUT_OF_MEMORY",
        "PREEMPTED",
        "REVOKED",
        "TIMEOUT",
    }
)
#: A job that ended without a result file is dead only if the file is still missing this long
#: after SLURM said it ended (file systems shared over a network show new files late).
GRACE_S = 5.0
#: Seconds between polls: the first, the factor, the longest (a cluster's scheduler is shared).
POLL = (1.0, 1.5, 15.0)
#: What the state of a job no longer listed anywhere is called (it ended long ago).
GONE = "ENDED"


class JobCancelled(BaseException):
    """SLURM asked the job to stop (SIGTERM).  A ``BaseException``, like ``KeyboardInterrupt``,
    so that no ``except Exception`` of a search swallows it; the cell runner marks the cell
    interrupted on its way out."""


@dataclass(frozen=True)
class DeadJob:
    """A job that ended without a result: its SLURM id, its last state, the cell's overrides."""

    job_id: str
    state: str
    overrides: tuple[str, ...]

    def describe(self) -> str:
        return f"its SLURM job {self.job_id} ended {self.state} without finishing"


class JobDied(Exception):
    """The return value of a dead job's ``JobReturn`` (status FAILED): the sweeper leaves it to
    the driver, which reports it in one line."""

    def __init__(self, dead: DeadJob) -> None:
        super().__init__(dead.describe())
        self.dead = dead


def died(dead: DeadJob) -> Any:
    """Hydra's ``JobReturn`` of a dead job: FAILED, its value a ``JobDied``."""
    from hydra.core.utils import JobReturn, JobStatus

    return JobReturn(
        overrides=list(dead.overrides), status=JobStatus.FAILED, _return_value=JobDied(dead)
    )


def stop_on_sigterm() -> None:
    """In a job: SIGTERM raises ``JobCancelled`` in the main thread (submitit ignores it)."""

    def handler(signum: int, frame: Any) -> None:
        raise JobCancelled(f"SLURM sent signal {signal.Signals(signum).name}")

    signal.signal(signal.SIGTERM, handler)


def _array_ids(job_ids: Sequence[str]) -> list[str]:
    """The jobs to ask about: an array task ``12_3`` is asked through its array ``12``."""
    return sorted({j.split("_", 1)[0] for j in job_ids})


def _parse(text: str) -> dict[str, str]:
    """``ID|STATE`` lines into ``{id: STATE}`` (``CANCELLED by 0`` -> ``CANCELLED``)."""
    states = {}
    for line in text.splitlines():
        job, _, state = line.strip().partition("|")
        if job and state:
            states[job] = state.split()[0].rstrip("+")
    return states


def job_states(job_ids: Sequence[str], run: Callable[..., Any] = subprocess.run) -> dict[str, str]:
    """The state of each job SLURM still knows of: ``sacct``'s where accounting answers, and
    ``squeue --states=all``'s for the jobs it does not list (no accounting; an array's pending
    tasks, which ``sacct`` shows collapsed as ``12_[3-9]``; a job not yet recorded).  A job
    neither lists is left out."""
    sacct = ["sacct", "--noheader", "--parsable2", "--allocations", "--format=JobID,State"]
    squeue = ["squeue", "--noheader", "--array", "--states=all", "--format=%i|%T"]
    states: dict[str, str] = {}
    for command in (sacct, squeue):
        asking = [j for j in job_ids if j not in states]
        if not asking:
            break
        argv = [*command, f"--jobs={','.join(_array_ids(asking))}"]
        try:
            p = run(argv, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if p.returncode == 0:
            said = _parse(p.stdout)
            states.update({j: said[j] for j in asking if j in said})
    return states


#: Why a job pends that no wait clears (squeue's ``%r``), and what to change.
NEVER_STARTS = {
    "PartitionConfig": "n_jobs (hydra.launcher.cpus_per_task follows it), hydra.launcher.mem_gb "
    "or hydra.launcher.nodes: the job asks more than any node of the partition has",
    "PartitionNodeLimit": "hydra.launcher.nodes: more nodes than the partition allows",
    "PartitionTimeLimit": "hydra.launcher.timeout_min: longer than the partition allows",
    "BadConstraints": "hydra.launcher.constraint: no node has these features",
    "QOSMaxCpuPerJobLimit": "n_jobs: more CPUs per job than the QOS allows",
    "QOSMaxMemoryPerJob": "hydra.launcher.mem_gb: more memory per job than the QOS allows",
    "QOSMaxNodePerJobLimit": "hydra.launcher.nodes: more nodes per job than the QOS allows",
    "QOSMaxWallDurationPerJobLimit": "hydra.launcher.timeout_min: longer than the QOS allows",
    "InvalidAccount": "hydra.launcher.account: the account is not valid here",
    "InvalidQOS": "hydra.launcher.qos: the QOS is not valid here",
}
#: Seconds between the lines that say jobs still pend for a reason that clears (``Resources``,
#: ``Priority``: the cluster is busy).
PENDING_REPORT_S = 60.0


class NeverStarts(Exception):
    """A job pends for a reason no wait clears (``NEVER_STARTS``); the message is one line."""


def pending_reasons(
    job_ids: Sequence[str], run: Callable[..., Any] = subprocess.run
) -> dict[str, str]:
    """Why each of ``job_ids`` that is pending pends (squeue's reason; jobs it does not list as
    pending are left out)."""
    argv = ["squeue", "--noheader", "--array", "--states=PENDING", "--format=%i|%r"]
    try:
        p = run([*argv, f"--jobs={','.join(_array_ids(job_ids))}"], capture_output=True,
                text=True, timeout=60)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if p.returncode != 0:
        return {}
    said = _parse(p.stdout)
    return {j: said[j] for j in job_ids if j in said}


def cancel(job_ids: Sequence[str], run: Callable[..., Any] = subprocess.run) -> None:
    """``scancel`` the arrays of ``job_ids`` (best effort)."""
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        run(["scancel", *_array_ids(job_ids)], capture_output=True, text=True, timeout=60)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")


def await_jobs(
    jobs: Sequence[Any],
    overrides: Sequence[Sequence[str]],
    states: Callable[[Sequence[str]], dict[str, str]] = job_states,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    reasons: Callable[[Sequence[str]], dict[str, str]] = pending_reasons,
    stop: Callable[[Sequence[str]], None] = cancel,
    say: Callable[[str], None] = _say,
) -> list[Any]:
    """Wait for submitit ``jobs`` (one per cell, in the order of ``overrides``); each one's
    ``results()[0]`` (Hydra's ``JobReturn``), or a ``DeadJob`` for a job that ended without a
    result.  A job pending for a reason that never clears (``NEVER_STARTS``): every job is
    cancelled and ``NeverStarts`` raised; pending for a reason that clears: one line a minute.
    Ctrl-C: one line names the jobs that go on without the driver and how to cancel them."""
    try:
        return _await(jobs, overrides, states, clock, sleep, reasons, stop, say)
    except KeyboardInterrupt:
        ids = [j.job_id for j in jobs if not Path(j.paths.result_pickle).exists()]
        if ids:
            say(
                f"starbench: {len(ids)} SLURM jobs ({_shown(ids)}) go on without this command; "
                f"cancel them with: scancel {' '.join(_array_ids(ids))}"
            )
        raise


def _shown(ids: Sequence[str], most: int = 4) -> str:
    return ", ".join(ids[:most]) + (f" and {len(ids) - most} more" if len(ids) > most else "")


def _await(
    jobs: Sequence[Any],
    overrides: Sequence[Sequence[str]],
    states: Callable[[Sequence[str]], dict[str, str]],
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    reasons: Callable[[Sequence[str]], dict[str, str]],
    stop: Callable[[Sequence[str]], None],
    say: Callable[[str], None],
) -> list[Any]:
    out: list[Any] = [None] * len(jobs)
    waiting = dict(enumerate(jobs))
    ended: dict[int, float] = {}  # when each job was first seen ended without a result
    delay, factor, longest = POLL
    start = last_said = clock()
    while waiting:
        now = states([job.job_id for job in waiting.values()])
        pending = [j.job_id for j in waiting.values() if now.get(j.job_id) == "PENDING"]
        why = reasons(pending) if pending else {}
        never = sorted((j, r) for j, r in why.items() if r in NEVER_STARTS)
        if never:
            job, reason = never[0]
            stop([j.job_id for j in waiting.values()])
            raise NeverStarts(
                f"SLURM job {job} can never start: it pends for {reason}; change "
                f"{NEVER_STARTS[reason]}; the {len(waiting)} jobs of this launch are cancelled"
            )
        if pending and clock() - last_said >= PENDING_REPORT_S:
            last_said = clock()
            kinds = ", ".join(sorted(set(why.values()))) or "no reason given"
            say(
                f"starbench: {len(pending)} SLURM jobs still pending ({kinds}) after "
                f"{clock() - start:.0f} s: {_shown(pending)}"
            )
        for i, job in list(waiting.items()):
            if Path(job.paths.result_pickle).exists():
                out[i] = job.results()[0]
                del waiting[i]
                continue
            state = now.get(job.job_id, GONE)
            if state not in FINAL and state != GONE:
                ended.pop(i, None)
                continue
            first = ended.setdefault(i, clock())
            if clock() - first >= GRACE_S:
                out[i] = DeadJob(str(job.job_id), state, tuple(overrides[i]))
                del waiting[i]
        if waiting:
            sleep(delay)
            delay = min(delay * factor, longest)
    return out


#: Words of sbatch's refusals and the launcher keys that set what they refuse.
REFUSED = (
    ("account", "hydra.launcher.account"),  # before partition: "account/partition combination"
    ("partition", "hydra.launcher.partition"),
    ("qos", "hydra.launcher.qos"),
    ("time limit", "hydra.launcher.timeout_min"),
    ("memory", "hydra.launcher.mem_gb"),
    ("gres", "hydra.launcher.gres"),
    ("constraint", "hydra.launcher.constraint"),
)


def submission_line(error: BaseException) -> str:
    """One line for a submission sbatch refused (submitit's error holds sbatch's stderr),
    naming the launcher key it most likely concerns."""
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    said = next((ln for ln in lines if "error" in ln.lower()), lines[-1] if lines else "")
    said = said.split("sbatch: error: ", 1)[-1]
    key = next((k for word, k in REFUSED if word in said.lower()), None)
    where = f"{key}: " if key else "hydra/launcher=slurm: "
    return f"{where}sbatch refused the jobs: {said}"


def known_partitions(run: Callable[..., Any] = subprocess.run) -> list[str] | None:
    """The partitions of the cluster (``sinfo``), or None when sinfo cannot tell."""
    try:
        p = run(["sinfo", "--noheader", "--format=%R"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    return sorted({ln.strip() for ln in p.stdout.splitlines() if ln.strip()})
