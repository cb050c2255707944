"""starbench on a real SLURM cluster (``hydra/launcher=slurm``), and the driver's view of jobs.

The tests marked ``cluster`` (and ``slow``: the quick loop leaves them out) run on the
session's one-node cluster (``conftest.slurm``, built by ``slurm_cluster``: Debian's packages,
no accounting daemon); they skip, naming the install command, where its packages or root are
absent.  The others check the driver's handling of dead jobs with stand-ins for ``sacct`` and
``squeue`` and run everywhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from starbench.experiment import slurm
from starbench.record.columns import nondeterministic

EXE = str(Path(sys.executable).parent / "starbench")
NOT_COMPARED = nondeterministic()  # what two runs of a search may differ in
#: A short time limit keeps a stray job from holding the node (the floor is 3 minutes).
ON_SLURM = ["hydra/launcher=slurm", "hydra.launcher.timeout_min=10", "progress=false"]


def _run(env: dict, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [EXE, "run", *argv], capture_output=True, text=True, env=env, cwd="/", timeout=300
    )


def _tables(sweep: Path) -> dict[str, pd.DataFrame]:
    """Each cell's table without its timing columns, by the cell's folder name."""
    return {
        p.parent.name: pd.read_parquet(p)
        .drop(columns=list(NOT_COMPARED), errors="ignore")
        .reset_index(drop=True)
        for p in sorted(sweep.glob("*/table.parquet"))
    }


def _same_tables(got: Path, want: Path) -> None:
    a, b = _tables(got), _tables(want)
    assert sorted(a) == sorted(b) and a
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])


def _one_line(p: subprocess.CompletedProcess, want: int) -> str:
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("starbench: error")]
    assert p.returncode == want and len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    return lines[0]


# --------------------------------------------------------------------------- the real cluster
@pytest.mark.cluster
@pytest.mark.slow
def test_a_sweep_on_slurm_gives_the_local_launchers_rows(slurm, tmp_path):
    """Three cells through one SLURM job array: the same tables, every non-timing column, as
    the same sweep on the local launcher."""
    sweep = ["tree.branching=2,3,4", "trees=6", "tree.depth=3"]
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    p = _run(slurm.env, "-m", *sweep, "progress=false", f"hydra.sweep.dir={local}")
    assert p.returncode == 0, p.stderr[-2000:]
    p = _run(slurm.env, "-m", *sweep, *ON_SLURM, f"hydra.sweep.dir={cluster}")
    assert p.returncode == 0, p.stderr[-2000:]
    assert len(list((cluster / ".submitit").iterdir())) > 0  # it went through submitit
    _same_tables(cluster, local)


@pytest.mark.cluster
@pytest.mark.slow
def test_a_cancelled_job_stops_is_reported_in_one_line_and_the_same_command_completes_it(
    slurm, tmp_path
):
    """``scancel`` of a job after its first journal row: the job's process is gone within 10 s
    (SIGTERM handled; SLURM would kill it only after ``KillWait`` = 30 s), its cell is marked
    interrupted, the driver waits for the other cell, reports the dead one in one line with its
    rerun command (no ``sacct`` on this cluster), and exits 1.  The same command again skips the
    complete cell, continues the other, and ends with the same tables as a local run."""
    sweep = ["tree.depth=5,2", "trees=24"]
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    argv = [EXE, "run", "-m", *sweep, *ON_SLURM, f"hydra.sweep.dir={cluster}"]
    driver = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=slurm.env, cwd="/"
    )
    try:
        deadline = time.monotonic() + 120
        slow = None
        while time.monotonic() < deadline:
            slow = next(iter(cluster.glob("d5_*")), None)
            rows = slow / "rows.jsonl" if slow else None
            if rows is not None and rows.exists() and len(rows.read_text().splitlines()) >= 2:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the slow cell journaled no row within 120 s")
        pid = json.loads((slow / "cell.json").read_text())["pid"]
        array = next(p.name for p in (cluster / ".submitit").iterdir() if p.name.isdigit())
        job = f"{array}_0"  # the first cell of the array: tree.depth=5
        subprocess.run(["scancel", job], env=slurm.env, check=True)
        cancelled = time.monotonic()
        while Path(f"/proc/{pid}").exists() and time.monotonic() < cancelled + 30:
            time.sleep(0.05)
        stopped = time.monotonic() - cancelled
        _out, err = driver.communicate(timeout=120)
    finally:
        driver.kill()
    assert stopped <= 10, f"the cancelled job ran on for {stopped:.1f} s"
    assert driver.returncode == 1, err[-2000:]
    dead = [ln for ln in err.splitlines() if "without finishing" in ln]
    assert len(dead) == 1 and "Traceback" not in err, err[-3000:]
    assert dead[0].startswith(f"starbench: cell {slow}: its SLURM job {job} ended CANCELLED")
    rerun = dead[0].split("; rerun: ", 1)[1]
    assert "starbench run -m" in rerun and "hydra/launcher=slurm" in rerun
    assert "hydra.launcher.timeout_min=10" in rerun and "tree.depth=5" in rerun
    cell = json.loads((slow / "cell.json").read_text())
    assert cell["status"] == "interrupted", cell.get("status")
    again = _run(slurm.env, *argv[2:])
    assert again.returncode == 0, again.stderr[-2000:]
    assert "starbench: 1 complete cells skipped" in again.stderr
    p = _run(slurm.env, "-m", *sweep, "progress=false", f"hydra.sweep.dir={local}")
    assert p.returncode == 0, p.stderr[-2000:]
    _same_tables(cluster, local)


@pytest.mark.cluster
@pytest.mark.slow
def test_a_sharded_cell_on_slurm_equals_the_unsharded_one(slurm, tmp_path):
    """``shards=3``: three jobs of one array compute one cell; its table is the unsharded
    cell's (every non-timing column), written by the last shard."""
    cell = ["trees=9", "tree.branching=3", "tree.depth=3"]
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    p = _run(slurm.env, "-m", *cell, "progress=false", f"hydra.sweep.dir={local}")
    assert p.returncode == 0, p.stderr[-2000:]
    p = _run(slurm.env, "-m", *cell, "shards=3", *ON_SLURM, f"hydra.sweep.dir={cluster}")
    assert p.returncode == 0, p.stderr[-2000:]
    (folder,) = [d for d in cluster.iterdir() if d.is_dir() and not d.name.startswith(".")]
    assert sorted(p.name for p in folder.glob("rows*.jsonl")) == [
        f"rows.shard-{i}-of-3.jsonl" for i in range(3)
    ]
    _same_tables(cluster, local)


