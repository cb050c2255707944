"""The experiment runner: configs, tables, verification, resume, sweeps, collect, export."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from environment import with_path
from starbench.commands import cli
from starbench.commands import run as run_mod
from starbench.errors import InputError
from starbench.experiment import plan as plan_mod
from starbench.experiment.runner import run_cell
from starbench.experiment.settings import AlgorithmSpec, RunSettings
from starbench.external.export import export, tree_of_row
from starbench.record.columns import nondeterministic
from starbench.record.integrity import write_document
from starbench.record.rows import COLUMNS
from starbench.search import reference_search as search
from starbench.trees import RegularTreeSpec, load_tree

CONF = run_mod.CONF_DIR
TESTS = Path(__file__).resolve().parent
EXE = str(Path(sys.executable).parent / "starbench")
TIMING_AND_META = nondeterministic()  # what two runs of a search may differ in


def cli_run(*args, cwd=None, env=None, timeout=300):
    e = {**os.environ, **(env or {})}
    return subprocess.run(
        [EXE, "run", *args], capture_output=True, text=True, cwd=cwd, env=e, timeout=timeout
    )


def settings(**kw) -> RunSettings:
    algos = kw.pop("algorithms", ["expectimax", "star1", "star2"])
    tree = kw.pop("tree", RegularTreeSpec(branching=3, chance_arity=3, depth=2))
    specs = tuple(AlgorithmSpec(a) if isinstance(a, str) else a for a in algos)
    return RunSettings(tree=tree, algorithms=specs, progress=False, **kw)


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in TIMING_AND_META if c in df]).reset_index(drop=True)


# --------------------------------------------------------------------------- configs
def _group_files(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.mark.parametrize("tree", _group_files("tree"))
@pytest.mark.parametrize("algorithms", _group_files("algorithms"))
def test_every_tree_and_algorithm_file_composes(tree, algorithms):
    if tree == "game":  # a game (pig by default): OpenSpiel; minimax searches no chance nodes
        pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
        if algorithms == "minimax":
            return
    extra = ["tree.pattern='max,min'"] if algorithms == "minimax" else []
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=[f"tree={tree}", f"algorithms={algorithms}", *extra])
    # a ChanceProbCut file names a calibration of one tree model: any other is refused (pig's
    # is pig to 50 with its experiment's sampler, which no tree file alone composes)
    own = {"chanceprobcut-ballard": "ballard", "chanceprobcut-dice": "backgammon"}
    if algorithms.startswith("chanceprobcut") and tree != own.get(algorithms):
        with pytest.raises(InputError, match="chanceprobcut|cal="):
            plan_mod.settings_of(cfg)
        return
    s = plan_mod.settings_of(cfg)
    assert s.algorithms and s.tree.depth >= 1


@pytest.mark.slow
@pytest.mark.parametrize("experiment", _group_files("experiment"))
def test_every_experiment_plans(experiment, tmp_path):
    if "backgammon" in experiment:
        pytest.importorskip("gnubg_nn", reason='pip install -c constraints.txt -e ".[backgammon]"')
    # the default folders hold the committed results (made at earlier commits): plan elsewhere
    planned = plan_mod.plan(
        [
            f"experiment={experiment}",
            f"hydra.sweep.dir={tmp_path}/sweep",
            f"hydra.run.dir={tmp_path}/run",
        ]
    )
    multirun, cells, sweep_dir = planned.multirun, planned.cells, planned.sweep_dir
    assert cells
    for _overrides, s, folder in cells:
        assert folder.parent == sweep_dir if multirun else folder == tmp_path / "run"
        assert s.name == experiment


def test_default_folders_are_named_from_the_study_and_cell():
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(
            "config", overrides=["experiment=ballard1983-probing"], return_hydra_config=True
        )
    folder = Path(str(cfg.hydra.run.dir))
    assert folder.parts[:2] == ("results", "ballard1983-probing")
    assert folder.name.startswith("d2_b20_c20_mcmc_uniform_incremental_generated-generated")


def test_default_algorithms():
    cells = plan_mod.plan([]).cells
    labels = [a.label for a in cells[0][1].algorithms]
    assert labels == [
        "expectimax",
        "star1",
        "star2:after_probe=resume",
        "star2.5-cyclic:k=2,after_probe=resume",
        "star2.5-cyclic:k=5,after_probe=resume",
        "star2.5-sequential:k=2,after_probe=resume",
        "star2.5-sequential:k=5,after_probe=resume",
    ]


# --------------------------------------------------------------------------- bad config
BAD = [
    (["tree.depth=0"], "tree.depth: must be an integer >= 1"),
    (["tree.branching=-2"], "tree.branching: must be an integer >= 1"),
    (["trees=0"], "trees: must be an integer >= 1"),
    (["trees=abc"], "trees: Value 'abc'"),
    (["tree.bogus=1"], "tree.bogus: Key 'bogus' not in"),
    (["bogus=1"], "bogus"),
    (["algorithms=nosuch"], "algorithms/nosuch"),
    (["algorithms=[star1,nosuch]"], "algorithms: unknown algorithm 'nosuch'"),
    (["algorithms=[star2.5-cyclic:k=3..1]"], "algorithms: empty range '3..1'"),
    (["experiment=nosuch"], "experiment/nosuch"),
    (["tree.depth=1,2"], "tree.depth: a sweep (tree.depth=1,2) needs -m"),
    (["-m", "tree.depth=2,0"], "in sweep cell tree.depth=0: tree.depth: must be"),
    (["n_jobs=0"], "n_jobs: must be an integer >= 1"),
    (["seed=-1"], "seed: must be an integer in [0, 18446744073709551615]"),
    (["tree.distribution=dice"], "tree.chance_arity: must be 21 with distribution=dice"),
    (
        ["tree.ordering=perfect", "tree.branching=100", "tree.depth=4"],
        "tree.ordering: needs a full pass over the tree",
    ),
    (["engine=gpu"], "engine: must be one of"),
    (["resume=maybe"], "resume: must be one of auto, force"),
    (["time_budget=-1"], "time_budget: must be a number > 0"),
    (["node_budget=0"], "node_budget: must be an integer >= 1 or null"),
    (["plugins=[no_such_module_x]"], "plugins: cannot import 'no_such_module_x'"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[m for _, m in BAD])
def test_bad_config_one_line_exit_2(tmp_path, capsys, argv, message):
    code = cli.main(
        ["run", *argv, f"hydra.run.dir={tmp_path}/out", f"hydra.sweep.dir={tmp_path}/sweep"]
    )
    out, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists() and not (tmp_path / "sweep").exists()


def test_bad_config_through_the_console_script(tmp_path):
    p = cli_run("tree.depth=0", f"hydra.run.dir={tmp_path}/out")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().count("\n") == 0 and "tree.depth" in p.stderr


# --------------------------------------------------------------------------- the table
def test_table_columns_and_statuses(tmp_path):
    s = settings(trees=4, exact=True)
    outcome = run_cell(s, tmp_path, out=lambda _: None)
    df = pd.read_parquet(outcome.table)
    assert list(df.columns[: len(COLUMNS)]) == list(COLUMNS)
    for col in (
        "branching",
        "chance_arity",
        "depth",
        "distribution",
        "value_model",
        "ordering",
        "outcome_order",
        "bounds",
        "seed",
        "generator_version",
        "git_commit",
        "git_dirty",
        "python_version",
        "numpy_version",
        "hostname",
        "cpu_model",
        "date",
        "starbench_version",
        "verified_by",
        "value_exact",
    ):
        assert col in df.columns, col
    assert len(df) == 4 * 3 and set(df["status"]) == {"ok"}
    assert (df["verified_by"] == "expectimax").all()
    ex = df[df.algorithm == "expectimax"]
    assert (ex["nodes"] == s.tree.size).all()
    assert (df["value"] == df["expectimax_value"]).all()
    assert outcome.exit_code == 0


def test_without_expectimax_rows_are_verified_by_agreement(tmp_path):
    df = pd.read_parquet(
        run_cell(
            settings(trees=2, algorithms=["star1", "star2"]), tmp_path / "a", out=lambda _: None
        ).table
    )
    # the two rows' own labels (a row holds its resolved key: star2's after_probe is "resume")
    assert set(df["status"]) == {"ok"}
    assert set(df["verified_by"]) == {"star1+star2:after_probe=resume"}
    assert df["expectimax_value"].isna().all()
    df = pd.read_parquet(
        run_cell(settings(trees=2, algorithms=["star1"]), tmp_path / "b", out=lambda _: None).table
    )
    assert set(df["status"]) == {"unverified"}


def test_expectimax_over_the_size_limit_is_skipped(tmp_path, capsys):
    df = pd.read_parquet(
        run_cell(settings(trees=2, expectimax_limit=10), tmp_path, out=lambda _: None).table
    )
    assert "expectimax" not in set(df.algorithm)
    assert set(df["status"]) == {"ok"}
    assert "expectimax skipped" in capsys.readouterr().err


def test_node_budget_rows_are_kept(tmp_path):
    outcome = run_cell(settings(trees=2, node_budget=20), tmp_path, out=lambda _: None)
    df = pd.read_parquet(outcome.table)
    assert set(df["status"]) == {"budget_exceeded"} and len(df) == 6
    assert (df["nodes"] == 21).all()  # stopped on entering node 21
    assert outcome.exit_code == 0


def test_target_se_ignores_searches_stopped_by_the_budget(tmp_path):
    """Percentages need both searches finished: an expectimax stopped by the budget has only a
    partial leaf count, so a cell whose expectimax never finishes keeps its first batch."""
    s = settings(trees=5, node_budget=30, target_se=0.01, max_trees=50)
    outcome = run_cell(s, tmp_path, out=lambda _: None)
    df = pd.read_parquet(outcome.table)
    assert set(df[df.algorithm == "expectimax"]["status"]) == {"budget_exceeded"}
    assert df["instance"].nunique() == 5


def test_target_se_grows_a_cell_deterministically(tmp_path):
    s = settings(trees=5, target_se=3.0, max_trees=400)
    a = run_cell(s, tmp_path / "a", out=lambda _: None)
    b = run_cell(s, tmp_path / "b", out=lambda _: None)
    da, db = pd.read_parquet(a.table), pd.read_parquet(b.table)
    assert 5 < da["instance"].nunique() <= 400
    pd.testing.assert_frame_equal(comparable(da), comparable(db))


def test_a_larger_budget_reruns_only_the_exceeded_searches(tmp_path):
    small = run_cell(settings(trees=3, node_budget=30), tmp_path, out=lambda _: None)
    df = pd.read_parquet(small.table)
    exceeded = int((df["status"] == "budget_exceeded").sum())
    assert 0 < exceeded < len(df)
    same = run_cell(settings(trees=3, node_budget=30), tmp_path, out=lambda _: None)
    assert same.computed == 0  # kept: a node budget is deterministic
    large = run_cell(settings(trees=3, node_budget=10**6), tmp_path, out=lambda _: None)
    assert large.computed == exceeded
    assert set(pd.read_parquet(large.table)["status"]) == {"ok"}


def test_n_jobs_2_equals_n_jobs_1(tmp_path):
    one = run_cell(settings(trees=6), tmp_path / "one", out=lambda _: None)
    two = run_cell(settings(trees=6, n_jobs=2), tmp_path / "two", out=lambda _: None)
    pd.testing.assert_frame_equal(
        comparable(pd.read_parquet(one.table)), comparable(pd.read_parquet(two.table))
    )


def test_extending_trees_and_algorithms_reuses_saved_rows(tmp_path):
    run_cell(settings(trees=3, algorithms=["star1"]), tmp_path, out=lambda _: None)
    more = run_cell(
        settings(trees=5, algorithms=["expectimax", "star1"]), tmp_path, out=lambda _: None
    )
    assert more.computed == 5 + 2  # expectimax on 5 trees, star1 on the 2 new ones
    df = pd.read_parquet(more.table)
    assert len(df) == 10 and set(df["status"]) == {"ok"}  # old star1 rows verified now
    again = run_cell(
        settings(trees=5, algorithms=["expectimax", "star1"]), tmp_path, out=lambda _: None
    )
    assert again.computed == 0


def test_a_table_without_its_journal_is_continued_not_recomputed(tmp_path):
    first = run_cell(settings(trees=3), tmp_path, out=lambda _: None)
    table = pd.read_parquet(first.table)
    (tmp_path / "rows.jsonl").unlink()  # as in a clone of the committed results
    again = run_cell(settings(trees=4), tmp_path, out=lambda _: None)
    assert again.computed == 3  # only instance 3
    df = pd.read_parquet(again.table)
    pd.testing.assert_frame_equal(
        comparable(df[df.instance < 3]), comparable(table), check_dtype=False
    )


def test_rows_from_another_commit_are_not_mixed_silently(tmp_path, capsys):
    out = tmp_path / "cell"
    assert cli.main(["run", "experiment=smoke", f"hydra.run.dir={out}"]) == 0
    cell = json.loads((out / "cell.json").read_text())
    cell["git_commits"] = ["0" * 40]
    write_document(out / "cell.json", cell)  # re-sealed: an edit, not damage
    capsys.readouterr()
    assert cli.main(["run", "experiment=smoke", f"hydra.run.dir={out}"]) == 2
    err = capsys.readouterr().err
    assert (
        "made at commit 0000000000000000000000000000000000000000" in err and "resume=force" in err
    )
    assert cli.main(["run", "experiment=smoke", "resume=force", f"hydra.run.dir={out}"]) == 0


def test_another_cell_in_the_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "cell"
    assert cli.main(["run", "experiment=smoke", f"hydra.run.dir={out}"]) == 0
    capsys.readouterr()
    assert cli.main(["run", "experiment=smoke", "tree.depth=1", f"hydra.run.dir={out}"]) == 2
    assert "holds another cell" in capsys.readouterr().err


# --------------------------------------------------------------------------- processes
@pytest.mark.slow  # fresh processes
def test_console_script_twice_in_fresh_processes(tmp_path):
    out = tmp_path / "cell"
    first = cli_run("experiment=smoke", f"hydra.run.dir={out}")
    assert first.returncode == 0, first.stderr
    assert f"table: {out}/table.parquet (21 rows, 21 computed now)" in first.stdout
    t1 = pd.read_parquet(out / "table.parquet")
    second = cli_run("experiment=smoke", f"hydra.run.dir={out}")
    assert second.returncode == 0 and "(21 rows, 0 computed now)" in second.stdout
    pd.testing.assert_frame_equal(t1, pd.read_parquet(out / "table.parquet"))
    for line in ("expectimax", "star2.5-sequential:k=5,after_probe=resume"):
        assert line in first.stdout


def test_python_dash_m_entry_point(tmp_path):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "starbench.commands.run",
            "experiment=smoke",
            "trees=1",
            f"hydra.run.dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "table.parquet").exists()


def _journal_rows(journal: Path) -> int:
    """Complete row lines of a journal (run headers are objects, rows arrays)."""
    return sum(
        1
        for line in journal.read_text().splitlines(True)
        if line.startswith("[") and line.endswith("\n")
    )


@pytest.mark.slow  # a killed process and its resume
def test_kill_and_resume_gives_the_uninterrupted_table(tmp_path):
    args = [
        "tree.branching=4",
        "tree.chance_arity=4",
        "tree.depth=3",
        "trees=60",
        "algorithms=ballard",
        "engine=python",  # slow enough to be killed midway on any machine
    ]
    full = cli_run(*args, f"hydra.run.dir={tmp_path}/full")
    assert full.returncode == 0, full.stderr
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [EXE, "run", *args, f"hydra.run.dir={killed}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    journal = killed / "rows.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if journal.exists() and _journal_rows(journal) >= 30:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    saved = _journal_rows(journal)
    assert 30 <= saved < 180, "the run was not interrupted midway"
    assert not (killed / "table.parquet").exists()
    resumed = cli_run(*args, f"hydra.run.dir={killed}")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stdout
    computed = int(resumed.stdout.split(" computed now")[0].rsplit(", ", 1)[1])
    assert computed == 180 - saved  # nothing recomputed or duplicated
    pd.testing.assert_frame_equal(
        comparable(pd.read_parquet(tmp_path / "full/table.parquet")),
        comparable(pd.read_parquet(killed / "table.parquet")),
    )


def test_mismatch_from_a_broken_algorithm_is_caught_and_exits_1(tmp_path):
    p = cli_run(
        f"hydra.searchpath=[file://{TESTS / 'plugin_conf'}]",
        "algorithms=broken",
        "plugins=[broken_plugin]",
        "trees=3",
        f"hydra.run.dir={tmp_path}",
        env=with_path(TESTS / "plugins"),
    )
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("MISMATCH") == 3
    df = pd.read_parquet(tmp_path / "table.parquet")
    assert set(df[df.algorithm == "broken"]["status"]) == {"mismatch"}
    assert set(df[df.algorithm != "broken"]["status"]) == {"ok"}


def test_default_run_from_a_fresh_folder(tmp_path):
    p = cli_run(cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    tables = list((tmp_path / "results" / "default").glob("*/table.parquet"))
    assert len(tables) == 1
    df = pd.read_parquet(tables[0])
    assert len(df) == 20 * 7 and set(df["status"]) == {"ok"}
    assert "% expectimax leaves" in p.stdout


# --------------------------------------------------------------------------- sweeps
@pytest.mark.slow  # a sweep in processes
def test_sweep_collect_and_missing_cells(tmp_path):
    sweep = tmp_path / "sweep"
    p = cli_run(
        "-m",
        "tree.depth=1,2",
        "tree.branching=2,3",
        "trees=2",
        "algorithms=ballard",
        "hydra.sweep.dir=sweep",  # relative: the manifest records paths as the user gave them
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    cells = sorted(c.name for c in sweep.iterdir() if c.is_dir())
    assert len(cells) == 4 and all(
        c.startswith(("d1_b2", "d1_b3", "d2_b2", "d2_b3")) for c in cells
    )
    c = subprocess.run([EXE, "collect", str(sweep)], capture_output=True, text=True)
    assert c.returncode == 0, c.stdout + c.stderr
    df = pd.read_parquet(sweep / "collected.parquet")
    assert len(df) == 4 * 2 * 3 and set(df["status"]) == {"ok"}
    assert sorted(set(zip(df.depth, df.branching, strict=True))) == [(1, 2), (1, 3), (2, 2), (2, 3)]
    # lose one cell: collect names it with the command that reruns it
    import shutil

    lost = next(d for d in sweep.iterdir() if d.name.startswith("d2_b3"))
    shutil.rmtree(lost)
    c = subprocess.run([EXE, "collect", str(sweep)], capture_output=True, text=True)
    assert c.returncode == 1
    assert f"missing: {lost}" in c.stdout
    rerun = c.stdout.split("rerun: ")[1].splitlines()[0]
    assert "tree.depth=2" in rerun and "tree.branching=3" in rerun
    r = subprocess.run(
        rerun.replace("starbench", EXE, 1), shell=True, capture_output=True, text=True
    )

    assert r.returncode == 0, r.stderr
    c = subprocess.run([EXE, "collect", str(sweep)], capture_output=True, text=True)
    assert c.returncode == 0 and "(24 rows from 4 cells)" in c.stdout
    # the sweep's manifest is read right from any working directory
    c = subprocess.run([EXE, "collect", "."], capture_output=True, text=True, cwd=sweep)
    assert c.returncode == 0 and "(24 rows from 4 cells)" in c.stdout, c.stdout


def test_experiment_file_sweep(tmp_path):
    p = cli_run("experiment=depth-sweep", "trees=2", f"hydra.sweep.dir={tmp_path}")
    assert p.returncode == 0, p.stderr
    assert len([d for d in tmp_path.iterdir() if d.is_dir()]) == 3


@pytest.mark.slow  # each launcher's own processes
@pytest.mark.parametrize("launcher", ["joblib", "submitit_local"])
def test_launchers(tmp_path, launcher):
    p = cli_run(
        "-m",
        f"hydra/launcher={launcher}",
        "tree.depth=1,2",
        "trees=2",
        "algorithms=ballard",
        f"hydra.sweep.dir={tmp_path}",
    )
    assert p.returncode == 0, p.stderr
    c = subprocess.run([EXE, "collect", str(tmp_path)], capture_output=True, text=True)
    assert c.returncode == 0 and "(12 rows from 2 cells)" in c.stdout, c.stdout


def test_slurm_launcher_config_composes():
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=["hydra/launcher=slurm"], return_hydra_config=True)
    assert cfg.hydra.launcher._target_.endswith("SlurmLauncher")
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=["hydra/launcher=slurm", "n_jobs=4", "hydra.launcher.account=proj"],
            return_hydra_config=True,
        )
    assert cfg.hydra.launcher.cpus_per_task == 4 and cfg.hydra.launcher.account == "proj"
    home = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~") + "/.cache")
    cache = os.environ.get("NUMBA_CACHE_DIR", home + "/starbench/numba")
    assert cfg.hydra.launcher.setup == [f'export NUMBA_CACHE_DIR="{cache}"']
    assert cfg.hydra.sweep.dir not in cache  # never in a results folder (numba's cache: pickles)


@pytest.mark.slow
def test_the_kernel_cache_in_a_shared_folder_is_written_once_then_loaded(tmp_path):
    """What SLURM jobs and shards do (NUMBA_CACHE_DIR in one shared folder): two cold processes
    started together on an empty cache both compile into it without corrupting it, a third
    loads the kernel from it and writes nothing, and all three give the same table."""
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    args = ("trees=2", "algorithms=ballard", "progress=false", "engine=compiled")
    e = {**os.environ, **env}
    cold = [
        subprocess.Popen(
            [EXE, "run", *args, f"hydra.run.dir={tmp_path / name}"],
            env=e,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for p in cold:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    files = {f: f.stat().st_mtime_ns for f in (tmp_path / "cache").rglob("*") if f.is_file()}
    assert any(f.suffix == ".nbc" for f in files) and any(f.suffix == ".nbi" for f in files)
    p = cli_run(*args, f"hydra.run.dir={tmp_path / 'c'}", env=env)
    assert p.returncode == 0, p.stderr
    after = {f: f.stat().st_mtime_ns for f in (tmp_path / "cache").rglob("*") if f.is_file()}
    assert after == files
    tables = [pd.read_parquet(tmp_path / n / "table.parquet") for n in "abc"]
    timing = list(nondeterministic())
    for t in tables[1:]:
        pd.testing.assert_frame_equal(t.drop(columns=timing), tables[0].drop(columns=timing))


# --------------------------------------------------------------------------- replay
def test_export_then_solve_reproduces_every_row(tmp_path):
    s = settings(
        trees=3,
        tree=RegularTreeSpec(
            branching=3,
            chance_arity=4,
            depth=2,
            distribution="random",
            ordering="perfect",
            outcome_order="refuting",
            bounds="tree",
        ),
        algorithms=[
            "expectimax",
            "star1",
            AlgorithmSpec("star2.5-cyclic", (("k", 3), ("after_probe", "research"))),
        ],
    )
    outcome = run_cell(s, tmp_path / "cell", out=lambda _: None)
    df = pd.read_parquet(outcome.table)
    for n, row in df.iterrows():
        out, r = export(outcome.folder, tmp_path / f"t{n}.json", row=n)
        tree = load_tree(out)
        params = (
            {} if pd.isna(row["k"]) else {"k": int(row["k"]), "after_probe": row["after_probe"]}
        )
        res = search(tree, row["algorithm"], **params)
        assert (res.value, res.best_move, res.stats.nodes, res.stats.leaves) == (
            row["value"],
            row["best_move"],
            row["nodes"],
            row["leaves"],
        )
        assert tree_of_row(r).tree_seed == df["tree_seed"].iloc[n]


def test_export_cli_and_its_limits(tmp_path, capsys):
    outcome = run_cell(settings(trees=1), tmp_path / "cell", out=lambda _: None)
    assert cli.main(["export", str(outcome.folder), "-o", str(tmp_path / "t.json")]) == 0
    out = capsys.readouterr().out
    assert "reproduce: starbench solve" in out
    assert cli.main(["export", str(outcome.folder), "--max-nodes", "5"]) == 2
    assert "over the export limit" in capsys.readouterr().err
    assert cli.main(["export", str(tmp_path / "nothing")]) == 2
    assert "no result table here" in capsys.readouterr().err


def test_collect_lists_failed_and_mismatched_cells(tmp_path, capsys):
    for name in ("a", "b", "c"):
        run_cell(
            settings(trees=2),
            tmp_path / name,
            overrides=["trees=2", f"name={name}"],
            out=lambda _: None,
        )
    for name, status in (("b", "mismatch"), ("c", "failed")):
        cell = json.loads((tmp_path / name / "cell.json").read_text())
        cell["status"] = status
        write_document(tmp_path / name / "cell.json", cell)
    assert cli.main(["collect", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert (
        f"mismatched: {tmp_path / 'b'}\n  rerun: starbench run trees=2 name=b "
        f"hydra.run.dir={tmp_path / 'b'}" in out
    )
    assert f"failed: {tmp_path / 'c'}\n  rerun: starbench run trees=2 name=c" in out
    # a and the mismatched b are collected (6 rows each); the failed cell's table is not
    assert "(12 rows from 2 cells of the 3 found)" in out


# --------------------------------------------------------------------------- own studies
def test_inline_algorithm_lists_with_ranges_in_single_and_multirun(tmp_path, capsys):
    spec = (
        "algorithms=[expectimax,star2.5-cyclic:k=0..2,star2.5-sequential:k=2,after_probe=research]"
    )
    assert (
        cli.main(["run", spec, "trees=2", "progress=false", f"hydra.run.dir={tmp_path}/one"]) == 0
    )
    df = pd.read_parquet(tmp_path / "one" / "table.parquet")
    got = set(
        zip(df.algorithm, df.k.astype("float").fillna(-1), df.after_probe.fillna("-"), strict=True)
    )
    assert got == {
        ("expectimax", -1, "-"),
        ("star2.5-cyclic", 0, "resume"),
        ("star2.5-cyclic", 1, "resume"),
        ("star2.5-cyclic", 2, "resume"),
        ("star2.5-sequential", 2, "research"),
    }
    capsys.readouterr()
    argv = ["run", "-m", "tree.depth=1,2", "algorithms=[expectimax,star2.5-cyclic:k=2]", "trees=2"]
    assert cli.main([*argv, "progress=false", f"hydra.sweep.dir={tmp_path}/sweep"]) == 0
    assert cli.main(["collect", str(tmp_path / "sweep")]) == 0
    df = pd.read_parquet(tmp_path / "sweep" / "collected.parquet")
    assert len(df) == 2 * 2 * 2 and set(df.depth) == {1, 2}


def _own_config(folder: Path) -> Path:
    (folder / "experiment").mkdir(parents=True)
    (folder / "experiment" / "mine.yaml").write_text(
        "# @package _global_\nname: mine\ntrees: 3\nalgorithms:\n  - {name: expectimax}\n"
        "  - {name: star1}\n"
    )
    (folder / "myconfig.yaml").write_text(
        "defaults:\n  - config\n  - _self_\nname: myown\ntrees: 2\n"
    )
    return folder


@pytest.mark.parametrize(
    "flags",
    [
        ["-cd", "{cfg}", "experiment=mine"],
        ["--config-dir={cfg}", "experiment=mine"],
        ["hydra.searchpath=[file://{cfg}]", "experiment=mine"],
        ["-cd", "{cfg}", "-cn", "myconfig"],
    ],
    ids=["cd", "config-dir=", "searchpath", "cn"],
)
def test_a_config_folder_outside_the_checkout(tmp_path, flags):
    cfg = _own_config(tmp_path / "my_configs")
    argv = [f.format(cfg=cfg) for f in flags]
    p = cli_run(*argv, "progress=false", f"hydra.run.dir={tmp_path}/out", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    cell = json.loads((tmp_path / "out" / "cell.json").read_text())
    if "myconfig" in argv:
        assert (cell["name"], cell["trees"]) == ("myown", 2)
    else:
        assert (cell["name"], cell["trees"], cell["algorithms"]) == (
            "mine",
            3,
            ["expectimax", "star1"],
        )


def test_hydra_search_path_helper_is_pinned_to_hydra_1_3():
    """hydra_args and hydra_search_path use hydra-core 1.3 internals; fail loudly if they move."""
    import hydra

    assert hydra.__version__.startswith("1.3.")
    args = plan_mod.hydra_args(["-cd", "/x", "-m", "a=1", "--cfg", "job", "b=2", "-cn", "c"])
    assert (args.config_dir, args.config_name, args.multirun, args.cfg) == ("/x", "c", True, "job")
    assert args.overrides == ["a=1", "b=2"]


def test_sweep_expansion_is_pinned_to_hydra_1_3():
    """union_cells is the one user of Hydra's private sweeper API (BasicSweeper.split_arguments):
    each sweep's grid with the sweeper params and the command line, as the basic sweeper
    expands it, the sweeps in order."""
    import hydra
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from starbench.experiment.plan import union_cells

    assert hydra.__version__.startswith("1.3.")
    cells = union_cells([{"a": "1,2"}, {"b": "3"}], {"c": "4,5"}, ["d=6"], OverridesParser.create())
    assert [sorted(c) for c in cells] == [
        sorted(c)
        for c in (
            ["a=1", "c=4", "d=6"],
            ["a=1", "c=5", "d=6"],
            ["a=2", "c=4", "d=6"],
            ["a=2", "c=5", "d=6"],
            ["b=3", "c=4", "d=6"],
            ["b=3", "c=5", "d=6"],
        )
    ]
    assert union_cells([], None, ["x=1,2"], OverridesParser.create()) == [["x=1"], ["x=2"]]


def test_help_lists_every_key_from_the_schemas(capsys):
    from dataclasses import fields

    from starbench.experiment.settings import RunConfig

    assert cli.main(["run", "--help"]) == 0
    out = capsys.readouterr().out
    for f in fields(RunConfig):
        if f.name not in ("tree", "algorithm_specs"):
            assert f"  {f.name} (" in out, f.name
    for f in fields(RegularTreeSpec):
        assert f"  tree.{f.name} (" in out, f.name
    from starbench.games.spec import GAME_KEYS

    for key in GAME_KEYS:  # the keys of tree=game
        assert f"  tree.{key} (" in out, key
    assert "[uniform|dice|geometric|random]" in out and "experiment: ballard1983" in out


HELPFUL = [
    (["experiment=nosuch"], "(available: ballard1983, ballard1983-hypotheses, ballard1983-probing"),
    (["order=best"], "(available: optimal, random)"),
    (["tres=4"], "(did you mean trees?)"),
    (["tree.branchng=3"], "(did you mean tree.branching?)"),
    (["--cfg", "job", "tree.bogus=1"], "tree.bogus: Key 'bogus' not in"),
]


@pytest.mark.parametrize("argv,message", HELPFUL, ids=[m for _, m in HELPFUL])
def test_errors_name_what_is_allowed(capsys, argv, message):
    assert cli.main(["run", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_run_log_multirun_numbering_and_first_progress_line(tmp_path):
    p = cli_run("-m", "tree.depth=1,2", "trees=30", f"hydra.sweep.dir={tmp_path}")
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("starbench: cell 1/2: ") == 1 and "starbench: cell 2/2: " in p.stderr
    assert p.stderr.startswith("starbench: plan: 2 cells x 30 trees x 7 algorithms = 420 searches")
    first = p.stderr.splitlines()[2]
    # 30 trees of at most 156 nodes: auto runs so small a cell on the Python engine
    assert first.startswith("starbench: 30 instances to compute (python engine)"), p.stderr
    assert "M nodes/s" in p.stderr or "k nodes/s" in p.stderr
    for log in tmp_path.glob("*/run.log"):
        text = log.read_text()
        assert "instances to compute" in text and "% expectimax leaves" in text and "table:" in text


def test_a_registered_plugin_runs_in_run_and_solve(tmp_path, capsys):
    p = cli_run(
        "plugins=[starbench.examples.plugins]",
        "algorithms=[expectimax,expectimax-probable:order=given]",
        "trees=3",
        "progress=false",
        f"hydra.run.dir={tmp_path}/cell",
    )
    assert p.returncode == 0, p.stderr
    assert "expectimax-probable:order=given runs on the Python engine" in p.stderr
    df = pd.read_parquet(tmp_path / "cell" / "table.parquet")
    plugin = df[df.algorithm == "expectimax-probable"]
    assert len(plugin) == 3 and set(plugin["engine"]) == {"python"}
    assert set(df["status"]) == {"ok"}
    from starbench.examples import example_path

    code = cli.main(
        [
            "solve",
            str(example_path("dice-small")),
            "--plugin",
            "starbench.examples.plugins",
            "-a",
            "expectimax",
            "-a",
            "expectimax-probable",
            "--json",
        ]
    )
    rows = json.loads(capsys.readouterr().out)
    assert (
        code == 0 and rows[0]["value"] == rows[1]["value"] and rows[1]["nodes"] == rows[0]["nodes"]
    )


def test_register_algorithm_refuses_built_in_names():
    from starbench import register_algorithm
    from starbench.errors import InputError
    from starbench.search.star1 import Star1

    with pytest.raises(InputError, match="'star1' is a built-in algorithm"):
        register_algorithm("star1", Star1)


@pytest.mark.slow  # a sweep in processes
def test_several_sweeps_are_one_launch_and_the_driver_shows_each_cell(tmp_path):
    """An experiment's ``sweeps`` (their union) go to the launcher at once: submitit submits
    one job array for every cell, not one array per sweep after the previous one finished;
    the driver then shows each cell's summary (the jobs' own output went to their logs)."""
    conf = tmp_path / "myconf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "two.yaml").write_text(
        "# @package _global_\n"
        "defaults:\n"
        "  - override /algorithms: ballard\n"
        "trees: 2\n"
        "sweeps:\n"
        "  - {tree.depth: '1,2'}\n"
        "  - {tree.branching: '2', tree.depth: '1'}\n"
    )
    sweep = tmp_path / "sweep"
    p = cli_run(
        "--config-dir",
        str(tmp_path / "myconf"),
        "experiment=two",
        "hydra/launcher=submitit_local",
        f"hydra.sweep.dir={sweep}",
    )
    assert p.returncode == 0, p.stderr
    # Hydra's submitit launcher says this once per launch and numbers the jobs it submits
    said = p.stdout + p.stderr
    assert said.count("Submitit 'local' sweep output dir") == 1, said
    assert "#2 : tree.branching=2 tree.depth=1" in said
    cells = sorted(d for d in sweep.iterdir() if d.is_dir() and not d.name.startswith("."))
    assert [c.name[:5] for c in cells] == ["d1_b2", "d1_b5", "d2_b5"]
    for i in (1, 2, 3):
        assert f"cell {i}/3: " in p.stdout
    assert p.stdout.count("star2:after_probe=resume") == 3, p.stdout


def test_c2_rows_sit_beside_c1_rows_in_one_cell(tmp_path):
    """``probe_full_window`` is part of a row's key: C1 (the default) and C2 (false) of the same
    algorithm are two rows per tree; the default is stored as missing, so rows stored before the
    parameter existed keep their keys."""
    algos = (
        "[expectimax,star2:after_probe=research,star2:after_probe=research,probe_full_window=false]"
    )
    code = cli.main(
        ["run", f"algorithms={algos}", "trees=6", "progress=false", f"hydra.run.dir={tmp_path}/c"]
    )
    assert code == 0
    df = pd.read_parquet(tmp_path / "c" / "table.parquet")
    star2 = df[df["algorithm"] == "star2"]
    assert len(star2) == 12 and set(df["status"]) == {"ok"}
    assert star2["probe_full_window"].isna().sum() == 6
    assert (star2["probe_full_window"] == False).sum() == 6  # noqa: E712
    c1 = star2[star2["probe_full_window"].isna()].set_index("instance")
    c2 = star2[star2["probe_full_window"].notna()].set_index("instance")
    assert (c2["probes"] < c1["probes"]).all() and (c2["value"] == c1["value"]).all()
    assert (c2["leaves"] <= c1["leaves"]).all()


def test_a_compile_of_the_kernel_is_said_whatever_the_settings(tmp_path, monkeypatch):
    """When numba's cache lacks the kernel (the first run on a machine), one line says it is
    being compiled before the work starts: with ``n_jobs=2`` and ``progress=false`` too (the
    compile itself is skipped here: the cache is said to be empty, the warm-up does nothing)."""
    from starbench.compiled import engine as compiled_engine

    monkeypatch.setattr(compiled_engine, "cached_on_disk", lambda family=None, table=None: False)
    monkeypatch.setattr(compiled_engine, "is_warm", lambda forms=None: False)
    monkeypatch.setattr(compiled_engine, "warm_up", lambda forms=None, model=None: 0.0)
    said: list[str] = []
    s = settings(trees=2, n_jobs=2, engine="compiled")  # progress=false
    run_cell(s, tmp_path / "cell", out=lambda _: None, warn=said.append)
    compiling = [line for line in said if "compiling the search kernel" in line]
    assert compiling == [
        f"starbench: compiling the search kernel (once per machine, about "
        f"{compiled_engine.COMPILE_SECONDS} s)"
    ]
