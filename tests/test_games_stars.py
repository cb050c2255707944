"""The games' fused Star1 and Star2 family (``starbench.games.stars``) is the reference: value,
best move and every counter, on OpenSpiel's games and starbench's own backgammon, for every
variant and setting; budgets stop both at the same node; a bad leaf raises the same error."""

from __future__ import annotations

import pytest

from starbench.errors import BudgetExceeded, EvaluationError
from starbench.games.adapter import GameTree
from starbench.games.source import GAMES_INSTALL, game_source
from starbench.search.registry import get_algorithm

pyspiel = pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")

VARIANTS = [
    ("star1", {}),
    ("star2", {}),
    ("star2", {"after_probe": "research"}),
    ("star2", {"probe_full_window": False}),
    ("star2.5-cyclic", {}),
    ("star2.5-cyclic", {"k": 3, "after_probe": "research"}),
    ("star2.5-cyclic", {"k": 0}),
    ("star2.5-sequential", {}),
    ("star2.5-sequential", {"k": 4, "probe_full_window": False}),
]

SEARCHES = [
    ("pig", None, 3),
    ("pig", "0,3,1", 4),
    ("pig(winscore=10)", "0,3,0,4,1", 4),
    ("pig(winscore=6,diceoutcomes=3)", None, 5),
    ("einstein_wurfelt_nicht", "0,0", 3),
    ("einstein_wurfelt_nicht", "5,17,2", 2),
    ("einstein_wurfelt_nicht", "7,1,4", 2),
    ("einstein_wurfelt_nicht", "3,9", 1),
]


class ReferenceTree(GameTree):
    """The same tree, which the registry does not give a fused class (``search_class``)."""


def _pair(source, name, params, **options):
    """(fused search, its tree), (reference search, its tree) of ``game_source(*source)``: one
    tree each, so that each follows its own leaves' common value."""
    algorithm = get_algorithm(name)
    *args, keywords = source if isinstance(source[-1], dict) else (*source, {})
    fused_tree, reference_tree = (game_source(*args, **keywords).tree for _ in range(2))
    reference_tree.__class__ = ReferenceTree
    fused = algorithm.make(fused_tree, params, **options)
    reference = algorithm.make(reference_tree, params, **options)
    assert type(fused).__module__ == "starbench.games.stars"
    assert type(reference).__module__.startswith("starbench.search.")
    return (fused, fused_tree), (reference, reference_tree)


def _outcome(search, tree):
    try:
        r = search.run()
        r.by_level.check(r.stats)  # the counters per level sum to the totals
        return r.value, r.best_move, r.tied_moves, r.stats, r.by_level, tree.flat_value()
    except (BudgetExceeded, EvaluationError) as e:
        return type(e), str(e), search.stats()


@pytest.mark.parametrize(("spec", "position", "depth"), SEARCHES)
def test_the_fused_stars_are_the_references_counter_for_counter(spec, position, depth):
    for name, params in VARIANTS:
        pair = _pair((spec, depth, position), name, params)
        fused, reference = (_outcome(*p) for p in pair)
        assert fused == reference, (name, params)


def test_the_fused_stars_differ_between_variants():
    """The comparison above sees the settings: they change the counters."""
    tree = game_source("einstein_wurfelt_nicht", 3, "0,0").tree
    stats = {
        (name, tuple(sorted(params.items()))): get_algorithm(name).make(tree, params).run().stats
        for name, params in VARIANTS
    }
    assert len({(s.nodes, s.resumed, s.probe_nodes) for s in stats.values()}) >= 6


def test_the_fused_stars_are_the_references_from_random_positions():
    """Seeded playout positions of pig and Einstein, depths 1 to 3, three variants each."""
    from test_games import _positions

    for spec in ("pig(winscore=10)", "einstein_wurfelt_nicht"):
        # past Einstein's set-up (two chance nodes of 720 outcomes each)
        positions = [p for p in _positions(spec, 16, seed=3, plies=20) if p and "," in p]
        for i, position in enumerate(positions[:8]):
            for name, params in VARIANTS[i % 3 :: 3]:
                depth = 1 + i % 3
                pair = _pair((spec, depth, position), name, params)
                fused, reference = (_outcome(*p) for p in pair)
                assert fused == reference, (spec, position, depth, name, params)


@pytest.mark.parametrize("budget", [1, 2, 5, 40, 333, 1000])
@pytest.mark.parametrize("name", ["star1", "star2", "star2.5-sequential"])
def test_the_fused_stars_stop_at_the_references_node(name, budget):
    pair = _pair(("pig", 4), name, {}, node_budget=budget)
    fused, reference = (_outcome(*p) for p in pair)
    assert fused == reference
    assert fused[0] is BudgetExceeded or budget == 1000


def test_the_fused_stars_check_the_time_budget_every_1024_nodes():
    pair = _pair(("pig", 6), "star2", {}, time_budget=0.0)
    for search, _ in pair:
        with pytest.raises(BudgetExceeded, match="time budget of 0.0 s exceeded"):
            search.run()
        assert search.stats().nodes == 1024


def test_the_fused_stars_refuse_a_bad_heuristic_value_as_the_references_do(monkeypatch):
    from starbench.games import heuristics

    bad = heuristics.Heuristic("bad", lambda state, player: 10**6, lambda g: (-1, 1), (), "")
    monkeypatch.setitem(heuristics.HEURISTICS, "bad", bad)
    for name in ("star1", "star2", "star2.5-cyclic"):
        pair = _pair(("pig", 3, None, "bad"), name, {})
        fused, reference = (_outcome(*p) for p in pair)
        assert fused == reference
        assert "evaluation 1000000 is NaN or outside the bounds [-1, 1]" in fused[1]


def test_the_fused_stars_are_the_references_on_backgammon():
    """starbench's own states (not pyspiel's): the chance test is ``is_chance_node()``."""
    from starbench.games.backgammon import BACKGAMMON_INSTALL

    pytest.importorskip("gnubg_nn", reason=f"gnubg-nn is not installed: {BACKGAMMON_INSTALL}")
    for name, params in VARIANTS[:5]:
        pair = _pair(("backgammon", 2, {"dice": "3,1"}), name, params)
        fused, reference = (_outcome(*p) for p in pair)
        assert fused == reference, (name, params)


def test_the_references_run_where_the_fused_stars_do_not_apply():
    from starbench.search.star1 import Star1
    from starbench.search.star2 import Star2

    star1, star2 = get_algorithm("star1").make, get_algorithm("star2").make
    exact_tree = game_source("pig", 2, exact=True).tree
    assert type(star2(exact_tree, {}, exact=True)) is Star2
    assert type(star2(exact_tree, {})) is Star2  # a tree read exactly, searched in floats
    tree = game_source("pig", 2).tree
    assert type(star1(tree, {}, debug=True)) is Star1
    assert type(star2(tree, {"tt": 8})) is Star2
