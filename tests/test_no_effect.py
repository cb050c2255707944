"""The no-effect rules (``trees.regular.NO_EFFECT``) proven by the trees: wherever the rules say
that changing a key changes nothing (the two specs normalise alike), the K = 5 instances of both
are identical (structure, kinds, probabilities, leaf values, their order, and the bounds).

Checked on a seeded sample of the grid (every categorical key: pattern, distribution, ordering,
outcome_order, value_model, bounds, trailing_chance; two values of each integer key, 1 among
them where allowed), and on the cases the rules were written for.  The converse (identical
trees that no rule explains, in a short allowlist) is not tested yet: on this grid it finds
depth-1 trees without chance nodes (whose chance keys cannot matter) and coincidences of trees
with two moves or two outcomes (orderings that agree on two children)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from starbench.errors import InputError
from starbench.trees.models import (
    BOUNDS,
    DISTRIBUTIONS,
    ORDERINGS,
    OUTCOME_ORDERS,
    PATTERNS,
    VALUE_MODELS,
)
from starbench.trees.protocol import Kind
from starbench.trees.regular import RegularTree, RegularTreeSpec

K = 5
GRID = {
    "pattern": list(PATTERNS),
    "distribution": list(DISTRIBUTIONS),
    "ordering": list(ORDERINGS),
    "outcome_order": list(OUTCOME_ORDERS),
    "value_model": list(VALUE_MODELS),
    "bounds": list(BOUNDS),
    "trailing_chance": [False, True],
    "branching": [1, 3],
    "chance_arity": [1, 3],
    "depth": [1, 2],
    "skew": ["1/2", "1/3"],
    "weight_max": [16, 1],
    "resolution": [1_000_000, 7],
    "noise_sd": [0.0, 2.5],
    "pool": [0, 3],
    "generator_version": [1, 2],
}


def trees(spec: RegularTreeSpec) -> tuple | None:
    """Everything the K instances hold, in order (None for a spec the generator refuses)."""
    try:
        spec.validate()
    except InputError:
        return None
    out = []
    for i in range(K):
        tree = RegularTree(spec, 0, i)
        seen = [tree.bounds]
        stack = [tree.root]
        while stack:
            node = stack.pop()
            kind = tree.kind(node)
            children = tree.children(node) if kind != Kind.LEAF else ()
            if not children:
                seen.append(tree.evaluate(node))
                continue
            probs = tuple(tree.probabilities(node)) if kind == Kind.CHANCE else len(children)
            seen.append((int(kind), probs))
            stack.extend(reversed(children))
        out.append(tuple(seen))
    return tuple(out)


def _spec(values: dict) -> RegularTreeSpec:
    if values["distribution"] == "dice":
        values = {**values, "chance_arity": 21, "branching": 1, "depth": 1}  # 21 rolls: kept small
    return RegularTreeSpec(**values)


def test_a_rule_that_says_no_effect_means_identical_trees():
    rng = random.Random(0)
    checked = 0
    for _ in range(4000):
        base = _spec({k: rng.choice(v) for k, v in GRID.items()})
        key = rng.choice(list(GRID))
        other = replace(
            base, **{key: rng.choice([v for v in GRID[key] if v != getattr(base, key)])}
        )
        if key in ("chance_arity", "branching", "depth") and base.distribution == "dice":
            continue  # dice fixes the shape
        if base.normalised() != other.normalised():
            continue
        a, b = trees(base), trees(other)
        if a is None or b is None:
            continue
        assert a == b, (key, base, other)
        checked += 1
    assert checked > 300


SHAPE = {"branching": 3, "chance_arity": 3, "depth": 2}


@pytest.mark.parametrize(
    ("base", "change", "control"),
    [
        ({"distribution": "uniform"}, {"outcome_order": "probable"}, {"distribution": "random"}),
        (
            {"distribution": "geometric", "skew": "1/3"},
            {"outcome_order": "probable"},
            {"distribution": "random"},
        ),
        ({"chance_arity": 1}, {"distribution": "random"}, {}),
        ({"chance_arity": 1}, {"outcome_order": "refuting"}, {}),
        ({"chance_arity": 1, "distribution": "geometric"}, {"skew": "1/3"}, {"chance_arity": 3}),
        ({"branching": 1}, {"ordering": "perfect"}, {}),
        ({"branching": 1, "ordering": "noisy"}, {"noise_sd": 300000.0}, {"branching": 3}),
        ({"depth": 1}, {"pattern": "max,min"}, {}),
    ],
)
def test_the_rules_for_the_cases_they_name(base, change, control):
    """Each rule says "no effect" (one line in a run; a swept one is refused) and the trees
    agree; where the rule does not fire (``control``: the shape of 3 moves, 3 outcomes, depth 2
    with these overrides) the same change changes the trees."""
    spec = RegularTreeSpec(**{**SHAPE, **base})
    other = replace(spec, **change)
    assert spec.normalised() == other.normalised()
    assert {k for k, _ in other.ineffective()} >= set(change)
    assert trees(spec) == trees(other)
    free = RegularTreeSpec(**{**SHAPE, **base, **{k: v for k, v in SHAPE.items() if k in base},
                              **control})  # fmt: skip
    moved = replace(free, **change)
    assert free.normalised() != moved.normalised() and trees(free) != trees(moved)