@pytest.mark.cluster
@pytest.mark.slow
def test_what_sbatch_cannot_take_is_one_line(slurm, tmp_path):
    """A partition the cluster does not have: one line naming ``hydra.launcher.partition``
    before anything is written (exit 2).  A request sbatch refuses (more memory than the node
    has): one line naming ``hydra.launcher.mem_gb``, exit 2, no job."""
    sweep = tmp_path / "sweep"
    base = ["-m", "tree.branching=2,3", "trees=2", *ON_SLURM, f"hydra.sweep.dir={sweep}"]
    line = _one_line(_run(slurm.env, *base, "hydra.launcher.partition=nowhere"), 2)
    assert line.startswith("starbench: error: hydra.launcher.partition: this cluster has no ")
    assert "'nowhere'; give one of debug" in line
    assert not sweep.exists()
    line = _one_line(_run(slurm.env, *base, "hydra.launcher.mem_gb=100000"), 2)
    assert line.startswith("starbench: error: hydra.launcher.mem_gb: sbatch refused the jobs: ")
    assert not list(sweep.glob("d*"))


# --------------------------------------------------------------------------- stand-ins
def _stand_in(folder: Path, name: str, script: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(f"#!/bin/sh\n{script}\n")
    (folder / name).chmod(0o755)


def _jobs(tmp_path: Path, n: int) -> list[SimpleNamespace]:
    """Submitit-like jobs of array 41 (``41_0`` ...), none of which wrote its result."""
    paths = [SimpleNamespace(result_pickle=tmp_path / f"{i}.pkl") for i in range(n)]
    return [SimpleNamespace(job_id=f"41_{i}", paths=p) for i, p in enumerate(paths)]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


@pytest.mark.parametrize("state", ["CANCELLED", "TIMEOUT", "NODE_FAIL"])
def test_a_dead_job_is_reported_with_sacct(state, tmp_path, monkeypatch):
    """With accounting (a stand-in ``sacct`` on the PATH): a job that ended CANCELLED, TIMEOUT
    or NODE_FAIL without its result file is dead after the grace period; its RUNNING neighbour
    is waited for until it writes its result."""
    bin_ = tmp_path / "bin"
    _stand_in(bin_, "sacct", f'echo "41_0|{state} by 0"; echo "41_1|RUNNING"')
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")
    assert slurm.job_states(["41_0", "41_1"]) == {"41_0": state, "41_1": "RUNNING"}
    jobs = _jobs(tmp_path, 2)
    clock = _Clock()

    def sleep(s: float) -> None:
        clock.sleep(s)
        if clock.now > 30:  # the running one finishes
            jobs[1].paths.result_pickle.write_bytes(b"")

    jobs[1].results = lambda: ["its JobReturn"]
    out = slurm.await_jobs(jobs, [["a=1"], ["a=2"]], clock=clock, sleep=sleep)
    assert out == [slurm.DeadJob("41_0", state, ("a=1",)), "its JobReturn"]
    assert out[0].describe() == f"its SLURM job 41_0 ended {state} without finishing"


def test_a_dead_job_is_reported_without_sacct(tmp_path, monkeypatch):
    """Without accounting (``sacct`` exits 1): squeue's state, and a job squeue no longer lists
    (it ended more than ``MinJobAge`` ago) is dead too (``ENDED``).  A job listed as ended whose
    result appears within the grace period is not."""
    bin_ = tmp_path / "bin"
    disabled = "sacct: error: Slurm accounting storage is disabled"
    _stand_in(bin_, "sacct", f'echo "{disabled}" >&2; exit 1')
    _stand_in(bin_, "squeue", 'echo "41_0|CANCELLED"; echo "41_2|COMPLETED"')
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")
    jobs = _jobs(tmp_path, 3)
    clock = _Clock()

    def sleep(s: float) -> None:
        clock.sleep(s)
        jobs[2].paths.result_pickle.write_bytes(b"")  # shows up late on a shared disk

    jobs[2].results = lambda: ["done"]
    out = slurm.await_jobs(jobs, [["a=1"], ["a=2"], ["a=3"]], clock=clock, sleep=sleep)
    assert out == [
        slurm.DeadJob("41_0", "CANCELLED", ("a=1",)),
        slurm.DeadJob("41_1", slurm.GONE, ("a=2",)),
        "done",
    ]


def test_a_refused_submission_names_its_key():
    """sbatch's refusal, as submitit raises it, is one line naming the launcher key."""
    from submitit.core.utils import FailedJobError

    e = FailedJobError(
        "Could not submit\nsbatch: error: Batch job submission failed: Invalid account or "
        "account/partition combination specified"
    )
    assert slurm.submission_line(e) == (
        "hydra.launcher.account: sbatch refused the jobs: Batch job submission failed: Invalid "
        "account or account/partition combination specified"
    )


def test_a_dead_shard_is_reported_with_the_command_for_that_shard(tmp_path):
    """A sharded cell's job carries ``shard=[i]`` beside the cell's overrides: the line names
    the shard, and its rerun command computes that shard alone under the same launcher."""
    from starbench.experiment.launch import mark_dead
    from starbench.experiment.plan import Cell, Plan

    folder = tmp_path / "sweep" / "cell"
    cell = ["trees=9", "shards=3", "hydra/launcher=slurm", "hydra.launcher.timeout_min=10"]
    dead = slurm.DeadJob("41_2", "TIMEOUT", (*cell, "shard=[2]"))
    plan = Plan(True, (Cell(cell, None, folder),), folder.parent, (), (), (), (), None, None, True)  # type: ignore[arg-type]
    line = mark_dead(dead, plan)
    assert line.startswith(f"shard=[2] of cell {folder}: its SLURM job 41_2 ended TIMEOUT")
    rerun = line.split("; rerun: ", 1)[1]
    assert "'shard=[2]'" in rerun and "hydra/launcher=slurm" in rerun and "-m" in rerun


def test_pending_array_tasks_that_sacct_collapses_are_asked_of_squeue(tmp_path, monkeypatch):
    """sacct shows an array's pending tasks as one line (``41_[1-2]``): they are asked of
    squeue, never taken for jobs that ended."""
    bin_ = tmp_path / "bin"
    _stand_in(bin_, "sacct", 'echo "41_0|RUNNING"; echo "41_[1-2]|PENDING"')
    _stand_in(bin_, "squeue", 'echo "41_1|PENDING"; echo "41_2|PENDING"')
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")
    assert slurm.job_states(["41_0", "41_1", "41_2"]) == {
        "41_0": "RUNNING",
        "41_1": "PENDING",
        "41_2": "PENDING",
    }


def test_a_job_that_can_never_start_is_one_line_and_its_jobs_are_cancelled(tmp_path):
    """Pending for ``PartitionConfig`` (more CPUs than any node has): every job of the launch
    is cancelled and one line names the job, the reason and the key to change."""
    jobs = _jobs(tmp_path, 2)
    clock, cancelled = _Clock(), []
    with pytest.raises(slurm.NeverStarts) as e:
        slurm.await_jobs(
            jobs,
            [["a=1"], ["a=2"]],
            states=lambda ids: dict.fromkeys(ids, "PENDING"),
            clock=clock,
            sleep=clock.sleep,
            reasons=lambda ids: dict.fromkeys(ids, "PartitionConfig"),
            stop=cancelled.extend,
        )
    assert cancelled == ["41_0", "41_1"]
    line = str(e.value)
    assert "\n" not in line and line.startswith("SLURM job 41_0 can never start: it pends for ")
    assert "PartitionConfig; change n_jobs (hydra.launcher.cpus_per_task follows it)" in line


def test_jobs_pending_for_resources_are_said_once_a_minute_and_ctrl_c_names_them(tmp_path):
    jobs = _jobs(tmp_path, 3)
    clock, said = _Clock(), []

    def sleep(s: float) -> None:
        clock.sleep(s)
        if clock.now > 150:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        slurm.await_jobs(
            jobs,
            [["a=1"], ["a=2"], ["a=3"]],
            states=lambda ids: dict.fromkeys(ids, "PENDING"),
            clock=clock,
            sleep=sleep,
            reasons=lambda ids: dict.fromkeys(ids, "Resources"),
            stop=lambda ids: None,
            say=said.append,
        )
    pending = [x for x in said if "still pending (Resources)" in x]
    assert len(pending) == 2 and pending[0].startswith("starbench: 3 SLURM jobs still pending")
    assert said[-1] == (
        "starbench: 3 SLURM jobs (41_0, 41_1, 41_2) go on without this command; cancel them "
        "with: scancel 41"
    )


@pytest.mark.cluster
@pytest.mark.slow
def test_more_cpus_than_the_node_has_is_one_line_on_the_cluster(slurm, tmp_path):
    """``n_jobs=64`` (so ``cpus_per_task=64``) on the test cluster's two CPUs: sbatch takes the
    job and SLURM holds it pending for ``PartitionConfig``: one line, exit 2, no job left."""
    sweep = tmp_path / "sweep"
    argv = ["-m", "trees=2", "n_jobs=64", *ON_SLURM, f"hydra.sweep.dir={sweep}"]
    t0 = time.monotonic()
    p = _run(slurm.env, *argv)
    line = _one_line(p, 2)
    assert "can never start" in line and "change n_jobs" in line, line
    assert time.monotonic() - t0 < 120
    import re

    array = re.search(r"SLURM job (\d+)", line).group(1)  # other tests' jobs may be queued
    for _ in range(30):  # cancelled: gone from the queue (a moment to leave it)
        left = subprocess.run(
            ["squeue", "--noheader", "--states=PENDING,RUNNING", f"--jobs={array}"],
            capture_output=True, text=True, env=slurm.env,
        )  # fmt: skip
        if not left.stdout.strip():
            break
        time.sleep(1)
    assert left.stdout.strip() == "", left.stdout
