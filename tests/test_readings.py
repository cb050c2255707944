"""The readings of Ballard's deeper-tree Star2 (``ballard1983-readings``): each is Star2 where
it must be, exact where it claims to be, and counted as its docstring defines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starbench.search import reference_search as search
from starbench.search.registry import ALGORITHMS
from starbench.trees.explicit import parse_tree
from starbench.trees.regular import RegularTree, RegularTreeSpec
from strategies import tree_objects

READINGS = ("star2-first-chance", "star2-recursive-probe", "star2-probe-level")


def _spec(depth, trailing):
    return RegularTreeSpec(branching=3, chance_arity=3, depth=depth, trailing_chance=trailing)


@pytest.mark.parametrize("name", READINGS)
def test_on_3_level_trees_every_reading_is_star2_node_for_node(name):
    for i in range(15):
        tree = RegularTree(_spec(2, False), 0, i)
        a, b = search(tree, "star2"), search(tree, name)
        assert (a.value, a.best_move, a.stats, a.by_level) == (
            b.value,
            b.best_move,
            b.stats,
            b.by_level,
        )


def test_at_4_levels_first_chance_is_star2_and_the_recursive_probe_is_exact():
    for i in range(15):
        tree = RegularTree(_spec(2, True), 0, i)
        s2, ex = search(tree, "star2"), search(tree, "expectimax")
        first = search(tree, "star2-first-chance")
        assert (first.stats, first.by_level) == (s2.stats, s2.by_level)
        assert search(tree, "star2-recursive-probe").value == ex.value


@settings(max_examples=60, deadline=None)
@given(tree_objects(max_depth=5, max_children=3, pattern="any"), st.booleans())
def test_the_exact_readings_are_exact_on_any_tree(obj, exact):
    tree = parse_tree(obj, exact=exact)
    want = search(tree, "expectimax", exact=exact).value
    for name in ("star2-first-chance", "star2-probe-level"):
        r = search(tree, name, exact=exact)
        assert r.value == want if exact else abs(r.value - want) < 1e-9 * 10, name
        s = r.stats
        assert s.nodes == s.max_nodes + s.min_nodes + s.chance_nodes + s.leaves, name
        r.by_level.check(s)


def test_probe_level_counts_each_outermost_probe_as_one_leaf_and_searches_as_star2():
    """At 5 levels Star2's probes search below their first moves: the reading keeps Star2's
    value and move and counts fewer leaves, one per probed move at the probed move's level."""
    fewer = 0
    for i in range(8):
        tree = RegularTree(_spec(3, False), 0, i)
        s2, pl = search(tree, "star2"), search(tree, "star2-probe-level")
        assert (pl.value, pl.best_move) == (s2.value, s2.best_move)
        assert pl.stats.leaves <= s2.stats.leaves and pl.stats.probes <= s2.stats.probes
        fewer += pl.stats.leaves < s2.stats.leaves
        pl.by_level.check(pl.stats)
    assert fewer > 0


def test_the_recursive_probe_is_flagged_inexact_and_the_readings_run_only_when_named():
    info = ALGORITHMS["star2-recursive-probe"]
    assert not info.exact and info.reference is None and info.reading
    assert all(ALGORITHMS[n].reading for n in READINGS)
    errors = [
        abs(search(t, "star2-recursive-probe").value - search(t, "expectimax").value)
        for t in (RegularTree(_spec(3, False), 0, i) for i in range(8))
    ]
    assert max(errors) > 0  # from 5 levels its probes are not bounds: the error is measured
