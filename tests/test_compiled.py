"""The compiled engine agrees with the Python reference counter for counter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from starbench import RegularTree, RegularTreeSpec
from starbench.compiled import hashing as ch
from starbench.compiled.engine import CompiledTree, execute
from starbench.compiled.support import unsupported
from starbench.errors import BudgetExceeded, EvaluationError, InputError
from starbench.examples import example_path
from starbench.search import reference_search as search  # the Python reference engine
from starbench.search.registry import ALGORITHMS
from starbench.trees import hashing as ph
from starbench.trees.explicit import parse_tree
from strategies import regular_specs as specs
from strategies import tree_objects

EXE = str(Path(sys.executable).parent / "starbench")
#: Every algorithm the kernel runs, as its registry entry declares (``AlgorithmInfo.kernel``):
#: a new one is checked against the Python engine without a list to extend here.
KERNEL = {n: i for n, i in ALGORITHMS.items() if i.kernel is not None}
#: the ones for trees without chance nodes
MINIMAX = [(n, {}) for n, i in KERNEL.items() if not i.chance]


def _takes(name: str, *params: str) -> bool:
    return set(params) <= {p.name for p in KERNEL[name].params}


CONFIGS = (
    [(n, {}) for n, i in KERNEL.items() if i.chance]
    + [  # convention C2: no probe with the full window
        (n, {"after_probe": "research", "probe_full_window": False})
        for n in KERNEL
        if _takes(n, "after_probe", "probe_full_window")
    ]
    + [
        (n, {"k": k, "after_probe": a})
        for n in KERNEL
        if _takes(n, "k", "after_probe")
        for k in (0, 1, 2, 3, 5)
        for a in ("resume", "research")
    ]
)


#: with a transposition table (tt = log2 entries; 2 forces replacements)
TT_CONFIGS = [
    ("expectimax", {"tt": 2}),
    ("expectimax", {"tt": 12}),
    ("star1", {"tt": 12}),
    ("star1", {"tt": 3, "tt_chance": True}),
    ("star2", {"tt": 12}),
    ("star2", {"tt": 12, "tt_chance": True, "after_probe": "research"}),
    ("star2.5-cyclic", {"k": 3, "tt": 2, "tt_chance": True}),
    ("star2.5-sequential", {"k": 2, "tt": 12, "probe_full_window": False}),
    # the table in the probe phase (tt_probe)
    ("star2", {"tt": 12, "tt_chance": True, "tt_probe": True}),
    ("star2", {"tt": 2, "tt_chance": True, "tt_probe": True, "after_probe": "research"}),
    ("star2.5-cyclic", {"k": 3, "tt": 12, "tt_chance": True, "tt_probe": True}),
    ("star2.5-sequential", {"k": 2, "tt": 3, "tt_chance": True, "tt_probe": True}),
    # entries searched deeper answer too (tt_depth=deeper; inexact where depths differ)
    ("expectimax", {"tt": 12, "tt_depth": "deeper"}),
    ("star2", {"tt": 3, "tt_chance": True, "tt_probe": True, "tt_depth": "deeper"}),
    # the table at decision nodes only (tt_nodes=decision)
    ("expectimax", {"tt": 12, "tt_nodes": "decision"}),
    ("star1", {"tt": 12, "tt_nodes": "decision", "tt_chance": True}),
    ("star2", {"tt": 12, "tt_nodes": "decision", "tt_chance": True, "tt_probe": True}),
]


def same(tree, ct, configs=CONFIGS):
    for name, params in configs:
        py = search(tree, name, **params)
        co = execute(ct, name, params)
        assert (co.value, co.best_move, co.tied_moves, co.stats, co.params, co.root_values) == (
            py.value,
            py.best_move,
            py.tied_moves,
            py.stats,
            py.params,
            py.root_values,
        ), (name, params)
        # the counters per level too, each list summing to its total
        assert co.by_level == py.by_level, (name, params, co.by_level, py.by_level)
        py.by_level.check(py.stats)


def test_numba_hash_matches_the_python_hash_and_its_vectors():
    fns = {
        "splitmix64": (ph.splitmix64, ch.splitmix64),
        "mix": (ph.mix, ch.mix),
        "draw": (ph.draw, ch.draw),
    }
    for name, args, expected in ph.TEST_VECTORS:
        if name in fns:  # (version 2's: the next test)
            assert int(fns[name][1](*(np.uint64(a) for a in args))) == expected
    rng = np.random.default_rng(0)
    for a, b, c in rng.integers(0, 2**63, size=(200, 3), dtype=np.uint64):
        assert int(ch.draw(a, b, c)) == ph.draw(int(a), int(b), int(c))
        assert ch.unit_float(np.uint64(ch.mix(a, b))) == ph.unit_float(ph.mix(int(a), int(b)))
        pool, level = int(c % 7) + 1, int(b % 9)
        assert int(ch.pool_child(a, b, np.uint64(3), np.uint64(level), np.uint64(pool))) == (
            ph.pool_child(int(a), int(b), 3, level, pool)
        )
        assert ch.pool_offset(a, b, level, np.uint64(101)) == ph.pool_offset(
            int(a), int(b), level, 101
        )


def test_numba_generator_versions_match_the_python_ones():
    """Every draw of both generator versions (``trees.generators``) is the same number in the
    compiled engine, and version 2's test vectors hold there too."""
    from starbench.trees.generators import GENERATORS

    for name, args, expected in ph.TEST_VECTORS:
        if name in ("child_id2", "rotl32"):
            assert int(getattr(ch, name)(*(np.uint64(a) for a in args))) == expected
    rng = np.random.default_rng(1)
    for a, b, c in rng.integers(0, 2**64 - 1, size=(300, 3), dtype=np.uint64, endpoint=True):
        r1, wmax, pool, level = int(c % 10**6) + 1, int(b % 16) + 1, int(c % 7) + 1, int(a % 9)
        # (a divisor bundle comes back to Python as ints: made uint64 again)
        r1d = tuple(map(np.uint64, ch.divisor(np.uint64(r1))))
        wd = tuple(map(np.uint64, ch.divisor(np.uint64(wmax))))
        for version, g in GENERATORS.items():
            ts, nid = int(a), int(b)
            j = int(c % 30)
            assert int(ch.child(version, b, np.uint64(j))) == g.child(nid, j)
            assert int(ch.increment(version, a, b, r1d)) == g.increment(ts, nid, r1)
            assert int(ch.leaf_value(version, a, b, r1d)) == g.leaf_value(ts, nid, r1)
            assert int(ch.weight(version, a, b, wd)) == g.weight(ts, nid, wmax)
            got = ch.pooled(version, a, b, np.uint64(j), np.uint64(level), np.uint64(pool))
            assert int(got) == g.pooled(ts, nid, j, level, pool)
            assert ch.offset(version, a, b, level, np.uint64(r1)) == g.offset(ts, nid, level, r1)
            assert ch.noise(version, a, b, j % 12) == g.noise(ts, nid, j % 12)


