"""Baselines: the seeds' worked examples, the Knuth-Moore minimal tree, minimax = alpha-beta."""

from __future__ import annotations

import pytest
from hypothesis import given

from starbench import RegularTree, RegularTreeSpec
from starbench.examples import example_path
from starbench.games import GameTree, TicTacToeState
from starbench.search import ALGORITHMS
from starbench.search import reference_search as search  # the Python reference engine
from starbench.trees import load_tree
from starbench.trees.explicit import parse_tree
from strategies import tree_objects


def test_seed_abstract_tree():
    """003_...: MAX over three MIN nodes, leaves 3 5 | 2 9 | 6 0: value 3, move 0 ("A")."""
    tree = load_tree(example_path("seed-abstract"))
    for name, info in ALGORITHMS.items():
        if not info.exact and info.reference is None:
            continue  # an estimate (MCTS); the sampled ones are exact without chance nodes
        # ChanceProbCut with a finite t needs interior values, which a JSON tree has not
        params = {"t": float("inf")} if name == "chanceprobcut" else {}
        r = search(tree, name, exact=True, **params)
        assert (r.value, r.best_move) == (3, 0), name
    assert search(tree, "minimax").tied_moves == (0,)
    # alpha-beta: A = min(3, 5) = 3; B's first leaf 2 <= 3 cuts the 9; C needs both 6 and 0.
    # (With alpha and beta swapped at the root, a published bug, every node would cut at once.)
    ab = search(tree, "alphabeta")
    assert (ab.stats.leaves, ab.stats.decision_cutoffs) == (5, 1)


def test_seed_tictactoe_endgame_through_the_game_adapter():
    """003_...: XXO/OOX/..., X to move: value 0 (draw), X plays (2,0)."""
    state = TicTacToeState.from_rows("XXO", "OOX", "...")
    tree = GameTree(state, (state.min_utility(), state.max_utility()))
    for name in ("minimax", "alphabeta", "expectimax", "star1", "star2"):
        r = search(tree, name, exact=True)
        action = tree.actions(tree.root)[r.best_move]
        assert r.value == 0 and divmod(action, 3) == (2, 0), name
    mm = search(tree, "minimax")
    assert mm.tied_moves == (0,)  # the other two moves lose (-1)
    # the whole tree of the seed: root, 3 MIN nodes, 6 replies of which 4 continue to X's last move
    assert mm.stats.nodes == 1 + 3 + 6 + 4
    assert mm.stats.leaves == 6


def test_game_horizon_uses_the_heuristic():
    state = TicTacToeState.from_rows("X..", "...", "...", to_move="O")
    tree = GameTree(state, (-1, 1), horizon=1, heuristic=lambda s: 0)
    r = search(tree, "minimax")
    assert r.value == 0 and r.stats.leaves == 8  # one ply, then the horizon


@pytest.mark.parametrize("b", [2, 3, 4])
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_alphabeta_perfect_ordering_evaluates_the_knuth_moore_minimal_tree(b, d):
    if b**d > 2000:
        pytest.skip("large")
    spec = RegularTreeSpec(
        branching=b,
        depth=d,
        pattern="max,min",
        ordering="perfect",
        value_model="uniform",
        resolution=10**12,
    )
    for seed in range(3):
        r = search(RegularTree(spec, seed=seed), "alphabeta")
        assert r.stats.leaves == b ** -(-d // 2) + b ** (d // 2) - 1


@given(tree_objects(max_depth=5, max_children=4, pattern="minimax"))
def test_alphabeta_equals_minimax_on_trees_without_chance(obj):
    tree = parse_tree(obj)
    mm = search(tree, "minimax", exact=True)
    ab = search(tree, "alphabeta", exact=True, debug=True)
    assert ab.value == mm.value
    assert ab.stats.leaves <= mm.stats.leaves
    if mm.best_move is not None:
        assert ab.best_move in mm.tied_moves
    assert search(tree, "expectimax", exact=True).value == mm.value
