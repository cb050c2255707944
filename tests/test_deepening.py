"""Iterative deepening with a transposition table on games: every iteration's value is that
depth's expectimax value, budgets stop the search at a depth, and ``run`` records it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from starbench.engines import search
from starbench.games.source import GAMES_INSTALL
from starbench.games.spec import GameSpec
from starbench.search.deepening import deepen
from starbench.search.registry import get_algorithm

pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")
EXE = str(Path(sys.executable).parent / "starbench")


def maker(name, exact=False, **params):
    info = get_algorithm(name)
    return lambda tree, **options: info.make(tree, params, exact=exact, **options)


def trees(at):
    return lambda depth: at(depth).tree


@pytest.mark.parametrize(
    "name,params",
    [
        ("expectimax", {"tt": 14}),
        ("star1", {"tt": 14}),
        ("star2", {"tt": 14}),
        ("star2", {"tt": 14, "tt_chance": True}),
        ("star2.5-sequential", {"k": 3, "tt": 2}),  # a tiny table: many replacements
        ("star2", {}),
    ],
)
def test_every_iteration_is_that_depths_expectimax(name, params):
    spec = GameSpec("pig(winscore=10)", depth=6)
    for instance in range(3):
        at = spec.sources(0, instance, False)
        for depth in (3, 6):
            ref = search(at(depth).tree, "expectimax", engine="python").value
            d = deepen(trees(at), maker(name, **params), depth, tt=params.get("tt", 0))
            assert d.depth_completed == depth
            assert [it.depth for it in d.iterations] == list(range(1, depth + 1))
            assert abs(d.result.value - ref) <= 1e-9
        assert d.stats.nodes == sum(it.nodes for it in d.iterations)


def test_exact_iterations_with_a_table():
    at = GameSpec("pig(winscore=6,diceoutcomes=3)", depth=5).sources(0, 1, True)
    for d in range(1, 6):
        ref = search(at(d).tree, "expectimax", engine="python", exact=True).value
        got = deepen(trees(at), maker("star2", True, tt=12, tt_chance=True), d, tt=12)
        assert got.result.value == ref


def test_a_node_budget_stops_at_a_depth():
    at = GameSpec("pig", depth=10).sources(0, 0, False)
    d = deepen(trees(at), maker("star2", tt=16), 10, tt=16, node_budget=20_000)
    assert 1 <= d.depth_completed < 10
    assert d.iterations[-1].completed is False and d.iterations[-1].depth == d.depth_completed + 1
    assert d.stats.nodes == 20_001  # stopped by the node that broke the budget


def run_deepening(tmp_path, *overrides):
    """``starbench run tree=game tree.iterative=true`` with ``overrides``; its table."""
    args = [EXE, "run", "tree=game", "tree.iterative=true", *overrides, "progress=false"]
    out = subprocess.run(
        [*args, f"hydra.run.dir={tmp_path}/h"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return pd.read_parquet(tmp_path / "h" / "table.parquet")


@pytest.mark.slow
def test_run_records_depth_completed(tmp_path):
    d = run_deepening(
        tmp_path,
        "tree.game='pig(winscore=10)'",
        "tree.depth=8",
        "algorithms=[expectimax,star2:tt=16]",
        "trees=2",
        "node_budget=10000",
    )
    assert set(d["status"]) == {"budget_exceeded"}
    assert (d["depth_completed"] < 8).all() and (d["depth_completed"] >= 1).all()
    its = json.loads(d["iterations"].iloc[0])
    assert [i["depth"] for i in its] == list(range(1, len(its) + 1))
    assert sum(i["nodes"] for i in its) == d["nodes"].iloc[0]


def test_run_rows_of_finished_deepenings_are_verified(tmp_path):
    d = run_deepening(
        tmp_path,
        "tree.game='pig(winscore=20)'",  # a small oracle to score the rows against
        "tree.depth=4",
        "algorithms=[expectimax,star1:tt=12,star2:tt=12,tt_chance=true]",
        "trees=3",
    )
    assert set(d["status"]) == {"ok"} and d["depth_completed"].eq(4).all()
    for r in d.itertuples():
        its = json.loads(r.iterations)
        assert sum(i["nodes"] for i in its) == r.nodes
        assert r.cpu_seconds >= sum(i["cpu_seconds"] for i in its) - 1e-3


def test_iterative_is_for_games_only(tmp_path):
    out = subprocess.run(
        [EXE, "run", "+tree.iterative=true", f"hydra.run.dir={tmp_path}/h"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert "tree.iterative" in out.stderr and "Traceback" not in out.stderr
