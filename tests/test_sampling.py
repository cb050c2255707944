"""Sparse sampling (``expectimax-ss``, ``star1-ss``, ``star2-ss``): one sampled tree for all
three, exact among themselves, inexact (``approx``) against the full tree."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from starbench import RegularTree, RegularTreeSpec
from starbench.record.rows import verify
from starbench.search import reference_search as search
from starbench.search.sampling import SampledTree, draws
from starbench.trees.explicit import parse_tree
from strategies import regular_specs, tree_objects

SS = [("star1-ss", {}), ("star2-ss", {}), ("star2-ss", {"after_probe": "research"})]


def _family(tree, samples, exact):
    ref = search(tree, "expectimax-ss", samples=samples, exact=exact)
    for name, params in SS:
        r = search(tree, name, samples=samples, exact=exact, **params)
        assert r.value == ref.value, (name, params, samples)
    return ref


@given(regular_specs, st.integers(0, 2**32), st.integers(0, 50), st.sampled_from([1, 2, 3, 7]))
def test_the_family_agrees_exactly_on_generated_trees(spec, seed, instance, samples):
    tree = RegularTree(spec, seed, instance)
    _family(tree, samples, exact=True)  # fractions
    _family(tree, samples, exact=False)  # floats


@given(tree_objects(max_depth=5, max_children=4, pattern="any"), st.sampled_from([1, 2, 5]))
def test_the_family_agrees_exactly_on_tree_files(obj, samples):
    tree = parse_tree(obj)
    _family(tree, samples, exact=True)


def test_the_draws_follow_the_probabilities_and_the_seed():
    from scipy.stats import chisquare

    probs = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8)]
    counts = [0] * 4
    for key in range(4000):
        for j in draws(7, key, probs, 3):
            counts[j] += 1
    n = sum(counts)
    assert chisquare(counts, [n * float(p) for p in probs]).pvalue > 0.001
    assert draws(7, 11, probs, 3) == draws(7, 11, probs, 3)
    assert [draws(7, k, probs, 5) for k in range(20)] != [draws(8, k, probs, 5) for k in range(20)]


def test_a_sampled_chance_node_has_c_equally_weighted_outcomes():
    spec = RegularTreeSpec(branching=2, chance_arity=6, depth=2, distribution="random")
    base = RegularTree(spec, 0, 0)
    t = SampledTree(base, 4)
    chance = t.children(t.root)[0]
    assert len(t.children(chance)) == 4 and t.probabilities(chance) == (Fraction(1, 4),) * 4
    assert set(t.children(chance)) <= set(base.children(chance))
    assert t.children(t.root) == base.children(base.root)  # decision nodes unchanged
    many = SampledTree(base, 2000)  # with many samples the value nears the full tree's
    full = search(base, "expectimax").value
    assert abs(search(many, "expectimax").value - full) < 0.05 * (base.U - base.L)


def test_rows_of_inexact_requests_are_approx_with_their_error(tmp_path):
    from test_runner import cli_run

    out = tmp_path / "cell"
    ss = "expectimax-ss:samples=2,star1-ss:samples=2,star2-ss:samples=2"
    algos = f"algorithms=[expectimax,star2,{ss}]"
    p = cli_run(algos, "trees=12", f"hydra.run.dir={out}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr  # approx rows never make a run exit 1
    df = pd.read_parquet(out / "table.parquet")
    ss = df[df["algorithm"].str.endswith("-ss")]
    exact = df[~df["algorithm"].str.endswith("-ss")]
    assert set(ss["status"]) == {"approx"} and set(exact["status"]) == {"ok"}
    assert set(ss["samples"]) == {2} and exact["samples"].isna().all()
    assert (ss["value_error"] == ss["value"] - ss["expectimax_value"]).all()
    assert (ss["value_error"] != 0).any()  # two samples per chance node do change values
    assert exact["value_error"].isna().all() and exact["decision_agrees"].isna().all()
    assert ss["decision_agrees"].notna().all()
    assert (ss["decision_agrees"] == ss["decision_optimal"]).all()  # both against expectimax
    assert "approx" in p.stdout and "mean |value error|" in p.stdout


def _row(algorithm, value, **kw):
    return {
        "instance": 0,
        "algorithm": algorithm,
        "run_status": "done",
        "value": value,
        "best_move": 0,
        "L": 0.0,
        "U": 10.0,
        "leaves": 5,
        "tt": 0,
        **kw,
    }


def test_an_inexact_row_is_never_a_reference_and_its_family_is_checked():
    rows = [
        _row("expectimax-ss", 4.0, samples=2),
        _row("star2-ss", 4.0, samples=2),
        _row("star1-ss", 4.5, samples=2),  # differs from its family: a bug
        _row("star2", 3.0),
        _row("star1", 3.0),
    ]
    got = {r["algorithm"]: v for r, *v in verify(rows, False)}
    assert got["expectimax-ss"][0] == "approx" and got["star2-ss"][0] == "approx"
    assert got["star1-ss"][0] == "mismatch"
    # without expectimax, the exact rows verify each other, never an approx row
    assert got["star2"][0] == "ok" and got["star2"][2] == "star2+star1"
    lone = verify([_row("star2", 3.0), _row("star2-ss", 3.0, samples=2)], False)
    assert lone[0][1] == "unverified" and lone[1][1] == "approx"


def test_the_compiled_engine_does_not_serve_sampling():
    from starbench.errors import InputError

    t = RegularTree(RegularTreeSpec(), 0, 0)
    with pytest.raises(InputError, match="expectimax-ss"):
        search(t, "expectimax-ss", engine="compiled")
    assert search(t, "expectimax-ss").params["samples"] == 8


def test_the_deeper_entry_rule_makes_a_request_inexact(tmp_path):
    """``tt_depth=deeper``: an entry searched at least as deep answers a node (as game
    programs let it); on piglet, whose key (its text: no model) leaves out the moves made, so
    that a position recurs with fewer plies left, that changes fixed-depth values, so its rows
    are approx with their error, never a mismatch.  (Pig's model key counts the moves made:
    there a position never recurs at another depth, and the rule changes nothing.)"""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.errors import InputError
    from starbench.search.registry import resolve
    from test_runner import cli_run

    assert not resolve("star2", {"tt": 12, "tt_depth": "deeper"}).exact
    assert resolve("star2", {"tt": 12}).exact
    with pytest.raises(InputError, match="tt_depth=deeper needs a table"):
        resolve("expectimax", {"tt_depth": "deeper"})
    out = tmp_path / "cell"
    deep = "expectimax:tt=12,tt_depth=deeper,star2:tt=12,tt_depth=deeper"
    algos = f"algorithms=[expectimax,expectimax:tt=12,{deep}]"
    p = cli_run(
        "tree=game",
        "tree.game='pig(winscore=10,piglet=true)'",
        "tree.depth=5",
        "trees=10",
        algos,
        f"hydra.run.dir={out}",
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    df = pd.read_parquet(out / "table.parquet")
    deeper = df["tt_depth"] == "deeper"
    assert set(df[deeper]["status"]) == {"approx"} and set(df[~deeper]["status"]) == {"ok"}
    assert (df[deeper]["value_error"] != 0).any()


# --------------------------------------------------------------------------- mcts
def test_mcts_finds_the_best_move_of_small_trees_and_is_reproducible():
    spec = RegularTreeSpec(branching=3, chance_arity=3, depth=2)
    agree = 0
    for i in range(10):
        t = RegularTree(spec, 0, i)
        e = search(t, "expectimax")
        m = search(t, "mcts", mcts_iterations=2000)
        assert m.stats.nodes == 2000 * 4  # root, move, outcome, leaf: every walk counted
        assert m.stats.leaves == 2000 and m.params["mcts_iterations"] == 2000
        assert search(t, "mcts", mcts_iterations=2000).value == m.value  # seeded
        assert search(t, "mcts", mcts_iterations=2000, mcts_seed=1).value != m.value
        agree += m.best_move in e.tied_moves
    assert agree >= 9


def test_mcts_rows_are_approx_and_its_parameters_key_them(tmp_path):
    from test_runner import cli_run

    out = tmp_path / "cell"
    algos = "algorithms=[expectimax,mcts:mcts_iterations=200,mcts:mcts_iterations=200,mcts_seed=1]"
    p = cli_run(algos, "trees=6", f"hydra.run.dir={out}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    df = pd.read_parquet(out / "table.parquet")
    m = df[df["algorithm"] == "mcts"]
    assert set(m["status"]) == {"approx"} and len(m) == 12
    assert set(m["mcts_seed"]) == {0, 1} and set(m["mcts_iterations"]) == {200}
    assert m["value_error"].notna().all() and m["decision_agrees"].notna().all()


def test_mcts_on_pig_under_a_node_budget():
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.engines import execute
    from starbench.games.spec import GameSpec
    from starbench.search.registry import resolve

    tree = GameSpec(game="pig(winscore=20)", depth=4).source(0, 3, False).tree
    r = search(tree, "mcts", mcts_iterations=300)
    assert r.best_move is not None and tree.L <= r.value <= tree.U
    stopped = execute(
        resolve("mcts", {"mcts_iterations": 10**6}), tree, engine="python", node_budget=500
    )
    assert stopped.status == "budget_exceeded" and stopped.stats.nodes == 501


def test_no_algorithm_parameter_shares_a_name_with_another_column():
    """Every algorithm parameter is a row column of its own: a name that another column
    already has (``iterations`` of iterative deepening, the cell's ``seed``) is refused here."""
    from dataclasses import fields

    from starbench.record.columns import declared
    from starbench.search.registry import ALGORITHMS, KEY_PARAMS
    from starbench.search.stats import SearchStats
    from starbench.trees.regular import RegularTreeSpec

    taken = {c.name for c in declared()} | {f.name for f in fields(RegularTreeSpec)}
    taken |= {f.name for f in fields(SearchStats)} | {"iterations", "depth_completed", "seed"}
    params = {p.name for info in ALGORITHMS.values() for p in info.params}
    # every parameter keys a row, except ChanceProbCut's calibration digest: its label carries
    # it (no column of its own), and a cell refuses two requests that differ only in it
    assert params - {"cal"} <= set(KEY_PARAMS)
    requested = {c.name for c in declared() if c.group == "request"}  # its own column
    clash = {p for p in params if p in taken and p not in requested}
    assert not clash, clash
    assert not params & {"iterations", "seed", "depth", "game", "instance"}
