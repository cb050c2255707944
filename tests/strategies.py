"""Hypothesis strategies: random explicit trees as JSON objects (numbers as exact strings)."""

from __future__ import annotations

from fractions import Fraction

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
    noise_sd=st.sampled_from([0.0, 1.0, 1000.0]),
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
