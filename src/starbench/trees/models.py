"""Registries of the parts of a generated tree: outcome distributions, value models, orderings.

Each registry maps the public name (the value of a config key) to a small object; adding a
model is adding an entry.  Everything is a pure function of integers from
``starbench.trees.hashing``.

Outcome distributions (``tree.distribution``), probabilities as exact Fractions:

* ``uniform``: 1/c each;
* ``dice``: the 21 rolls of two dice in backgammon, (1,1), (1,2), ..., (6,6) with a <= b:
  the 6 doubles 1/36, the 15 others 1/18 (needs ``chance_arity = 21``);
* ``geometric``: skewed, p_i proportional to ``skew**i`` (``skew`` a rational in (0, 1]);
* ``random``: integer weights w_i = 1 + h mod ``weight_max`` drawn per outcome, p_i = w_i / sum w
  (Dirichlet-like, every probability rational and none zero).

Value models (``tree.value_model``), all values integers in {0..R}, ``R = tree.resolution``:

* ``uniform``: independent uniform leaves; declared bounds [0, R];
* ``incremental``: every edge draws an increment in {0..R}; a leaf's value is the sum of the
  increments on its root path (Ballard's "random values at nodes" reading, see the search notes);
  declared bounds [0, R * levels].  A node's path sum is its static value.

Decision orderings (``tree.ordering``): ``generated``, ``reversed``, ``static`` (path sum, best
first, at every decision node; incremental model only), ``static-interior`` (the same at every
decision node whose children are not leaves, the root included; a node just above the leaves
keeps the generated order), ``static-middle`` (``static-interior`` with the root too in the
generated order), ``perfect`` (exact subtree value, best first), ``worst`` (worst first),
``noisy`` (exact value plus seeded normal noise, best first; the noise's standard deviation is
``noise_sd`` times the spread of the children's exact values, ``spread``: the unit is the spread
of what is ordered, so one ``noise_sd`` means the same at every level, resolution and value
model).
Outcome orders (``tree.outcome_order``): ``generated``, ``probable`` (most probable first),
``refuting`` (exact value ascending below a MAX node, descending below a MIN node) and
``supporting`` (the reverse).  Ties always go to the lower generated index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from starbench.trees.generators import V1

DICE: tuple[Fraction, ...] = tuple(
    Fraction(1, 36) if a == b else Fraction(1, 18) for a in range(1, 7) for b in range(a, 7)
)


def uniform_probs(
    arity: int, seed: int, child_ids: list[int], skew: Fraction, weight_max: int
) -> tuple[Fraction, ...]:
    p = Fraction(1, arity)
    return (p,) * arity


def dice_probs(
    arity: int, seed: int, child_ids: list[int], skew: Fraction, weight_max: int
) -> tuple[Fraction, ...]:
    return DICE


def geometric_probs(
    arity: int, seed: int, child_ids: list[int], skew: Fraction, weight_max: int
) -> tuple[Fraction, ...]:
    weights = [skew**i for i in range(arity)]
    total = Fraction(0)
    for w in weights:
        total += w
    return tuple(w / total for w in weights)


def random_probs(
    arity: int,
    seed: int,
    child_ids: list[int],
    skew: Fraction,
    weight_max: int,
    generator: Any = None,
) -> tuple[Fraction, ...]:
    """Each outcome's weight drawn by the tree's generator version (``trees.generators``)."""
    generator = V1 if generator is None else generator
    weights = [generator.weight(seed, cid, weight_max) for cid in child_ids]
    total = 0
    for w in weights:
        total += w
    return tuple(Fraction(w, total) for w in weights)


DISTRIBUTIONS = {
    "uniform": uniform_probs,
    "dice": dice_probs,
    "geometric": geometric_probs,
    "random": random_probs,
}
# Distributions whose probabilities are the same at every chance node (cached once per tree).
CONSTANT_DISTRIBUTIONS = frozenset({"uniform", "dice", "geometric"})


@dataclass(frozen=True)
class ValueModel:
    name: str
    incremental: bool  # leaf value = path sum of edge increments

    def declared_bounds(self, resolution: int, levels: int) -> tuple[int, int]:
        return (0, resolution * levels) if self.incremental else (0, resolution)


VALUE_MODELS = {
    "uniform": ValueModel("uniform", incremental=False),
    "incremental": ValueModel("incremental", incremental=True),
}

# Orderings: name -> needs the exact-value pass.  ``STATIC_ORDERINGS``: by path sum, and at which
# decision levels (``static_at``).
ORDERINGS = {
    "generated": False,
    "reversed": False,
    "static": False,
    "static-interior": False,
    "static-middle": False,
    "perfect": True,
    "worst": True,
    "noisy": True,
}
STATIC_ORDERINGS = ("static", "static-interior", "static-middle")


def static_at(ordering: str, level: int, levels: int) -> bool:
    """Does ``ordering`` sort the moves of a decision node at ``level`` (0 = the root) of a tree
    of ``levels`` internal levels by path sum?"""
    if ordering == "static":
        return True
    if ordering not in STATIC_ORDERINGS or level + 1 >= levels:
        return False  # not static, or a node just above the leaves
    return ordering == "static-interior" or level > 0


def spread(values: list[float]) -> float:
    """The unit of ``noise_sd``: the population standard deviation of the exact values of a
    node's children, summed in their generated order (the compiled engine's
    ``compiled.trees._order_children`` computes the same floats, step for step)."""
    n = len(values)
    mean = 0.0
    for v in values:
        mean += v
    mean /= n
    var = 0.0
    for v in values:
        d = v - mean
        var += d * d
    return math.sqrt(var / n)


OUTCOME_ORDERS = {
    "generated": False,
    "probable": False,
    "refuting": True,
    "supporting": True,
}
PATTERNS = {
    "max,chance,min,chance": ("max", "min"),
    "max,chance": ("max", "max"),
    "max,min": ("max", "min"),
}
BOUNDS = ("declared", "tree")