@given(tree_objects(max_depth=5, max_children=4, pattern="any"))
def test_explicit_trees(obj):
    t = parse_tree(obj)
    same(t, CompiledTree.from_explicit(t))


@given(tree_objects(max_depth=6, max_children=4, pattern="regular"))
def test_explicit_regular_trees(obj):
    t = parse_tree(obj)
    same(t, CompiledTree.from_explicit(t))


@given(tree_objects(max_depth=5, max_children=4, pattern="minimax"))
def test_explicit_minimax_trees(obj):
    t = parse_tree(obj)
    same(t, CompiledTree.from_explicit(t), CONFIGS + MINIMAX)


@given(specs, st.integers(0, 2**64 - 1), st.integers(0, 1000))
def test_generated_trees(spec, seed, instance):
    same(RegularTree(spec, seed, instance), CompiledTree.from_regular(spec, seed, instance))


@given(specs, st.integers(0, 2**64 - 1), st.integers(0, 1000))
def test_generated_trees_with_a_table(spec, seed, instance):
    ct = CompiledTree.from_regular(spec, seed, instance)
    same(RegularTree(spec, seed, instance), ct, TT_CONFIGS)


@given(tree_objects(max_depth=5, max_children=4, pattern="any"))
def test_explicit_trees_with_a_table(obj):
    t = parse_tree(obj)
    same(t, CompiledTree.from_explicit(t), TT_CONFIGS)


