"""Transposition tables (``tt``, ``tt_chance``): never a wrong value, the table's rules, the
counting rule, and the table through ``run`` and ``solve``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starbench import RegularTree, RegularTreeSpec
from starbench.engines import search as engine_search
from starbench.errors import InputError
from starbench.examples import example_path
from starbench.search import reference_search as search  # the Python reference engine
from starbench.search.arith import tolerance
from starbench.search.transposition import TranspositionTable
from starbench.trees.explicit import parse_tree
from strategies import regular_specs as specs
from strategies import tree_objects

EXE = str(Path(sys.executable).parent / "starbench")
WITH_TABLE = [
    ("expectimax", {}),
    ("star1", {}),
    ("star1", {"tt_chance": True}),
    ("star2", {}),
    ("star2", {"tt_chance": True, "after_probe": "research"}),
    ("star2.5-cyclic", {"k": 3, "tt_chance": True}),
    ("star2.5-sequential", {"k": 2}),
    ("star2.5-sequential", {"k": 4, "tt_chance": True, "probe_full_window": False}),
    ("star2", {"tt_chance": True, "tt_probe": True}),
    ("star2", {"tt_chance": True, "tt_probe": True, "after_probe": "research"}),
    ("star2.5-cyclic", {"k": 3, "tt_chance": True, "tt_probe": True}),
    ("star2.5-sequential", {"k": 2, "tt_chance": True, "tt_probe": True}),
    ("expectimax", {"tt_nodes": "decision"}),
    ("star2", {"tt_nodes": "decision", "tt_chance": True, "tt_probe": True}),
]


def check(tree, bits: int) -> None:
    """Every algorithm with a table of 2**bits entries equals expectimax without one: exactly
    in fractions (debug mode checks every windowed result, table answers included), within the
    tolerance in floats."""
    ref = search(tree, "expectimax", exact=True)
    tol = tolerance(*tree.bounds)
    for name, params in WITH_TABLE:
        r = search(tree, name, exact=True, debug=True, tt=bits, **params)
        assert r.value == ref.value, (name, params, bits)
        if ref.best_move is not None:
            assert r.best_move in ref.tied_moves or name != "expectimax", (name, params)
        f = search(tree, name, tt=bits, **params)
        assert abs(f.value - float(ref.value)) <= tol, (name, params, bits)


@pytest.mark.slow
@settings(max_examples=60)  # DAGs leaning to where a table goes wrong: test_table_exactness
@given(specs, st.integers(0, 2**64 - 1), st.integers(0, 100), st.sampled_from([1, 3, 12]))
def test_a_table_never_changes_a_value_on_generated_trees(spec, seed, instance, bits):
    check(RegularTree(spec, seed, instance), bits)


@pytest.mark.slow
@settings(max_examples=16)
@given(st.integers(1, 6), st.integers(0, 2**32), st.sampled_from([1, 2, 4]))
def test_a_table_never_changes_a_value_on_dags_with_many_transpositions(depth, seed, pool):
    spec = RegularTreeSpec(
        branching=3, chance_arity=3, depth=min(depth, 4), pool=pool, value_model="uniform"
    )
    check(RegularTree(spec, seed, 0), 8)


@given(tree_objects(max_depth=5, max_children=4, pattern="any"))
def test_a_table_never_changes_a_value_on_tree_files(obj):
    check(parse_tree(obj), 4)


def test_the_table_rules():
    t = TranspositionTable(2)
    t.store(5, 3, 0, 10, 1)
    assert t.probe(5, 3) == (5, 3, 0, 10, 1)
    assert t.probe(5, 2) is None  # another depth is another quantity
    assert t.move(5) == 1  # ... but its best move is a hint
    t.store(5, 3, 4, 20, None)  # same key and depth: the tighter bounds, the old move
    assert t.probe(5, 3) == (5, 3, 4, 10, 1)
    t.store(9, 2, 1, 1, 0)  # slot 1 again, shallower: the deeper entry stays
    assert t.probe(9, 2) is None and t.probe(5, 3) is not None
    t.store(9, 4, 1, 1, 0)  # deeper: replaces
    assert t.probe(9, 4) == (9, 4, 1, 1, 0) and t.probe(5, 3) is None


def test_the_counting_rule_on_a_pool_of_one():
    """Every level holds one node: expectimax searches the first child of each node and
    answers the others from the table, each entered once (counted) and nothing below."""
    spec = RegularTreeSpec(branching=3, chance_arity=4, depth=3, pool=1)
    tree = RegularTree(spec, 0, 0)
    r = engine_search(tree, "expectimax", tt=10)
    expected = 1  # the leaf level
    for arity in reversed(spec.arities):
        expected = 1 + expected + (arity - 1)  # the node, its first child, the others answered
    assert r.stats.nodes == expected
    inner_below_root = len(spec.arities) - 1
    answered = sum(a - 1 for a in spec.arities[:-1])  # children that are inner nodes
    assert r.stats.tt_cutoffs == r.stats.tt_hits == answered
    assert r.stats.tt_probes == inner_below_root + answered
    assert r.stats.leaves == 1 + (spec.arities[-1] - 1)  # leaves are never looked up
    assert r.value == engine_search(tree, "expectimax").value


def test_the_table_pays_on_dags_and_is_free_on_trees():
    spec = RegularTreeSpec(branching=4, chance_arity=4, depth=3, pool=3)
    no_pool = RegularTreeSpec(branching=4, chance_arity=4, depth=3)
    for name in ("expectimax", "star1", "star2"):
        plain = engine_search(RegularTree(spec, 0, 1), name)
        table = engine_search(RegularTree(spec, 0, 1), name, tt=12)
        assert table.stats.nodes < plain.stats.nodes / 5 and table.stats.tt_cutoffs > 0
        a = engine_search(RegularTree(no_pool, 0, 1), name)
        b = engine_search(RegularTree(no_pool, 0, 1), name, tt=12)
        assert b.stats.tt_hits == 0 and b.stats.nodes == a.stats.nodes and b.value == a.value


def test_tt_is_checked_and_both_engines_count_alike():
    tree = RegularTree(RegularTreeSpec(pool=2, depth=3), 0, 0)
    for bad in (-1, 31, "x"):
        with pytest.raises(InputError, match=r"tt must be an integer"):
            engine_search(tree, "star2", tt=bad)
    for engine in ("compiled", "python"):
        r = engine_search(tree, "star2", engine=engine, tt=4)
        assert r.stats.tt_cutoffs > 0
    py = engine_search(tree, "star2", engine="python", tt=4, tt_chance=True)
    co = engine_search(tree, "star2", engine="compiled", tt=4, tt_chance=True)
    assert (py.value, py.best_move, py.stats) == (co.value, co.best_move, co.stats)
    with pytest.raises(InputError, match=r"unknown parameter 'tt_chance' for algorithm expectimax"):
        engine_search(tree, "expectimax", tt=4, tt_chance=True)


@pytest.mark.slow  # runs and resumes
def test_run_keys_rows_by_tt_and_resumes(tmp_path):
    args = [
        EXE,
        "run",
        "algorithms=[expectimax,expectimax:tt=10,star2,star2:tt=10,star2:tt=10,tt_chance=true]",
        "tree.pool=2",
        "tree.depth=3",
        "trees=3",
        "progress=false",
        "engine=compiled",
        f"hydra.run.dir={tmp_path}/h",
    ]
    first = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    d = pd.read_parquet(tmp_path / "h" / "table.parquet")
    assert d["pool"].eq(2).all()
    assert len(d) == 15 and set(d["status"]) == {"ok"}
    assert sorted(d["tt"].unique()) == [0, 10]
    assert d.loc[d["tt"] == 0, "tt_probes"].eq(0).all()
    assert d["engine"].eq("compiled").all()  # the table runs in the compiled kernel too
    with_table = d[(d["algorithm"] == "expectimax") & (d["tt"] == 10)]
    assert (with_table["pct_leaves"] < 100).all()  # against expectimax without a table
    assert d["tt_chance"].sum() == 3
    again = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "(15 rows, 0 computed now)" in again.stdout


def test_solve_reports_the_table():
    tree = str(example_path("dice-small"))
    out = subprocess.run(
        [EXE, "solve", tree, "--algorithm", "star2:tt=8", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)
    # dice-small has no two identical subtrees (a tree file's transpositions): never found
    assert row["tt"] == 8 and row["tt_probes"] > 0 and row["tt_hits"] == 0


def test_cells_name_their_pool_and_keep_their_digest_without_one():
    from starbench.experiment.settings import cell_name
    from starbench.record.identity import cell_identity

    plain = RegularTreeSpec()
    assert "pool" not in cell_identity(plain, 0, False)["tree"]  # stored cells keep their digest
    assert cell_identity(RegularTreeSpec(pool=3), 0, False)["tree"]["pool"] == 3
    assert "_pool3_" in cell_name({**plain.as_dict(), "pool": 3}, 0, False)
    assert "pool" not in cell_name(plain.as_dict(), 0, False)
