"""The engine seam: one place chooses the engine (with its reason); the public
``starbench.search`` reaches both engines, and they count identically."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import starbench
from starbench import InputError, RegularTree, RegularTreeSpec
from starbench.engines import AUTO_SOLVE_NODES, Auto, choose
from starbench.errors import BudgetExceeded
from starbench.examples import example_path
from starbench.search.registry import ALGORITHMS
from starbench.trees import load_tree

#: Every algorithm for chance trees the compiled engine serves (its registry entry says so:
#: ``AlgorithmInfo.kernel``), with a non-default parameter where it takes one.
ALGOS = [
    (n, {**({"k": 2} if "k" in {p.name for p in i.params} else {}), "after_probe": "research"})
    if any(p.name == "after_probe" for p in i.params)
    else (n, {})
    for n, i in ALGORITHMS.items()
    if i.kernel is not None and i.chance
]


@pytest.mark.parametrize("instance", range(12))
def test_public_search_reaches_both_engines_with_the_same_counters(instance):
    spec = RegularTreeSpec(branching=4, chance_arity=5, depth=2, distribution="random")
    tree = RegularTree(spec, seed=7, instance=instance)
    for name, params in ALGOS:
        py = starbench.search(tree, name, engine="python", **params)
        co = starbench.search(tree, name, engine="compiled", **params)
        auto = starbench.search(tree, name, **params)
        assert py.value == co.value == auto.value
        assert py.best_move == co.best_move
        assert py.stats.as_dict() == co.stats.as_dict() == auto.stats.as_dict()


def test_public_search_on_a_tree_file_and_in_exact_mode():
    tree = load_tree(example_path("dice-small"))
    co = starbench.search(tree, "star2", engine="compiled")
    py = starbench.search(tree, "star2", engine="python")
    assert co.stats.as_dict() == py.stats.as_dict()
    exact = starbench.search(tree, "star2", exact=True)  # auto: exact mode is Python's
    assert float(exact.value) == pytest.approx(co.value)


def test_choices_and_their_reasons():
    assert choose("python", "star2") == starbench.engines.Choice("python", "requested")
    assert choose("compiled", "star2").engine == "compiled"
    assert choose("auto", "star2") == starbench.engines.Choice("compiled", "auto")
    c = choose("auto", "star2", exact=True)
    assert c.engine == "python" and c.reason == "the compiled engine does not serve exact mode"
    c = choose("auto", "star1", time_budget=1.0)
    assert c.engine == "python" and "time budgets" in c.reason
    small = RegularTree(RegularTreeSpec(branching=2, chance_arity=2, depth=1), seed=0)
    c = choose("auto", "star1", tree=small, auto=Auto(min_nodes=AUTO_SOLVE_NODES))
    assert c.engine == "python" and str(AUTO_SOLVE_NODES) in c.reason


def test_refusals_are_one_line_naming_the_key():
    with pytest.raises(InputError, match=r"^engine: compiled cannot serve exact mode \(star2\); "):
        choose("compiled", "star2", exact=True)
    with pytest.raises(InputError, match=r"^--engine compiled cannot serve debug mode"):
        choose("compiled", "star2", debug=True, key="--engine")
    with pytest.raises(InputError, match=r"^engine: must be one of auto, compiled, python"):
        starbench.search(RegularTree(RegularTreeSpec(), seed=0), "star1", engine="gpu")


# --------------------------------------------------------------------------- run defaults
def test_run_defaults_live_in_one_place():
    """RunSettings holds every run default and its description; the Hydra schema is derived
    from it, and conf/config.yaml sets no run key of its own."""
    import dataclasses
    from pathlib import Path

    from omegaconf import OmegaConf

    from starbench.experiment.settings import RunConfig, RunSettings

    schema = {f.name: f for f in dataclasses.fields(RunConfig)}
    for f in dataclasses.fields(RunSettings):
        if f.name in ("tree", "algorithms") or f.metadata.get("internal"):
            assert f.name not in schema or f.name in ("tree", "algorithms")
            continue
        assert schema[f.name].default == f.default, f.name
        assert schema[f.name].metadata["help"] == f.metadata["help"], f.name
    conf = OmegaConf.load(Path(__file__).parents[1] / "conf" / "config.yaml")
    assert set(conf) == {"defaults", "hydra"}


def test_the_library_path_gets_the_range_checks():
    from starbench.errors import ConfigError
    from starbench.experiment.settings import AlgorithmSpec, RunSettings

    tree = RegularTreeSpec(branching=2, chance_arity=2, depth=1)
    ok = RunSettings(tree=tree, algorithms=(AlgorithmSpec("star1"),))
    assert ok.trees == 20
    bad = [
        (dict(trees=0), "trees: must be an integer >= 1"),
        (dict(n_jobs=0), "n_jobs: must be an integer >= 1"),
        (dict(resume="maybe"), "resume: must be one of auto, force"),
        (dict(engine="compiled", exact=True), "engine: compiled cannot serve exact mode"),
        (dict(target_se=-1.0), "target_se: must be a number > 0"),
        (dict(name="a/b"), "name: must be a folder name"),
    ]
    for kw, message in bad:
        with pytest.raises(ConfigError, match=message):
            RunSettings(tree=tree, algorithms=(AlgorithmSpec("star1"),), **kw)
    with pytest.raises(ConfigError, match="algorithms: must list at least one"):
        RunSettings(tree=tree, algorithms=())


def test_compiled_parameters_are_checked_on_every_call():
    """The compiled engine remembers resolved parameters per (name, typed values): a bad value
    is refused every time, and each call gets its own parameters."""
    tree = RegularTree(RegularTreeSpec(branching=2, chance_arity=2, depth=1))
    for _ in range(2):
        with pytest.raises(InputError, match="k must be an integer >= 0, got True"):
            starbench.search(tree, "star2.5-cyclic", engine="compiled", k=True)
    for k in (3, 1, 3):
        r = starbench.search(tree, "star2.5-sequential", engine="compiled", k=k)
        assert r.params["k"] == k
        r.params["k"] = -1  # a result's params are its own copy
    assert starbench.search(tree, "star2.5-sequential", engine="compiled", k=3).params["k"] == 3


def test_a_float_tree_key_is_refused_every_time():
    """Specs equal in value (5.0 == 5) share the per-spec shape cache; validation still sees
    the float."""
    assert RegularTree(RegularTreeSpec(branching=5, chance_arity=2, depth=1)).arities[0] == 5
    for _ in range(2):
        with pytest.raises(InputError, match="tree.branching"):
            RegularTree(RegularTreeSpec(branching=5.0, chance_arity=2, depth=1))


def test_auto_runs_a_small_cell_on_the_python_engine():
    """``run``'s auto: the compiled engine only where the cell's trees hold more than
    AUTO_RUN_NODES nodes in all (trees x size; max_trees when the cell may grow), so a first
    small run neither compiles nor loads the kernel.  What the kernel cannot serve is said
    first; an explicit engine=compiled is served."""
    from starbench.engines import AUTO_RUN_NODES, Choice
    from starbench.experiment.compute import cell_nodes, engine_choice
    from starbench.experiment.settings import AlgorithmSpec, RunSettings

    small = Choice("python", f"a cell of at most {AUTO_RUN_NODES} nodes")
    assert choose("auto", "star2", auto=Auto(cell_nodes=AUTO_RUN_NODES)) == small
    assert choose("auto", "star2", auto=Auto(cell_nodes=AUTO_RUN_NODES + 1)) == Choice(
        "compiled", "auto"
    )
    assert choose("compiled", "star2", auto=Auto(cell_nodes=1)) == Choice("compiled", "requested")
    assert choose("auto", "star2", exact=True, auto=Auto(cell_nodes=1)).reason.endswith(
        "exact mode"
    )
    spec = RegularTreeSpec(branching=5, chance_arity=5, depth=2)  # 156 nodes
    star2 = AlgorithmSpec("star2")
    few = RunSettings(tree=spec, algorithms=(star2,), trees=20)
    many = RunSettings(tree=spec, algorithms=(star2,), trees=200)
    growing = RunSettings(tree=spec, algorithms=(star2,), trees=20, target_se=1.0, max_trees=200)
    assert [cell_nodes(s) for s in (few, many, growing)] == [20 * 156, 200 * 156, 200 * 156]
    assert engine_choice(few, star2) == small
    assert engine_choice(many, star2).engine == engine_choice(growing, star2).engine == "compiled"
    forced = RunSettings(tree=spec, algorithms=(star2,), trees=20, engine="compiled")
    assert engine_choice(forced, star2).engine == "compiled"
    readme = (Path(__file__).resolve().parents[1] / "docs" / "engines.md").read_text()
    assert f"at most {AUTO_RUN_NODES:,} nodes in all" in " ".join(readme.split())


# --------------------------------------------------------------------------- the engine contract
def test_one_resolved_request_carries_the_label_and_the_key():
    from starbench.search.registry import AlgorithmSpec, resolve

    a = resolve("star2.5-cyclic", {"k": 3, "tt": 8, "tt_chance": True})
    assert a is resolve("star2.5-cyclic", {"k": 3, "tt": 8, "tt_chance": True})  # once
    assert a == AlgorithmSpec("star2.5-cyclic", (("k", 3), ("tt", 8), ("tt_chance", True)))
    assert a.label == "star2.5-cyclic:k=3,after_probe=resume,tt=8,tt_chance=true"
    assert a.key[0] == "star2.5-cyclic" and a.probing.k == 3 and not a.probing.sequential
    assert (a.table.bits, a.table.chance, a.table.probe) == (8, True, False)
    with pytest.raises(InputError, match="unknown parameter 'q'"):
        resolve("star2", {"q": 1})


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_one_run_path_ends_alike_on_both_engines(engine):
    """engines.run returns an Outcome on both engines: done with the result, or a budget stop
    with the statistics where it stopped (the same counters on both)."""
    from starbench.engines import execute
    from starbench.search.registry import resolve

    tree = RegularTree(RegularTreeSpec(branching=4, chance_arity=3, depth=3), 0, 1)
    done = execute(resolve("star2"), tree, engine=engine)
    assert done.status == "done" and done.engine == engine and done.value() is done.result
    stop = execute(resolve("star2"), tree, engine=engine, node_budget=50)
    assert stop.status == "budget_exceeded" and stop.result is None
    assert stop.stats.nodes == 51 and "node budget of 50" in stop.message
    with pytest.raises(BudgetExceeded) as e:
        stop.value()
    assert e.value.stats == stop.stats
    other = execute(resolve("star2"), tree, engine="compiled" if engine == "python" else "python")
    assert other.stats == done.stats


def test_the_search_subpackage_is_importable_and_the_function_still_works():
    import starbench
    import starbench.search.registry as registry  # the subpackage, not hidden by the function

    assert registry.resolve("star1").name == "star1"
    tree = RegularTree(RegularTreeSpec(branching=2, chance_arity=2, depth=2), 0, 0)
    assert (
        starbench.search(tree, "star1").value
        == starbench.search.reference_search(tree, "expectimax").value
    )


def test_importing_the_analysis_leaves_matplotlibs_backend_alone():
    code = (
        "import matplotlib; matplotlib.use('svg'); import starbench.analysis, "
        "starbench.analysis.plotting, starbench.analysis.style; print(matplotlib.get_backend())"
    )
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "svg"


def test_auto_keeps_the_engine_a_cells_rows_ran_on():
    """``engine=auto`` with the engine a cell's stored rows of a request ran on: that engine,
    where it serves the request, whatever the cell's size (a grown cell never mixes engines)."""
    spec = RegularTreeSpec(branching=4, chance_arity=4, depth=2)
    big, small = 10**9, 10
    assert choose("auto", "star2", tree=spec, auto=Auto(cell_nodes=big)).engine == "compiled"
    kept = choose("auto", "star2", tree=spec, auto=Auto(cell_nodes=big, kept="python"))
    assert kept.engine == "python" and "kept" in kept.reason
    assert choose(
        "auto", "star2", tree=spec, auto=Auto(cell_nodes=small, kept="compiled")
    ).engine == ("compiled")
    # where the compiled engine does not serve the request, the Python engine, kept or not
    assert (
        choose("auto", "mcts", tree=spec, auto=Auto(cell_nodes=big, kept="compiled")).engine
        == "python"
    )


