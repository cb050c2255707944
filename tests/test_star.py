"""Star1/Star2/Star2.5: pruning where it must happen, counter identities, published-bug regressions.

Hand-made trees below have their cut-offs derived in the comments (bounds [0, 10] unless said).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from starbench import RegularTree, RegularTreeSpec
from starbench.errors import EvaluationError, InputError
from starbench.games import GameTree, TicTacToeState
from starbench.search import reference_search as search  # the Python reference engine
from starbench.trees import loads_tree
from starbench.trees.explicit import parse_tree
from strategies import tree_objects


def tree(root: str, bounds=(0, 10)):
    return loads_tree(f'{{"bounds": [{bounds[0]}, {bounds[1]}], "root": {root}}}')


# --------------------------------------------------------------------------- Star1 by hand
# root MAX [ C1 = chance(1/2: 6, 1/2: 8), C2 = chance(1/2: 2, 1/2: 9) ]
# C1 is searched fully (window (-inf, inf)): 7.  C2 gets alpha = 7.  Outcome 0: the rest can add
# at most 1/2 * U = 5, so alpha_0 = (7 - 0 - 5) / (1/2) = 4; leaf 2 <= 4: fail low, C2 <= 6.
# Leaves: 6, 8, 2 (expectimax: 4).  The missing "+ U" bug (A = N(alpha - U) = -6) cuts nothing.
STAR1_FAIL_LOW = (
    '{"max": [{"chance": [["1/2", 6], ["1/2", 8]]}, {"chance": [["1/2", 2], ["1/2", 9]]}]}'
)


def test_star1_fail_low_by_hand():
    t = tree(STAR1_FAIL_LOW)
    for name in ("star1", "star2", "star2.5-cyclic", "star2.5-sequential"):
        r = search(t, name, exact=True)
        assert (r.value, r.best_move, r.stats.leaves) == (7, 0, 3), name
        assert r.stats.chance_cutoffs == 1
    assert search(t, "expectimax").stats.leaves == 4


# root MAX [ 4, C = chance(1/2: 0, 1/2: 9) ]: value 4.5, move 1.
# At C, alpha = 4: alpha_0 = (4 - 5) / (1/2) = -2, clamped to L = 0 for the window.  Leaf 0 is not
# <= -2, so no cut (testing against the clamped bound 0 would wrongly fail low and return 5).
CLAMPED_VS_RAW = '{"max": [4, {"chance": [["1/2", 0], ["1/2", 9]]}]}'


def test_cutoff_is_tested_against_the_raw_bound():
    t = tree(CLAMPED_VS_RAW)
    r = search(t, "star1", exact=True)
    assert (r.value, r.best_move, r.stats.leaves, r.stats.chance_cutoffs) == (
        Fraction(9, 2),
        1,
        3,
        0,
    )


# root MAX [ 5, C = chance(1/4: 2, 3/4: 8) ]: C = 1/2 + 6 = 6.5, move 1.
# General form at C (alpha = 5): alpha_0 = (5 - 3/4 * 10) / (1/4) = -10: no cut; X = 1/2;
# alpha_1 = (5 - 1/2) / (3/4) = 6: leaf 8 > 6, no cut.  The uniform update (A = 2(5 - 10) + 10 = 0,
# then A += U - 2 = 8) would cut at leaf 8 <= 8 and return a wrong value.
NON_UNIFORM = '{"max": [5, {"chance": [["1/4", 2], ["3/4", 8]]}]}'


def test_non_uniform_probabilities_use_the_general_form():
    r = search(tree(NON_UNIFORM), "star1", exact=True)
    assert (r.value, r.best_move, r.stats.leaves) == (Fraction(13, 2), 1, 3)


# root MIN [ 4, C = chance(1/2: MAX[9, 1], 1/2: 0) ]: value 4, move 0.
# At C, beta = 4: beta_0 = (4 - 0 - 1/2 * L) / (1/2) = 8, so the MAX child is searched with the
# window (0, min(8, 10)) = (0, 8): its first leaf 9 >= 8 is a decision cut-off (leaf 1 skipped),
# and 9 >= beta_0 fails C high.  Leaves: 4, 9.  With min/max swapped in the clamp the child
# window would be (-inf, 10), the 1 would be searched too.
CLAMP_DIRECTION = '{"min": [4, {"chance": [["1/2", {"max": [9, 1]}], ["1/2", 0]]}]}'


def test_children_are_searched_with_the_clamped_window():
    r = search(tree(CLAMP_DIRECTION), "star1", exact=True)
    assert (r.value, r.best_move, r.stats.leaves) == (4, 0, 2)
    assert (r.stats.decision_cutoffs, r.stats.chance_cutoffs) == (1, 1)


# --------------------------------------------------------------------------- Star2 by hand
# root MAX [ 7, C = chance(1/2: MIN[5, 9], 1/2: MIN[6, 2]) ]: value 7, move 0.
# Star2 at C (alpha = 7) probes the first move of each MIN successor (upper bounds):
#   successor 0: alpha_0 = (7 - 1/2 * 10) / (1/2) = 4, window (4, 10): leaf 5, hi_0 = 5,
#                sum of upper bounds 1/2*5 + 1/2*10 = 7.5 > 7: no cut;
#   successor 1: alpha_1 = (7 - 1/2 * 5) / (1/2) = 9, window (9, 10): leaf 6, hi_1 = 6,
#                1/2*5 + 1/2*6 = 5.5 <= 7: fail low in the probe phase.
# Leaves 7, 5, 6 (3); nodes root, 7, C, MIN0, 5, MIN1, 6 (7): 4 probe nodes, 2 probe leaves.
# Star1 instead searches MIN[5, 9] fully (5), then MIN[6, 2] with window (9, 10): 6 cuts: 4 leaves.
STAR2_PROBE_CUT = '{"max": [7, {"chance": [["1/2", {"min": [5, 9]}], ["1/2", {"min": [6, 2]}]]}]}'


def test_star2_probe_cutoff_by_hand():
    t = tree(STAR2_PROBE_CUT)
    s2 = search(t, "star2", exact=True)
    assert (s2.value, s2.best_move) == (7, 0)
    st_ = s2.stats
    assert (st_.leaves, st_.nodes, st_.probe_nodes, st_.probe_leaves) == (3, 7, 4, 2)
    assert (st_.probe_cutoffs, st_.chance_cutoffs, st_.resumed) == (1, 1, 0)
    assert st_.probes == 1  # one probe phase, and it succeeded
    s1 = search(t, "star1", exact=True)
    assert (s1.stats.leaves, s1.stats.decision_cutoffs, s1.stats.chance_cutoffs) == (4, 1, 0)
    assert search(t, "expectimax").stats.leaves == 5


# root MAX [ 3, C = chance(1/2: MAX[4, 8], 1/2: MAX[2, 6]) ]: C = 1/2*8 + 1/2*6 = 7, move 1.
# Star2 probes MAX[4, 8] -> lo_0 = 4 and MAX[2, 6] -> lo_1 = 2 (lower bounds 3 < beta = inf:
# no cut), then resumes: MAX[4, 8] continues at its second move (8), MAX[2, 6] likewise (6).
# resume: leaves 3, 4, 2, 8, 6 (5, each once), 2 resumed successors.
# research: the search phase searches 4 and 2 again: 7 leaves.
RESUME = '{"max": [3, {"chance": [["1/2", {"max": [4, 8]}], ["1/2", {"max": [2, 6]}]]}]}'


def test_resume_evaluates_no_leaf_twice_and_research_does():
    """A probe phase that proves nothing, then the search phase: the value and the leaf counts
    guard against the published bugs of sums carried over from the probe phase and of probe
    values counted twice (the property tests check the values on random trees too)."""
    t = tree(RESUME)
    res = search(t, "star2", exact=True)
    re_ = search(t, "star2", exact=True, after_probe="research")
    assert res.value == re_.value == 7 and res.best_move == re_.best_move == 1
    assert (res.stats.leaves, res.stats.resumed, res.stats.probe_leaves) == (5, 2, 2)
    assert (res.stats.probes, res.stats.probe_cutoffs) == (1, 0)  # a probe phase that failed
    assert (re_.stats.leaves, re_.stats.resumed, re_.stats.probe_leaves) == (7, 2, 2)
    # the probed successors are entered twice each
    assert res.stats.max_nodes == 1 + 2 * 2


# --------------------------------------------------------------------------- identities
@given(
    tree_objects(max_depth=5, max_children=4, pattern="any"),
    st.sampled_from(["resume", "research"]),
)
def test_k0_is_star1_and_k1_is_star2(obj, after):
    t = parse_tree(obj)
    s1 = search(t, "star1", exact=True)
    s2 = search(t, "star2", exact=True, after_probe=after)
    for mode in ("star2.5-cyclic", "star2.5-sequential"):
        k0 = search(t, mode, exact=True, k=0, after_probe=after)
        assert (k0.value, k0.best_move, k0.stats) == (s1.value, s1.best_move, s1.stats)
        k1 = search(t, mode, exact=True, k=1, after_probe=after)
        assert (k1.value, k1.best_move, k1.stats) == (s2.value, s2.best_move, s2.stats)


@given(tree_objects(max_depth=5, max_children=4, pattern="any"))
def test_star1_never_evaluates_more_leaves_than_expectimax(obj):
    t = parse_tree(obj)
    assert search(t, "star1").stats.leaves <= search(t, "expectimax").stats.leaves
    r = search(t, "star2")  # resume: no leaf evaluated twice
    assert r.stats.leaves <= search(t, "expectimax").stats.leaves


@given(tree_objects(max_depth=5, max_children=4, pattern="any"), st.integers(0, 4))
def test_counters_are_consistent(obj, k):
    t = parse_tree(obj)
    for name in ("expectimax", "star1", "star2.5-cyclic", "star2.5-sequential"):
        params = {"k": k} if name.startswith("star2.5") else {}
        s = search(t, name, **params).stats
        assert s.nodes == s.max_nodes + s.min_nodes + s.chance_nodes + s.leaves
        assert s.probe_nodes <= s.nodes and s.probe_leaves <= s.leaves
        assert s.probe_cutoffs <= s.chance_cutoffs <= s.chance_nodes
        assert s.probe_cutoffs <= s.probes <= s.chance_nodes
        assert s.probes == 0 or (name.startswith("star2.5") and k > 0)


def test_pruning_happens_on_random_trees():
    """Not a vacuous promise: on Ballard's 3-level trees every star algorithm prunes, and probing
    proves cut-offs."""
    spec = RegularTreeSpec(branching=10, chance_arity=10, depth=2)
    totals: dict[str, list[int]] = {}
    for i in range(10):
        t = RegularTree(spec, seed=1, instance=i)
        for name in ("expectimax", "star1", "star2", "star2.5-cyclic", "star2.5-sequential"):
            s = search(t, name).stats
            totals.setdefault(name, [0, 0, 0])
            totals[name][0] += s.leaves
            totals[name][1] += s.chance_cutoffs
            totals[name][2] += s.probe_cutoffs
    full = totals["expectimax"][0]
    assert totals["star1"][0] < full and totals["star1"][1] > 0
    for name in ("star2", "star2.5-cyclic", "star2.5-sequential"):
        assert totals[name][0] < totals["star1"][0] and totals[name][2] > 0, name


def test_cyclic_and_sequential_differ_for_k_above_1():
    spec = RegularTreeSpec(branching=10, chance_arity=10, depth=2)
    diff = 0
    for i in range(5):
        t = RegularTree(spec, seed=2, instance=i)
        c = search(t, "star2.5-cyclic", k=3)
        s = search(t, "star2.5-sequential", k=3)
        assert c.value == pytest.approx(s.value)
        diff += c.stats != s.stats
    assert diff > 0


# --------------------------------------------------------------------------- bad input
class _BadEval(GameTree):
    def __init__(self, value):
        state = TicTacToeState.from_rows("XXO", "OOX", "...")
        super().__init__(state, (-1, 1))
        self._value = value

    def evaluate(self, node):
        return self._value


@pytest.mark.parametrize("value", [5, float("nan")])
def test_evaluation_outside_bounds_or_nan_names_the_node(value):
    with pytest.raises(EvaluationError, match=r"game state .* evaluation .* outside the bounds"):
        search(_BadEval(value), "star1")


@pytest.mark.parametrize("bounds", [(float("-inf"), 1), (-1, float("inf")), (1, 1)])
def test_infinite_or_empty_bounds_are_refused(bounds):
    """Infinite L or U make Star1's window arithmetic NaN and silently prune nothing (a bug seen
    in public code): refused before searching."""
    state = TicTacToeState.from_rows("XXO", "OOX", "...")
    tree = GameTree.__new__(GameTree)
    tree.L, tree.U = bounds
    tree.horizon, tree.heuristic, tree.root = None, None, (state, None)
    with pytest.raises(InputError, match="bounds must be finite numbers with L < U"):
        search(tree, "star1")
    if bounds[0] != bounds[1]:
        with pytest.raises(InputError, match="game bounds must be finite numbers"):
            GameTree(state, bounds)


def test_float_rounding_never_searches_an_empty_window():
    """Found by the thorough hypothesis profile: on this tree (many equal leaves, thirds) float
    rounding closed a chance node's clamped window to (0.0, 0.0) and the outcome's result could
    be read as neither bound.  Now every windowed search, probes included, gets a non-empty
    window (debug mode asserts it) and the values stay right."""
    from pathlib import Path

    from starbench.trees import load_tree

    tree = load_tree(Path(__file__).parent / "data" / "float-closed-window.json")
    exact = search(tree, "expectimax", exact=True).value
    for name, params in [
        ("star1", {}),
        ("star2", {}),
        ("star2.5-cyclic", {"k": 4, "after_probe": "research"}),
        ("star2.5-sequential", {"k": 4}),
    ]:
        r = search(tree, name, debug=True, **params)
        assert r.value == pytest.approx(float(exact), abs=1e-9)


def test_probe_full_window_false_skips_only_the_probes_that_cannot_cut():
    """Convention C2's second half: the root's first chance node is searched with the full
    window, so no probe there can prove a cut-off; ``probe_full_window=false`` skips that probe
    phase and no other, and the value is the same."""
    t = tree(RESUME)  # the root's only chance node is its second move: alpha = 3 > L
    a = search(t, "star2", exact=True)
    b = search(t, "star2", exact=True, probe_full_window=False)
    assert (a.value, a.stats) == (b.value, b.stats) and a.stats.probes == 1
    first = tree('{"max": [{"chance": [["1/2", {"max": [4, 8]}], ["1/2", {"max": [2, 6]}]]}, 3]}')
    c1 = search(first, "star2", exact=True)
    c2 = search(first, "star2", exact=True, probe_full_window="false")
    assert c1.value == c2.value == 7
    assert (c1.stats.probes, c2.stats.probes) == (1, 0)
    assert c2.stats.probe_nodes == 0 and c2.stats.leaves == c1.stats.leaves == 5
    c2r = search(first, "star2", exact=True, probe_full_window=False, after_probe="research")
    c1r = search(first, "star2", exact=True, after_probe="research")
    assert (c1r.stats.leaves, c2r.stats.leaves) == (7, 5)  # C1 research counts probed leaves twice
