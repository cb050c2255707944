"""The lazy random regular generator: shape, formulas, laziness, orderings, validation."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from starbench import RegularTree, RegularTreeSpec
from starbench.errors import ConfigError
from starbench.search import reference_search as search  # the Python reference engine
from starbench.trees import Kind


def leaves_of(tree, node=None):
    node = tree.root if node is None else node
    if tree.kind(node) == Kind.LEAF:
        return [tree.evaluate(node)]
    return [v for c in tree.children(node) for v in leaves_of(tree, c)]


@pytest.mark.parametrize(
    "b,c,d,trailing,pattern,levels",
    [
        (2, 3, 1, False, "max,chance,min,chance", 1),
        (2, 3, 2, False, "max,chance,min,chance", 3),
        (3, 2, 2, True, "max,chance,min,chance", 4),
        (3, 4, 3, False, "max,chance", 5),
        (4, 1, 4, False, "max,min", 4),
        (5, 21, 2, False, "max,chance,min,chance", 3),
    ],
)
def test_expectimax_visits_exactly_the_tree_size(b, c, d, trailing, pattern, levels):
    dist = "dice" if c == 21 else "uniform"
    spec = RegularTreeSpec(
        branching=b,
        chance_arity=c,
        depth=d,
        trailing_chance=trailing,
        pattern=pattern,
        distribution=dist,
    )
    assert spec.levels == levels
    # closed formula: sum over levels of the product of the arities above
    arities = [c if k == Kind.CHANCE else b for k in spec.level_kinds]
    expected, width = 1, 1
    for a in arities:
        width *= a
        expected += width
    assert spec.size == expected
    r = search(RegularTree(spec, seed=3), "expectimax")
    assert r.stats.nodes == expected
    assert r.stats.leaves == spec.leaf_count == width


def test_level_kinds_follow_the_pattern():
    K = Kind
    assert RegularTreeSpec(depth=3).level_kinds == (K.MAX, K.CHANCE, K.MIN, K.CHANCE, K.MAX)
    assert RegularTreeSpec(depth=2, pattern="max,chance", trailing_chance=True).level_kinds == (
        K.MAX,
        K.CHANCE,
        K.MAX,
        K.CHANCE,
    )
    assert RegularTreeSpec(depth=3, pattern="max,min").level_kinds == (K.MAX, K.MIN, K.MAX)


def test_huge_trees_are_created_instantly_and_lazily():
    spec = RegularTreeSpec(branching=100, chance_arity=100, depth=4)
    assert spec.size > 10**12
    t0 = time.perf_counter()
    t = RegularTree(spec, seed=1)
    node = t.root
    while t.kind(node) != Kind.LEAF:
        node = t.children(node)[-1]
    assert time.perf_counter() - t0 < 1.0
    assert 0 <= t.evaluate(node) <= t.bounds[1]


def test_instance_is_the_same_tree_under_every_ordering_and_bounds_option():
    base = dict(branching=3, chance_arity=3, depth=2, trailing_chance=True, resolution=1000)
    values = {}
    for ordering in ("generated", "reversed", "static", "perfect", "worst", "noisy"):
        for outcome in ("generated", "probable", "refuting", "supporting"):
            for bounds in ("declared", "tree"):
                spec = RegularTreeSpec(
                    **base,
                    ordering=ordering,
                    outcome_order=outcome,
                    bounds=bounds,
                    noise_sd=100.0,
                    distribution="random",
                )
                t = RegularTree(spec, seed=9, instance=4)
                r = search(t, "expectimax", exact=True)
                values[(ordering, outcome, bounds)] = (r.value, sorted(leaves_of(t)))
    first = next(iter(values.values()))
    assert all(v == first for v in values.values())


def test_different_instances_differ():
    spec = RegularTreeSpec(branching=3, chance_arity=3, depth=2)
    a = leaves_of(RegularTree(spec, seed=1, instance=0))
    b = leaves_of(RegularTree(spec, seed=1, instance=1))
    assert a != b


def _child_values(t, node):
    return [search_subtree(t, c) for c in t.children(node)]


def search_subtree(t, node):
    from starbench.search.expectimax import Expectimax

    return Expectimax(t, exact=True)._search(node, None, None)


def test_perfect_worst_and_refuting_orders():
    base = dict(branching=4, chance_arity=3, depth=3, resolution=10**6)
    perfect = RegularTree(RegularTreeSpec(**base, ordering="perfect", outcome_order="refuting"), 5)
    worst = RegularTree(RegularTreeSpec(**base, ordering="worst", outcome_order="supporting"), 5)
    root_vals = _child_values(perfect, perfect.root)
    assert root_vals == sorted(root_vals, reverse=True)  # MAX root: best first
    assert _child_values(worst, worst.root) == sorted(root_vals)
    chance = perfect.children(perfect.root)[0]  # below a MAX node: refuting = ascending
    assert _child_values(perfect, chance) == sorted(_child_values(perfect, chance))
    mins = perfect.children(chance)[0]  # a MIN node: best (smallest) first
    assert _child_values(perfect, mins) == sorted(_child_values(perfect, mins))
    below_min = perfect.children(mins)[0]  # chance below MIN: refuting = descending
    vals = _child_values(perfect, below_min)
    assert vals == sorted(vals, reverse=True)


def test_static_order_sorts_by_path_sum_and_probable_by_probability():
    t = RegularTree(
        RegularTreeSpec(
            branching=6,
            chance_arity=5,
            depth=2,
            ordering="static",
            distribution="random",
            outcome_order="probable",
        ),
        2,
    )
    kids = t.children(t.root)
    assert [k[2] for k in kids] == sorted((k[2] for k in kids), reverse=True)
    ps = t.probabilities(kids[0])
    assert list(ps) == sorted(ps, reverse=True)


def test_reversed_order():
    spec = dict(branching=5, chance_arity=2, depth=1)
    g = RegularTree(RegularTreeSpec(**spec), 1)
    r = RegularTree(RegularTreeSpec(**spec, ordering="reversed"), 1)
    assert r.children(r.root) == list(reversed(g.children(g.root)))


def test_distributions():
    dice = RegularTree(RegularTreeSpec(chance_arity=21, distribution="dice"), 0)
    ps = dice.probabilities(dice.children(dice.root)[0])
    assert sum(ps) == 1 and ps.count(Fraction(1, 36)) == 6 and ps.count(Fraction(1, 18)) == 15
    geo = RegularTree(RegularTreeSpec(chance_arity=3, distribution="geometric", skew="1/2"), 0)
    assert geo.probabilities(geo.children(geo.root)[0]) == (
        Fraction(4, 7),
        Fraction(2, 7),
        Fraction(1, 7),
    )
    rnd = RegularTree(RegularTreeSpec(chance_arity=6, distribution="random"), 0)
    seen = set()
    for c in rnd.children(rnd.root):
        ps = rnd.probabilities(c)
        assert sum(ps) == 1 and all(p > 0 for p in ps)
        seen.add(ps)
    assert len(seen) > 1  # drawn per chance node


def test_tree_bounds_are_the_smallest_and_largest_leaf():
    spec = RegularTreeSpec(
        branching=3, chance_arity=3, depth=2, bounds="tree", value_model="uniform"
    )
    t = RegularTree(spec, seed=4)
    vals = leaves_of(t)
    assert t.bounds == (min(vals), max(vals))
    d = RegularTree(
        RegularTreeSpec(branching=3, chance_arity=3, depth=2, value_model="uniform"), seed=4
    )
    assert d.bounds == (0, 10**6)
    inc = RegularTree(RegularTreeSpec(branching=3, chance_arity=3, depth=2), seed=4)
    assert inc.bounds == (0, 3 * 10**6)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(depth=0), "tree.depth: must be an integer >= 1"),
        (dict(branching=0), "tree.branching: must be an integer >= 1"),
        (dict(chance_arity=0), "tree.chance_arity: must be an integer >= 1"),
        (dict(distribution="dice"), "tree.chance_arity: must be 21 with distribution=dice"),
        (dict(distribution="zipf"), "tree.distribution: must be one of"),
        (dict(pattern="min,max"), "tree.pattern: must be one of"),
        (dict(skew="2"), "tree.skew: must be a rational number in (0, 1]"),
        (dict(ordering="best"), "tree.ordering: must be one of"),
        (dict(ordering="static", value_model="uniform"), "tree.ordering: static ordering needs"),
        (dict(noise_sd=-1.0), "tree.noise_sd: must be a finite number >= 0"),
        (dict(depth=2.5), "tree.depth: must be an integer"),
        (dict(pattern="max,min", trailing_chance=True), "tree.trailing_chance"),
        (
            dict(branching=100, chance_arity=100, depth=3, ordering="perfect"),
            "tree.ordering: needs a full pass over the tree, allowed up to tree.full_pass_limit",
        ),
        (
            dict(branching=100, chance_arity=100, depth=3, bounds="tree"),
            "tree.bounds: needs a full",
        ),
    ],
)
def test_bad_generator_parameters(kwargs, message):
    with pytest.raises(ConfigError) as err:
        RegularTree(RegularTreeSpec(**kwargs))
    assert message in str(err.value)


# ---------------------------------------------------------------------- pool (transpositions)
def _walk(tree, node=None, seen=None):
    """Every node of the unfolded tree with its children and (at leaves) value, by (level, id)."""
    node = tree.root if node is None else node
    seen = {} if seen is None else seen
    kind = tree.kind(node)
    if kind == Kind.LEAF:
        what = ("leaf", tree.evaluate(node))
    else:
        kids = list(tree.children(node))
        probs = tuple(tree.probabilities(node)) if kind == Kind.CHANCE else None
        what = (kind, tuple(k[1] for k in kids), probs)
        for k in kids:
            _walk(tree, k, seen)
    seen.setdefault((node[0], node[1]), set()).add(what)
    return seen


@pytest.mark.parametrize(
    "value_model,ordering",
    [
        ("incremental", "generated"),
        ("incremental", "static"),
        ("incremental", "perfect"),
        ("uniform", "generated"),
        ("uniform", "perfect"),
    ],
)
def test_pool_makes_a_dag_whose_subtrees_depend_on_level_and_id_only(value_model, ordering):
    spec = RegularTreeSpec(
        branching=4, chance_arity=3, depth=3, pool=3, value_model=value_model, ordering=ordering
    )
    for instance in range(3):
        seen = _walk(RegularTree(spec, 7, instance))
        per_level: dict[int, int] = {}
        for level, _ in seen:
            per_level[level] = per_level.get(level, 0) + 1
        assert all(n <= 3 for lv, n in per_level.items() if lv > 0)  # the pool
        assert max(per_level.values()) == 3  # and it is used
        # one node, one subtree: every path to (level, id) sees the same children and values
        assert all(len(whats) == 1 for whats in seen.values())


def test_pool_zero_is_the_tree_of_before_and_pools_differ_by_instance():
    spec = RegularTreeSpec(branching=3, chance_arity=2, depth=2)
    assert spec.pool == 0
    assert leaves_of(RegularTree(spec, 1, 2)) == leaves_of(
        RegularTree(RegularTreeSpec(branching=3, chance_arity=2, depth=2, pool=0), 1, 2)
    )
    pooled = RegularTreeSpec(branching=3, chance_arity=2, depth=2, pool=2)
    a, b = RegularTree(pooled, 1, 0), RegularTree(pooled, 1, 1)
    assert leaves_of(a) != leaves_of(b)
    # expectimax still enters every node of the unfolded tree: the table is what shares
    assert search(a, "expectimax").stats.nodes == pooled.size


def test_pool_under_the_incremental_model_keeps_the_declared_bounds():
    spec = RegularTreeSpec(branching=3, chance_arity=3, depth=3, pool=4, resolution=10)
    lo, hi = spec.levels * 0, spec.levels * 10
    for i in range(5):
        t = RegularTree(spec, 0, i)
        assert t.bounds == (lo, hi)
        assert all(lo <= v <= hi for v in leaves_of(t))


def test_pool_must_be_a_non_negative_integer():
    with pytest.raises(ConfigError, match=r"^tree\.pool: must be an integer >= 0"):
        RegularTreeSpec(pool=-1).validate()