def _engines(folder: Path) -> dict[str, set[str]]:
    import pandas as pd

    out: dict[str, set[str]] = {}
    for t in sorted(folder.rglob("table.parquet")):
        d = pd.read_parquet(t)
        for a, e in zip(d["algorithm"], d["engine"], strict=True):
            out.setdefault(a, set()).add(e)
    return out


def test_a_sweep_runs_each_algorithm_on_one_engine_and_a_grown_cell_keeps_it(tmp_path, capsys):
    """A sweep whose cells straddle ``AUTO_RUN_NODES`` (3 trees of 1,729 and of 46,657 nodes)
    runs each algorithm on one engine in every cell (``engine_nodes``: the largest cell's);
    grown with a size that would choose the other engine, a cell keeps its rows' engine."""
    from starbench.commands import cli

    sweep = [
        "run", "-m", "tree.chance_arity=2,6", "tree.branching=6", "tree.depth=3", "trees=3",
        "algorithms=[expectimax,star2]", "progress=false", f"hydra.sweep.dir={tmp_path}/s",
    ]  # fmt: skip
    assert cli.main(sweep) == 0, capsys.readouterr().err
    assert _engines(tmp_path / "s") == {"expectimax": {"compiled"}, "star2": {"compiled"}}
    cell = ["run", "tree.depth=2", "trees=2", "algorithms=[star2]", "progress=false"]
    assert cli.main([*cell, f"hydra.run.dir={tmp_path}/c"]) == 0
    assert _engines(tmp_path / "c") == {"star2": {"python"}}  # a small cell: Python
    grown = [*cell[:2], "trees=4", *cell[3:], "engine_nodes=1000000000"]
    assert cli.main([*grown, f"hydra.run.dir={tmp_path}/c"]) == 0
    assert _engines(tmp_path / "c") == {"star2": {"python"}}  # kept, though 10^9 nodes say compiled
    capsys.readouterr()
