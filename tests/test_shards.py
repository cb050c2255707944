"""Shards (``shards=N``, ``shard=[i,...]``): one cell's instances split across jobs.

A sharded cell's table equals the unsharded one's, every column but the timing ones, on every
launcher; a killed shard loses nothing and the printed command completes the cell; bad values
are one line.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from starbench.commands import cli
from starbench.record.columns import nondeterministic
from starbench.record.storage import read_json

EXE = str(Path(sys.executable).parent / "starbench")
NOT_COMPARED = nondeterministic()  # what two runs of a search may differ in
CELL = ["trees=9", "tree.branching=3", "progress=false"]


def _same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """``assert_frame_equal``, naming the columns and rows that differ where they do."""
    if list(got.columns) == list(want.columns) and got.shape == want.shape:
        differ = [c for c in got.columns if not got[c].equals(want[c])]
        rows = {c: [(i, got[c][i], want[c][i]) for i in got.index if got[c][i] != want[c][i]][:3]
                for c in differ}  # fmt: skip
        assert not differ, f"columns differ: {differ}; first rows (row, sharded, unsharded): {rows}"
    pd.testing.assert_frame_equal(got, want)


def _table(folder: Path) -> pd.DataFrame:
    df = pd.read_parquet(folder / "table.parquet")
    return df.drop(columns=list(NOT_COMPARED), errors="ignore").reset_index(drop=True)


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory) -> pd.DataFrame:
    folder = tmp_path_factory.mktemp("unsharded") / "cell"
    assert cli.main(["run", *CELL, f"hydra.run.dir={folder}"]) == 0
    return _table(folder)


def _only_cell(sweep: Path) -> Path:
    (cell,) = [p for p in sweep.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return cell


@pytest.mark.parametrize(
    "launcher",
    [
        None,
        pytest.param("joblib", marks=pytest.mark.slow),
        pytest.param("submitit_local", marks=pytest.mark.slow),
    ],
)
def test_a_sharded_cell_equals_the_unsharded_one(launcher, unsharded, tmp_path, capsys):
    """Three shards, each a job of the launcher (the basic one runs them in this process, one
    after another): one table, equal to the unsharded cell's; each shard wrote only its own
    journal, and the last one the table and ``cell.json``, whose overrides rerun the whole
    cell."""
    sweep = tmp_path / "sweep"
    chosen = [f"hydra/launcher={launcher}"] if launcher else []
    code = cli.main(["run", "-m", *CELL, "shards=3", *chosen, f"hydra.sweep.dir={sweep}"])
    err = capsys.readouterr().err
    assert code == 0, err[-2000:]
    cell = _only_cell(sweep)
    _same(_table(cell), unsharded)
    names = sorted(p.name for p in cell.glob("rows*.jsonl"))
    assert names == [f"rows.shard-{i}-of-3.jsonl" for i in range(3)]
    summary = read_json(cell / "cell.json")
    assert summary["status"] == "complete"
    assert not [o for o in summary["overrides"] if o.startswith("shard=")]


def test_a_shard_finding_the_table_written_leaves_it(tmp_path, capsys):
    """Shards finishing together each find nothing missing; the first to take the cell lock
    writes the table, the others leave it as it is (before, the second wrote it again: the
    table's rows journaled into a new ``rows.jsonl`` and its runs renumbered).  A shard run on
    the complete cell plays the late shard; a larger cell is still written."""
    folder = tmp_path / "cell"
    assert cli.main(["run", *CELL, "shards=3", f"hydra.run.dir={folder}"]) == 0
    table = (folder / "table.parquet").read_bytes()
    capsys.readouterr()
    assert cli.main(["run", *CELL, "shards=3", "shard=[2]", f"hydra.run.dir={folder}"]) == 0
    assert "the table is already written from every journal" in capsys.readouterr().out
    assert (folder / "table.parquet").read_bytes() == table
    assert not (folder / "rows.jsonl").exists()
    grown = [o if o != "trees=9" else "trees=12" for o in CELL]
    assert cli.main(["run", *grown, "shards=3", f"hydra.run.dir={folder}"]) == 0
    assert len(pd.read_parquet(folder / "table.parquet")) == 12 * 7


@pytest.mark.slow
def test_shards_of_another_number_are_adopted_row_by_row(unsharded, tmp_path, capsys):
    """Two of three shards, then the cell split in two: the second run computes only what the
    first left (rows are keyed by instance), and the table equals the unsharded one."""
    folder = tmp_path / "cell"
    assert cli.main(["run", *CELL, "shards=3", "shard=[0,2]", f"hydra.run.dir={folder}"]) == 0
    out = capsys.readouterr().out
    assert "2 of 3 shards complete" in out and "'shard=[1]'" in out
    assert not (folder / "table.parquet").exists() and not (folder / "cell.json").exists()
    assert cli.main(["run", *CELL, "shards=2", f"hydra.run.dir={folder}"]) == 0
    out = capsys.readouterr().out
    computed = [int(ln.split(": ")[1].split()[0]) for ln in out.splitlines() if " of 2: " in ln]
    assert sum(computed) == 3 * 7  # shard 1 of 3 held instances 1, 4 and 7; 7 algorithms
    pd.testing.assert_frame_equal(_table(folder), unsharded)


@pytest.mark.slow
def test_a_killed_shard_loses_nothing_and_the_printed_command_completes_the_cell(tmp_path):
    """kill -9 of a shard after its first instance's rows; the other shards finish and print
    the command for exactly the missing one; that command, run as printed, computes only what
    the killed shard had not journaled and completes the cell with the unsharded table."""
    slow = ["trees=9", "tree.depth=5", "progress=false"]  # about 0.3 s an instance
    whole, folder = tmp_path / "whole", tmp_path / "cell"
    sharded = [*slow, "shards=3", f"hydra.run.dir={folder}"]
    p = subprocess.Popen([EXE, "run", *sharded, "shard=[0]"], stderr=subprocess.PIPE, text=True)
    journal = folder / "rows.shard-0-of-3.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        journal.exists() and journal.read_text().count("\n") >= 2
    ):
        time.sleep(0.01)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    # complete lines only (a kill can cut the last one: its row is computed again), less the
    # run header
    kept = journal.read_text().count("\n") - 1
    assert 1 <= kept < 3 * 7, kept  # killed mid-shard
    rest = subprocess.run([EXE, "run", *sharded, "shard=[1,2]"], capture_output=True, text=True)
    assert rest.returncode == 0, rest.stderr[-2000:]
    line = next(ln for ln in rest.stdout.splitlines() if "shards complete" in ln)
    printed = line.split("still to compute: ", 1)[1].removesuffix(")")
    assert "'shard=[0]'" in printed
    again = subprocess.run(shlex.split(printed), capture_output=True, text=True, cwd="/")
    assert again.returncode == 0, again.stderr[-2000:]
    computed = next(ln for ln in again.stdout.splitlines() if ln.startswith("shard 0 of 3: "))
    assert int(computed.split(": ")[1].split()[0]) == 3 * 7 - kept
    p = subprocess.run([EXE, "run", *slow, f"hydra.run.dir={whole}"], capture_output=True)
    assert p.returncode == 0
    pd.testing.assert_frame_equal(_table(folder), _table(whole))


@pytest.mark.parametrize(
    "given, said",
    [
        (["shards=0"], "shards: must be an integer >= 1"),
        (["shards=-2"], "shards: must be an integer >= 1"),
        (["shards=two"], "shards"),
        (
            ["shards=3", "shard=[3]"],
            "shard: each index must be an integer in 0..2 (shards=3), got 3",
        ),
        (["shards=3", "shard=[-1]"], "shard: each index must be an integer in 0..2"),
        (["shards=3", "shard=[1,1]"], "shard: must list distinct shard indices"),
        (["shards=2", "target_se=1"], "shards: 2 cannot be combined with target_se"),
    ],
)
def test_bad_shards_are_one_line(given, said, tmp_path, capsys):
    folder = tmp_path / "cell"
    code = cli.main(["run", *CELL, *given, f"hydra.run.dir={folder}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and said in err[0], err
    assert not folder.exists()


def test_more_shards_than_trees_are_capped_in_one_line(unsharded, tmp_path, capsys):
    folder = tmp_path / "cell"
    assert cli.main(["run", *CELL, "shards=12", f"hydra.run.dir={folder}"]) == 0
    err = capsys.readouterr().err
    assert "starbench: shards=12 is more than trees=9: capped at 9 shards" in err
    assert "has no instances" not in err  # the cap's one line says it; no line per shard
    pd.testing.assert_frame_equal(_table(folder), unsharded)


@pytest.mark.slow
def test_collect_names_exactly_the_missing_shards(unsharded, tmp_path, capsys):
    """A sweep run with ``shard=[0]`` only: ``collect`` reports the cell incomplete with the
    command for shards 1 and 2; that command, as printed, completes it, and ``collect`` then
    collects the unsharded table."""
    sweep = tmp_path / "sweep"
    argv = ["run", "-m", *CELL, "shards=3", "shard=[0]", f"hydra.sweep.dir={sweep}"]
    assert cli.main(argv) == 0
    capsys.readouterr()
    assert cli.main(["collect", str(sweep)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("incomplete: ") and len(out) == 2, out
    printed = out[1].removeprefix("  rerun: ")
    assert "'shard=[1,2]'" in printed and "shards=3" in printed
    again = subprocess.run(shlex.split(printed), capture_output=True, text=True, cwd="/")
    assert again.returncode == 0, again.stderr[-2000:]
    assert cli.main(["collect", str(sweep)]) == 0
    pd.testing.assert_frame_equal(_table(_only_cell(sweep)), unsharded)


@pytest.mark.slow
def test_a_rerun_launches_only_the_shards_that_lack_rows(unsharded, tmp_path, capsys, monkeypatch):
    from starbench.commands import run as run_mod

    launched = []
    real = run_mod.hydra_main

    def counting(argv, task=None, prog="starbench run"):
        launched.append(len(task.jobs))  # the jobs the sweeper launches
        return real(argv, task, prog)

    monkeypatch.setattr(run_mod, "hydra_main", counting)
    sweep = tmp_path / "sweep"
    argv = ["run", "-m", *CELL, "shards=3", f"hydra.sweep.dir={sweep}"]
    assert cli.main([*argv, "shard=[0,2]"]) == 0
    assert launched == [2]
    assert cli.main(argv) == 0
    assert launched == [2, 1]  # shard 1 alone; it writes the table
    capsys.readouterr()
    pd.testing.assert_frame_equal(_table(_only_cell(sweep)), unsharded)


@pytest.mark.slow
def test_collect_writes_the_table_of_a_cell_whose_shards_are_all_done(unsharded, tmp_path):
    """Every shard journaled its rows, but the table was never written (the last shard died
    while writing it): ``collect`` writes it from the journals and collects it."""
    sweep = tmp_path / "sweep"
    assert cli.main(["run", "-m", *CELL, "shards=3", f"hydra.sweep.dir={sweep}"]) == 0
    cell = _only_cell(sweep)
    for name in ("table.parquet", "cell.json"):
        (cell / name).unlink()
    assert cli.main(["collect", str(sweep)]) == 0
    pd.testing.assert_frame_equal(_table(cell), unsharded)
    assert read_json(cell / "cell.json")["status"] == "complete"
