"""The trees ``starbench conform`` asks an engine about by default: shapes of real games, with
few distinct leaf values, so that the field's bugs show.

Random trees of independent shapes rarely put a child's result exactly on its window's edge,
where a ``>=`` written for ``>`` (a result on the edge taken as exact; with non-strict cut-offs
it is only a bound) changes a value.  Games do: their trees alternate decisions and chance in a
fixed way, with few moves and outcomes and integer evaluations in a small range, so ties and
results on window edges are common.  The families (``FAMILIES``), each seeded, and what each
targets:

* ``backgammon``: root MAX, a chance node before every decision, MAX and MIN alternating, 2-3
  moves a decision, 2 equally likely outcomes a chance node, 2-3 decision plies, integer leaves
  in 0..10 (the shape of a public backgammon engine's trees: chance-node window arithmetic, probe
  results on window edges);
* ``tiles``: a chance node after every decision, as in tile-laying games (a chance root, then
  MAX, chance, MIN, ...): windows handed down through chance roots;
* ``double-move``: a player moving twice in a row (MAX under MAX, MIN under MIN, then chance):
  the window a decision node hands to one of its own kind;
* ``one-outcome``: the backgammon shape with some chance nodes of one outcome (probability 1):
  the degenerate chance node, whose window is its child's;
* ``few-values``: the backgammon shape with leaves from {0, 5, 10}: ties at every level;
* ``mixed``: the reference corpus's mixed trees (any kinds, 1-3 children).

``DEFAULT`` is how many trees of each family the default run draws (with the corpus's trees
before them); a share of requests also carries a root window (``WINDOWS``: below, above, inside
and exactly on either edge of the exact value).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any


def _text(x: Fraction) -> int | str:
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _level(
    rng: random.Random,
    kinds: list[str],
    at: int,
    moves: tuple[int, int],
    outcomes: tuple[int, int],
    values: tuple[int, ...],
    leaf_early: float,
    one_outcome: float,
) -> Any:
    """A subtree whose root is of ``kinds[at]`` (a leaf past the last kind, or early)."""
    if at >= len(kinds) or (at > 0 and rng.random() < leaf_early):
        return rng.choice(values)
    kind = kinds[at]

    def child() -> Any:
        return _level(rng, kinds, at + 1, moves, outcomes, values, leaf_early, one_outcome)

    if kind == "chance":
        n = 1 if rng.random() < one_outcome else rng.randint(*outcomes)
        p = Fraction(1, n)
        return {"chance": [[_text(p), child()] for _ in range(n)]}
    return {kind: [child() for _ in range(rng.randint(*moves))]}


def _shape(
    pattern: Callable[[random.Random], list[str]],
    moves: tuple[int, int] = (2, 3),
    outcomes: tuple[int, int] = (2, 2),
    values: tuple[int, ...] = tuple(range(0, 11)),
    leaf_early: float = 0.1,
    one_outcome: float = 0.0,
    bounds: tuple[int, int] = (0, 10),
) -> Callable[[random.Random], dict[str, Any]]:
    def make(rng: random.Random) -> dict[str, Any]:
        kinds = pattern(rng)
        root = _level(rng, kinds, 0, moves, outcomes, values, leaf_early, one_outcome)
        return {"bounds": list(bounds), "root": root}

    return make


def _alternating(first: str, plies: tuple[int, int], chance_first: bool) -> Callable:
    """Decisions alternating MAX and MIN from ``first``, a chance node between them (before
    each but the root's, or after each with ``chance_first``)."""

    def kinds(rng: random.Random) -> list[str]:
        out: list[str] = []
        turn = first
        for i in range(rng.randint(*plies)):
            if chance_first or i > 0:
                out.append("chance")
            out.append(turn)
            turn = "min" if turn == "max" else "max"
        return out

    return kinds


def _double(rng: random.Random) -> list[str]:
    """A player moving twice, then chance, then the other twice (a random cut)."""
    return ["max", "max", "chance", "min", "min", "chance", "max"][: rng.randint(4, 7)]


def _mixed(rng: random.Random) -> dict[str, Any]:
    from starbench.external.corpus import FAMILIES as CORPUS

    return CORPUS["mixed"](rng)


FAMILIES: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "backgammon": _shape(_alternating("max", (2, 3), chance_first=False)),
    "tiles": _shape(_alternating("max", (2, 3), chance_first=True)),
    "double-move": _shape(_double),
    "one-outcome": _shape(_alternating("max", (2, 3), chance_first=False), one_outcome=0.3),
    "few-values": _shape(_alternating("max", (2, 3), chance_first=False), values=(0, 5, 10)),
    "mixed": _mixed,
}
#: Trees of each family in the default run (after the reference corpus's trees).
DEFAULT = {
    "backgammon": 2400,
    "tiles": 900,
    "double-move": 700,
    "one-outcome": 700,
    "few-values": 900,
    "mixed": 400,
}
#: The root windows of windowed requests, by where the exact value V lies: as (alpha, beta) in
#: units of d = (U - L) / 20 from V, except the edges, which are V exactly.
WINDOWS = {
    "below": (1, 3),  # the value falls below the window: fails low
    "above": (-3, -1),  # fails high
    "inside": (-1, 1),
    "on-low-edge": (0, 2),  # alpha == V: fails low, with V itself the only answer in range
    "on-high-edge": (-2, 0),  # beta == V
}
#: Every how many requests one carries a window (the others search the full window).
WINDOW_EVERY = 3


def generated(counts: dict[str, int], seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, tree) of ``counts[family]`` trees of each family, drawn with ``seed`` (the
    families interleaved, so a run stopped early has seen each)."""
    makers = {
        family: (FAMILIES[family], random.Random(f"starbench-conform-{family}-{seed}"))
        for family in counts
    }
    made = dict.fromkeys(counts, 0)
    while any(made[f] < counts[f] for f in counts):
        for family, (make, rng) in makers.items():
            if made[family] < counts[family]:
                tree = make(rng)
                yield f"{family} #{made[family]} (seed {seed})", tree
                made[family] += 1


def window(name: str, v: Fraction, bounds: tuple[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    """The root window ``name`` of ``WINDOWS`` around the exact value ``v``."""
    lo, hi = WINDOWS[name]
    d = (bounds[1] - bounds[0]) / 20
    return v + lo * d, v + hi * d
