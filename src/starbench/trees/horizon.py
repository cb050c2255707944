"""Shallow views of a tree: a subtree cut after a number of decision plies (ChanceProbCut).

A tree whose interior nodes have a value of their own (a *static value*: the random trees'
incremental path sum, a game's heuristic) may offer

* ``plies_below(node)``: the decision plies on every path below ``node`` (the node itself not
  counted): a chance node's remaining depth;
* ``shallow(node, plies)``: the subtree of ``node`` seen as a tree of its own, cut after
  ``plies`` decision plies counted from ``node`` itself (a decision node counts one): the
  decision nodes of the next ply are leaves evaluated by their static value; chance nodes
  before the cut stay chance nodes (chance is free, as in every depth of this project).
  ``plies = 0`` makes ``node`` itself the one leaf.

``Horizon`` implements the second for trees whose nodes are ``(level, id, path_sum)`` tuples
(``starbench.trees.regular``).  Its bounds are wide enough for every static value as well as
every leaf: ``[min(L, S_lo), max(U, S_hi)]`` with ``[S_lo, S_hi]`` the static values' range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starbench.trees.protocol import Kind


class Horizon:
    """``tree``'s subtree at ``root``, cut at level ``cut``: nodes of that level are leaves
    valued by their path sum (``node[2]``)."""

    def __init__(self, tree: Any, root: Any, cut: int, bounds: tuple[Any, Any]):
        self.tree = tree
        self.root = root
        self.cut = cut
        self.bounds = bounds
        self.exact = getattr(tree, "exact", True)

    def kind(self, node: Any) -> Kind:
        if node[0] >= self.cut:
            return Kind.LEAF
        return self.tree.kind(node)

    def evaluate(self, node: Any) -> Any:
        return node[2]

    def children(self, node: Any) -> Sequence[Any]:
        return self.tree.children(node)

    def probabilities(self, node: Any) -> tuple[Any, ...]:
        return self.tree.probabilities(node)

    def describe(self, node: Any) -> str:
        return f"{self.tree.describe(node)} (shallow view cut at level {self.cut})"
