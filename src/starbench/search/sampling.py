"""Sparse sampling at chance nodes: ``expectimax-ss``, ``star1-ss`` and ``star2-ss``.

Lanctot, Saffidine, Veness, Archibald and Winands, "Monte Carlo *-Minimax Search" (IJCAI 2013),
search a tree in which every chance node keeps ``c`` outcomes (``samples``) drawn with
replacement by their probabilities, each weighted ``1/c``:

    value(chance node) = (1/c) * sum_{i = 1..c} value(outcome drawn i-th)

and run expectimax, Star1 or Star2 unchanged on that sampled tree (Star1's and Star2's windows
use the same bounds L and U; a drawn outcome twice is searched twice).  The draws depend only on
the tree's seed, the chance node's identity (its transposition key: a generated node's id, a
game state's ``GameTree.draw_identity``, a tree file's node number) and ``c`` (``draws``), never
on the search: the probe and search phases and all three algorithms see one and the same sampled
tree.  So ``star1-ss`` and ``star2-ss`` must equal ``expectimax-ss`` with the same ``samples``
exactly (a difference is a ``mismatch``), while against the full tree's expectimax they are
inexact: their rows have the status ``approx`` and the error ``value_error``.

Draw ``i`` of a node is the float in [0, 1) of ``draw(tree_seed, key, SALT + c * 2**20 + i)``
(``starbench.trees.hashing``), mapped to an outcome by the cumulative probabilities in the
node's order (the first outcome whose cumulative sum exceeds it; the last one at rounding's
edge).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from starbench.search.expectimax import Expectimax
from starbench.search.star1 import Star1
from starbench.search.star2 import Star2
from starbench.trees.hashing import draw, unit_float
from starbench.trees.protocol import Kind

SALT = 0x55_5353 << 32  # "Uss": the purpose of sparse-sampling draws
CHANCE = Kind.CHANCE


def draws(seed: int, key: int, probs: Any, samples: int) -> list[int]:
    """The outcomes (indices into ``probs``) of a chance node's ``samples`` draws."""
    cum, total = [], 0.0
    for p in probs:
        total += float(p)
        cum.append(total)
    out = []
    for i in range(samples):
        u = unit_float(draw(seed, key & 0xFFFFFFFFFFFFFFFF, SALT + samples * 2**20 + i)) * total
        j = next((j for j, c in enumerate(cum) if u < c), len(cum) - 1)
        out.append(j)
    return out


class SampledTree:
    """A tree with every chance node's outcomes replaced by ``samples`` draws, weight 1/c each;
    everything else is the wrapped tree's."""

    def __init__(self, tree: Any, samples: int):
        self._tree = tree
        self.samples = samples
        self._seed = int(getattr(tree, "tree_seed", 0) or 0)
        self._weights = (Fraction(1, samples),) * samples
        self._drawn: dict[int, list[int]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tree, name)

    def _picks(self, node: Any) -> list[int]:
        identity = getattr(self._tree, "draw_identity", None)  # a game's (``GameTree``)
        key = identity(node) if identity is not None else self._tree.transposition(node)[0]
        picks = self._drawn.get(key)
        if picks is None:
            probs = self._tree.probabilities(node)
            picks = self._drawn[key] = draws(self._seed, key, probs, self.samples)
        return picks

    def children(self, node: Any) -> Any:
        kids = self._tree.children(node)
        if self._tree.kind(node) != CHANCE:
            return kids
        return [kids[j] for j in self._picks(node)]

    def probabilities(self, node: Any) -> tuple[Fraction, ...]:
        return self._weights


def _sampled(base: type, name: str) -> type:
    """``base`` searching the sampled tree of its tree (``samples`` outcomes per chance node)."""

    class Sampled(base):  # type: ignore[valid-type, misc]
        def __init__(self, tree: Any, *, samples: int = 8, **kw: Any):
            if not callable(getattr(tree, "transposition", None)):
                from starbench.errors import InputError

                raise InputError(
                    f"{name}: {getattr(tree, 'source', 'this tree')} has no node keys to seed "
                    f"the draws (a tree needs a transposition(node) method)"
                )
            self.samples = samples
            super().__init__(SampledTree(tree, samples), **kw)

        @property
        def params(self) -> dict[str, Any]:
            return {**super().params, "samples": self.samples}

    Sampled.__name__ = Sampled.__qualname__ = f"Sampled{base.__name__}"
    return Sampled


ExpectimaxSS = _sampled(Expectimax, "expectimax-ss")
Star1SS = _sampled(Star1, "star1-ss")
Star2SS = _sampled(Star2, "star2-ss")
