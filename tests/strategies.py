"""Hypothesis strategies: random explicit trees as JSON objects (numbers as exact strings)."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from starbench.trees.regular import RegularTreeSpec


def _probs(draw, n: int, style: str) -> list[Fraction]:
    if style == "uniform":
        return [Fraction(1, n)] * n
    if style == "dice" and n == 21:
        return [
            Fraction(1, 36) if a == b else Fraction(1, 18) for a in range(1, 7) for b in range(a, 7)
        ]
    weights = draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))
    total = sum(weights)
    return [Fraction(w, total) for w in weights]


@st.composite
def tree_objects(
    draw, max_depth: int = 4, max_children: int = 4, pattern: str = "any", lo: int = 0, hi: int = 10
) -> dict:
    """A random tree: irregular shapes, any node kinds, leaves on a small integer grid in [lo, hi]
    (many ties and leaves at the bounds).  ``pattern``: any, minimax (no chance), single (MAX and
    chance only), regular (MAX, chance, MIN, chance, ... with equal arities)."""
    style = draw(st.sampled_from(["uniform", "random"]))
    leaf = st.integers(lo, hi)
    arity = draw(st.integers(1, max_children))

    def node(depth: int, level: int) -> object:
        if pattern == "regular":
            if depth == 0:
                return draw(leaf)
            kinds = ["max", "chance", "min", "chance"]
            kind = kinds[level % 4]
            n = arity
        else:
            if depth == 0 or draw(st.integers(0, 5)) == 0:
                return draw(leaf)
            choices = {
                "any": ["max", "min", "chance"],
                "minimax": ["max", "min"],
                "single": ["max", "chance"],
            }[pattern]
            kind = draw(st.sampled_from(choices))
            n = draw(st.integers(1, max_children))
        if kind == "chance":
            ps = _probs(draw, n, style)
            return {"chance": [[str(p), node(depth - 1, level + 1)] for p in ps]}
        return {kind: [node(depth - 1, level + 1) for _ in range(n)]}

    return {"bounds": [lo, hi], "root": node(draw(st.integers(1, max_depth)), 0)}


#: Random generator parameters: every distribution but dice, every value model, bounds option
#: and ordering (the static ones with the incremental model they need), single-agent and
#: max/min patterns, trees and pooled DAGs, both generator versions; small enough for
#: exhaustive checks.
_any_specs = st.builds(
    RegularTreeSpec,
    branching=st.integers(1, 4),
    chance_arity=st.integers(1, 4),
    depth=st.integers(1, 3),
    trailing_chance=st.booleans(),
    pattern=st.sampled_from(["max,chance,min,chance", "max,chance"]),
    distribution=st.sampled_from(["uniform", "random", "geometric"]),
    value_model=st.sampled_from(["uniform", "incremental"]),
    resolution=st.sampled_from([1, 3, 100, 10**6]),
    bounds=st.sampled_from(["declared", "tree"]),
    ordering=st.sampled_from(["generated", "reversed", "perfect", "worst", "noisy"]),
    noise_sd=st.sampled_from([0.0, 0.3, 3.0]),  # units of the children's spread
    outcome_order=st.sampled_from(["generated", "probable", "refuting", "supporting"]),
    pool=st.sampled_from([0, 0, 0, 1, 2, 5]),  # > 0: a DAG (transpositions)
    generator_version=st.sampled_from([1, 2]),
)
regular_specs = st.one_of(
    _any_specs,
    _any_specs.map(
        lambda s: RegularTreeSpec(
            **{
                **s.as_dict(),
                "value_model": "incremental",
                "ordering": ["static", "static-interior", "static-middle"][s.branching % 3],
            }
        )
    ),
)


@st.composite
def dag_objects(draw) -> dict:
    """A random DAG as a tree object whose shared subtrees repeat (identical subtrees are one
    transposition, ``ExplicitTree.transposition``), leaning to where a transposition table can
    go wrong in floats.  Hypothesis draws the knobs and a seed (and shrinks them); the seed
    draws the nodes, which would overrun hypothesis's buffer one draw each.  Knobs: each level
    drawn from a pool of 2-40 nodes (small pools: many transpositions, some across levels;
    large ones: many distinct chance nodes), leaf values on a grid of 2-4 values with up to
    eight in ten at the upper bound (ties, windows at the bounds), outcome weights uniform
    (arity 6 or 7 sums to U less a rounding), random or shared per arity, the moves of a
    decision node as drawn or ordered best or worst first, the outcomes as drawn, the most
    probable first, or by value."""
    res = draw(st.sampled_from([1, 2, 3]))
    plies = draw(st.sampled_from([1, 1, 2, 3]))
    pattern = draw(st.sampled_from([("max", "chance"), ("max", "chance", "min", "chance")]))
    chance_root = draw(st.booleans())
    trailing = draw(st.booleans())
    at_u = draw(st.sampled_from([0, 3, 6, 8]))  # tenths of the leaves at the upper bound
    order = draw(st.sampled_from(["drawn", "best", "worst"]))
    outcome_order = draw(st.sampled_from(["drawn", "probable", "supporting", "refuting"]))
    across = draw(st.sampled_from([0, 0, 3]))  # tenths of the children from pools further down
    pool = draw(st.sampled_from([2, 3, 5, 10, 20, 40]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    kinds = ["chance"] if chance_root else []
    for i in range(plies):
        kinds.append(pattern[(2 * i) % len(pattern)])
        if i < plies - 1 or plies == 1 or trailing:
            kinds.append("chance")
    shared = {n: [rng.randint(1, 16) for _ in range(n)] for n in range(2, 8)}
    # (node, exact value, nodes written out): a tree file repeats a shared subtree, so its size
    # grows as the arities' product; they are drawn to keep it within about MAX_DAG_NODES
    widest = max(2, min(7, int(MAX_DAG_NODES ** (1 / len(kinds)))))

    def leaf() -> tuple[Any, Fraction, int]:
        x = res if rng.randrange(10) < at_u else rng.randint(0, res)
        return x, Fraction(x), 1

    level = [leaf() for _ in range(pool)]
    deeper: list[tuple[Any, Fraction, int]] = []
    for depth, kind in reversed(list(enumerate(kinds))):
        made = []
        for _ in range(1 if depth == 0 else pool):
            n = rng.randint(2, widest)
            kids = [
                rng.choice(deeper if deeper and rng.randrange(10) < across else level)
                for _ in range(n)
            ]
            size = 1 + sum(k[2] for k in kids)
            if kind == "chance":
                style = rng.choice(["uniform", "random", "shared"])
                if style == "uniform":
                    w = [1] * n
                elif style == "shared":
                    w = shared[n]
                else:
                    w = [rng.randint(1, 16) for _ in range(n)]
                total = sum(w)
                outs = [(Fraction(x, total), kid) for x, kid in zip(w, kids, strict=True)]
                if outcome_order == "probable":
                    outs.sort(key=lambda o: -o[0])
                elif outcome_order != "drawn":
                    outs.sort(key=lambda o: o[1][1], reverse=outcome_order == "supporting")
                node = {"chance": [[f"{p.numerator}/{p.denominator}", k[0]] for p, k in outs]}
                made.append((node, sum(p * k[1] for p, k in outs), size))
            else:
                if order != "drawn":
                    kids.sort(key=lambda k: k[1], reverse=(order == "best") == (kind == "max"))
                best = max if kind == "max" else min
                made.append(({kind: [k[0] for k in kids]}, best(k[1] for k in kids), size))
        deeper = deeper + level
        level = made
    return {"bounds": [0, res], "root": level[0][0]}


#: About the most nodes a ``dag_objects`` tree file holds (its DAG has far fewer).
MAX_DAG_NODES = 500