@pytest.mark.parametrize("pool", [1, 3, 20])
def test_pooled_trees_with_a_table(pool):
    spec = RegularTreeSpec(branching=4, chance_arity=4, depth=3, pool=pool, value_model="uniform")
    for i in range(4):
        ct = CompiledTree.from_regular(spec, 5, i)
        same(RegularTree(spec, 5, i), ct, TT_CONFIGS)
        assert execute(ct, "expectimax", {"tt": 12}).stats.tt_cutoffs > 0


@given(tree_objects(max_depth=5, max_children=3, pattern="minimax"))
def test_minimax_trees_with_a_table(obj):
    t = parse_tree(obj)
    same(t, CompiledTree.from_explicit(t), [("alphabeta", {"tt": 4}), ("minimax", {"tt": 4})])


@pytest.mark.parametrize(
    "extra",
    [
        dict(ordering="static"),
        dict(distribution="dice", chance_arity=21, branching=3),
        dict(pattern="max,min", depth=4),
        dict(depth=3, trailing_chance=True),
        dict(outcome_order="probable", distribution="random"),
        dict(pool=3, ordering="static"),  # pooled trees are unfolded into arrays
        dict(pool=1, distribution="random"),
    ],
)
def test_generated_lazy_variants(extra):
    spec = RegularTreeSpec(**{"branching": 4, "chance_arity": 3, "depth": 2, **extra})
    for i in range(5):
        ct = CompiledTree.from_regular(spec, 3, i)
        assert ct.lazy == (spec.pool == 0)  # none of these needs the full pass
        configs = CONFIGS if spec.pattern != "max,min" else MINIMAX
        same(RegularTree(spec, 3, i), ct, configs)


def test_node_budget_stops_both_engines_at_the_same_node():
    spec = RegularTreeSpec(branching=10, chance_arity=10, depth=12)
    for name in ("expectimax", "star2"):
        with pytest.raises(BudgetExceeded):
            search(RegularTree(spec, 0, 0), name, node_budget=5000)
        with pytest.raises(BudgetExceeded) as e:
            execute(CompiledTree.from_regular(spec, 0, 0), name, node_budget=5000)
        assert e.value.stats.nodes == 5001


def test_bad_evaluation_is_an_error_not_a_crash():
    t = parse_tree({"bounds": [0, 10], "root": {"max": [1, 2]}})
    ct = CompiledTree.from_explicit(t)
    ct.arrays[4][2] = 11.0  # corrupt a leaf behind the loader's back
    with pytest.raises(EvaluationError, match="outside the bounds"):
        execute(ct, "star1")


def test_the_kernel_frees_every_array_it_allocates():
    """The kernel's arrays are borrowed views of owner arrays (``kernel.borrow``): numba's
    allocator must see every allocation freed, after a finished search, a budget stop, a bad
    evaluation and a search with a table."""
    from numba.core.runtime import _nrt_python, rtsys

    spec = RegularTreeSpec(branching=4, chance_arity=3, depth=4)
    bad = CompiledTree.from_explicit(parse_tree({"bounds": [0, 10], "root": {"max": [1, 2]}}))
    bad.arrays[4][2] = 11.0

    def searches():
        for name in ("expectimax", "star1", "star2", "star2.5-cyclic", "star2.5-sequential"):
            execute(CompiledTree.from_regular(spec, 0, 1), name)
            with pytest.raises(BudgetExceeded):
                execute(CompiledTree.from_regular(spec, 0, 1), name, node_budget=50)
        execute(CompiledTree.from_regular(spec, 0, 1), "star2", {"tt": 8})
        with pytest.raises(EvaluationError):
            execute(bad, "star1")

    searches()  # compiled and warm
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        searches()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    allocated = after.alloc - before.alloc
    assert allocated >= 12 * 9  # the nine owner arrays of each search at least
    assert after.free - before.free == allocated
    assert after.mi_free - before.mi_free == after.mi_alloc - before.mi_alloc


def test_what_the_compiled_engine_does_not_serve():
    assert unsupported("star1", exact=True) == "exact mode"
    assert unsupported("star1", debug=True) == "debug mode"
    assert unsupported("star1", time_budget=1.0) == "time budgets"
    assert unsupported("star2.5-cyclic") is None


