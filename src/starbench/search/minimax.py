"""Minimax: exhaustive search of a tree without chance nodes (von Neumann; the seeds' Max-Value /
Min-Value pseudocode).  Identical to expectimax on such trees; refuses trees with chance nodes,
naming the first one.  Returns the first best move and the set of tied best moves.
"""

from __future__ import annotations

from typing import Any

from starbench.search.base import refuse_chance
from starbench.search.expectimax import Expectimax


class Minimax(Expectimax):
    name = "minimax"

    def __init__(self, tree: Any, **kw: Any):
        refuse_chance(tree, "minimax")
        super().__init__(tree, **kw)

    @property
    def params(self) -> dict[str, Any]:
        return {"tt": self.tt, "tt_depth": self.tt_depth}  # no chance: no ``tt_nodes``