@pytest.mark.slow  # two fresh processes
def test_cli_compiled_engine_twice_in_fresh_processes(tmp_path):
    """numba's cache is loaded by the second process (the segfault risk of recursive kernels)."""
    for _ in range(2):
        p = subprocess.run(
            [EXE, "solve", str(example_path("dice-small")), "--engine", "compiled", "--json"],
            capture_output=True,
            text=True,
        )
        assert p.returncode == 0, p.stderr
        assert {r["best_move"] for r in json.loads(p.stdout)} == {1}
    for _ in range(2):
        p = subprocess.run(
            [
                EXE,
                "run",
                "experiment=smoke",
                "engine=compiled",
                f"hydra.run.dir={tmp_path}/cell",
                "trees=4",
            ],
            capture_output=True,
            text=True,
        )
        assert p.returncode == 0, p.stderr


def test_solve_engines_agree_and_exact_is_refused(capsys):
    from starbench.commands import cli

    path = str(example_path("dice-small"))
    outs = []
    for engine in ("python", "compiled"):
        assert cli.main(["solve", path, "--json", "--engine", engine]) == 0
        outs.append(
            [
                {k: v for k, v in r.items() if k != "seconds"}
                for r in json.loads(capsys.readouterr().out)
            ]
        )
    assert outs[0] == outs[1]
    assert cli.main(["solve", path, "--engine", "compiled", "--exact"]) == 2
    assert "--engine compiled cannot serve exact mode" in capsys.readouterr().err


def test_runner_engines(tmp_path, capsys):
    from starbench.commands import cli

    assert (
        cli.main(
            [
                "run",
                "experiment=smoke",
                "engine=compiled",
                "exact=true",
                f"hydra.run.dir={tmp_path}/a",
            ]
        )
        == 2
    )
    assert "engine: compiled cannot serve exact mode" in capsys.readouterr().err
    assert cli.main(["run", "experiment=smoke", "exact=true", f"hydra.run.dir={tmp_path}/b"]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "on the Python engine" in line]
    assert len(notes) == 1, err  # one line per reason, naming every algorithm
    assert " star1, " in notes[0] and notes[0].endswith(
        "run on the Python engine (the compiled engine does not serve exact mode)"
    )
    import pandas as pd

    py = pd.read_parquet(next((tmp_path).glob("b/table.parquet")))
    assert set(py["engine"]) == {"python"} and set(py["status"]) == {"ok"}
    assert (
        cli.main(["run", "experiment=smoke", "engine=compiled", f"hydra.run.dir={tmp_path}/c"]) == 0
    )
    co = pd.read_parquet(tmp_path / "c/table.parquet")
    assert set(co["engine"]) == {"compiled"}
    assert (
        cli.main(["run", "experiment=smoke", "engine=python", f"hydra.run.dir={tmp_path}/d"]) == 0
    )
    pp = pd.read_parquet(tmp_path / "d/table.parquet")
    cols = [
        "algorithm",
        "k",
        "after_probe",
        "instance",
        "value",
        "best_move",
        "nodes",
        "leaves",
        "probe_nodes",
        "probe_leaves",
        "chance_cutoffs",
        "probe_cutoffs",
        "decision_cutoffs",
        "resumed",
        "status",
        "L",
        "U",
    ]
    pd.testing.assert_frame_equal(co[cols], pp[cols])


@pytest.mark.slow  # a benchmark's smoke test: fresh processes and timing loops
def test_bench_writes_markdown_and_json(tmp_path, monkeypatch):
    from starbench.commands import bench as bench_module
    from starbench.commands.bench import bench
    from starbench.experiment import timing

    monkeypatch.setattr(timing, "MIN_REPEAT_SECONDS", 0.01)  # what is written, not speed
    monkeypatch.setattr(bench_module, "PER_CALL_CALLS", 100)
    result = bench(
        tmp_path,
        instances=1,
        repeats=2,
        shapes=(("tiny", dict(branching=3, chance_arity=3, depth=2)),),
        compile_and_memory=False,
        paired_repeats=3,
    )
    md = (tmp_path / "bench.md").read_text()
    paired = [r for r in result["rows"] if "paired" in r]  # the user's way, paired
    assert {(r["kind"], r["engine"], r["generator"]) for r in paired} == {
        ("engine", "compiled", 1),
        ("engine", "compiled", 2),
    }
    assert len(paired) == 10 and all(r["paired"]["repeats"] == 3 for r in paired)
    for r in paired:
        assert 0 < r["paired"]["ratio_min"] <= r["paired"]["ratio"] <= r["paired"]["ratio_max"]
    assert "| tiny | 2 | star2 | " in md.split("% anchor, paired |")[1]
    for v in (1, 2):  # every shape under both generator versions
        assert f"| tiny | {v} | minimum-work kernel (anchor) |" in md
        assert f"| tiny | {v} | star2.5-cyclic:k=2 |" in md
    assert {r["generator"] for r in result["rows"]} == {1, 2}
    assert "| tiny | star2 | " in md  # the versions side by side
    assert "load average" in md
    data = json.loads((tmp_path / "bench.json").read_text())
    assert data["rows"] == result["rows"]
    assert {(r["kind"], r["engine"]) for r in data["rows"]} == {
        ("anchor", "compiled"),
        ("ceiling", "compiled"),
        ("bare", "compiled"),
        ("bare", "python"),
        ("engine", "compiled"),
        ("kernel", "compiled"),
        ("engine", "python"),
    }
    for r in data["rows"]:
        assert r["nodes_per_s"] > 0 and r["ratio_min"] <= r["ratio"] <= r["ratio_max"]
        if r["engine"] == "compiled":  # also against the bare kernel, same repeats
            v = r["vs_bare"]
            assert v["ratio_min"] <= v["ratio"] <= v["ratio_max"]
    assert "| tiny | 2 | minimum-work loop |" in md
    assert "| tiny | 2 | bare (generator's hashing) |" in md
    pc = data["per_call"]  # the per-call section: public API, kernel only, the runner
    assert pc["tree_nodes"] == 186 and len(pc["algorithms"]) == 7
    assert pc["kernel_us"] > 0 and 0 < pc["runner_kernels_ms"] < pc["runner_ms"]
    assert "Per call (CPU time" in md
    assert len(data["load"]["before"]) == 3
    from starbench.record.metadata import git_state

    commit, dirty = git_state()  # the code it measured, in the report
    shown = "not a git checkout" if commit is None else f"commit {commit[:12]} ("
    assert data["source"].startswith(shown) and data["source"] in md
    assert ("uncommitted changes" in md) == bool(dirty)


def test_the_minimum_work_kernels_visit_the_whole_tree():
    """The anchor (recursive) and the loop visit every node of the shape; the anchor refuses a
    shape that is not alternating."""
    from starbench.commands.bench import anchor, ceiling

    for params in (
        dict(branching=5, chance_arity=6, depth=3),
        dict(depth=2, chance_arity=21, distribution="dice"),
    ):
        spec = RegularTreeSpec(**params)
        for i in range(3):
            assert anchor(spec, 0, i)[1] == ceiling(spec, 0, i)[1] == spec.size
    with pytest.raises(InputError, match="alternating"):
        anchor(RegularTreeSpec(trailing_chance=True), 0, 0)


def test_the_bench_times_the_default_experiments_algorithms():
    import yaml

    from starbench.commands.bench import DEFAULT_ALGORITHMS

    conf = Path(__file__).resolve().parents[1] / "conf" / "algorithms" / "default.yaml"
    listed = yaml.safe_load(conf.read_text())["algorithms"]
    assert [(a.pop("name"), a) for a in listed] == [(n, dict(p)) for n, p in DEFAULT_ALGORITHMS]


def test_interleaved_ratios_are_taken_within_each_repeat(monkeypatch):
    """Every repeat times every contender; a contender's ratio is to the reference's rate in the
    same repeat: a contender that does the reference's work twice per node is at 50 %.  The
    clock is the work itself (a fake CPU clock), so the machine's load cannot change it."""
    import types

    from starbench.experiment import timing as bench

    clock = [0.0]
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(process_time=lambda: clock[0]))

    def work(i, reps=1):
        clock[0] += 1e-3 * reps  # one ms of "CPU" per pass of the reference's work
        return 1000

    out = bench.interleaved(
        {"ref": work, "half": lambda i: work(i, 2)}, instances=1, repeats=5, reference="ref"
    )
    assert out["ref"]["ratio"] == 1.0
    assert out["half"]["ratio"] == pytest.approx(0.5)


def test_the_ceiling_kernel_counts_the_tree():
    from starbench.commands.bench import ceiling

    for params in (
        dict(branching=3, chance_arity=4, depth=3),
        dict(chance_arity=21, distribution="dice"),
    ):
        spec = RegularTreeSpec(**params)
        assert ceiling(spec, 0, 1)[1] == spec.size


def test_bare_kernels_count_the_tree():
    from starbench.commands.bench import bare_compiled, bare_python

    for version in (1, 2):  # the generator's own hashing, under each version
        spec = RegularTreeSpec(branching=3, chance_arity=4, depth=3, generator_version=version)
        v1, n1 = bare_python(spec, 0, 1)
        v2, n2 = bare_compiled(spec, 0, 1)
        assert n1 == n2 == spec.size
        assert v1 == pytest.approx(v2)
        assert v1 == pytest.approx(search(RegularTree(spec, 0, 1), "expectimax").value)


@pytest.mark.slow  # a benchmark's smoke test
def test_engine_speed_script_measures_shares_and_writes_both_codes_side_by_side(monkeypatch):
    """``scripts/engine_speed.py``: a measuring process's shares (every shape and algorithm of
    the bench, each against the anchor) and per-call time, the affinity given back; the report
    puts before and after side by side with the Star variants' targets."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "engine_speed.py"
    spec = importlib.util.spec_from_file_location("engine_speed", path)
    es = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(es)
    monkeypatch.setattr(es, "BLOCK", 0.002)  # what is measured, not how fast
    cores = os.sched_getaffinity(0)
    got = es.measure(2)
    assert os.sched_getaffinity(0) == cores
    from starbench.commands.bench import ALGOS, SHAPES, machine

    assert set(got["shares"]) == {label for label, _ in SHAPES}
    for by_algo in got["shares"].values():
        assert set(by_algo) == {a for a, _ in ALGOS}
        assert all(len(v) == 2 and min(v) > 0 for v in by_algo.values())
    assert got["per_call_us"] > 0
    share = lambda v: {**es._pct(v), "n": len(v)}  # noqa: E731
    both = {s: {a: share(v) for a, v in by.items()} for s, by in got["shares"].items()}
    result = {
        "machine": machine(),
        "date": "2026-12-04",
        "before": {"commit": "abc"},
        "after": {"source": "commit def (clean tree)"},
        "load": {"before": [0.1, 0.2, 0.3], "after": [0.2, 0.2, 0.3]},
        "rounds": 1,
        "repeats_per_process": 2,
        "block_seconds": es.BLOCK,
        "targets": es.TARGETS,
        "shares": {"before": both, "after": both},
        "per_call_us": {k: {"median": 20.0, "min": 19.0, "max": 21.0} for k in ("before", "after")},
        "compile_s": {k: {"median": 15.0, "min": 14.0, "max": 16.0} for k in ("before", "after")},
        "compiles": 3,
    }
    md = es.markdown(result)
    assert "| tree | algorithm | before | after | target |" in md
    assert md.count("| star2.5-cyclic |") == 3 and "| b20-c21dice-d2 | star2 |" in md
    row = next(r for r in md.splitlines() if r.startswith("| b5-c6-d4 | star2 |"))
    assert row.endswith("| 45 |")
    row = next(r for r in md.splitlines() if r.startswith("| b5-c6-d4 | expectimax |"))
    assert row.endswith("|  |")  # no target
    assert "before 20.0 us, after 20.0 us" in md and "median of 3 interleaved" in md
    result["load_waited_s"] = {"before": 0, "after": 75.0}
    md = es.markdown(result)
    assert "0.10/0.20/0.30 before, 0.20/0.20/0.30 (read after waiting 75 s) after" in md


def test_waiting_for_a_quiet_machine_reads_the_load_until_it_falls_or_time_runs_out(monkeypatch):
    from starbench.experiment import timing as bench

    readings = iter([[1.2, 1, 1], [0.8, 1, 1], [0.45, 0.9, 1]])
    clock = iter(range(0, 100, 5))
    monkeypatch.setattr(bench, "load_average", lambda: next(readings))
    monkeypatch.setattr(bench.time, "monotonic", lambda: float(next(clock)))
    monkeypatch.setattr(bench.time, "sleep", lambda s: None)
    assert bench.wait_for_quiet(60) == {"load": [0.45, 0.9, 1], "waited_s": 15.0, "quiet": True}
    readings = iter([[1.2, 1, 1]] * 3)
    clock = iter([0, 0, 30, 60])
    got = bench.wait_for_quiet(25)
    assert got == {"load": [1.2, 1, 1], "waited_s": 30.0, "quiet": False}
