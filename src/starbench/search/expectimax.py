"""Expectimax: Michie's (1966) exhaustive procedure for trees with chance nodes.

``value(n)`` is the leaf's evaluation at a leaf, the largest child value at MAX, the smallest at
MIN and ``sum_i p_i * value(child_i)`` (one explicit loop in child order) at a chance node.  Every
node is entered exactly once, so on a regular tree ``nodes`` is the tree's size.  The root
returns the first best move (strict ``>``) and the set of all tied best moves (equal values; within
the float tolerance in float mode).  The window arguments are ignored.

D. Michie, "Game-playing and game-learning automata", in Advances in Programming and
Non-Numerical Computation, Pergamon, 1966; see also the seeds' pseudocode (``expectiminimax``).
"""

from __future__ import annotations

from typing import Any

from starbench.search.arith import agree
from starbench.search.base import Search
from starbench.trees.protocol import Kind

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF


class Expectimax(Search):
    name = "expectimax"
    exhaustive = True

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "tt_nodes": self.tt_nodes}

    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:
        kind = self._enter(node)
        if kind == LEAF:
            return self._leaf(node)
        kids = self.tree.children(node)
        search = self._search
        lv = self._down()  # the children's level
        if kind == CHANCE:
            probs = self._probs(node)
            total = self.num(0)
            for p, child in zip(probs, kids, strict=True):
                total += p * search(child, alpha, beta)
            self.level = lv - 1
            return total
        values = [search(child, alpha, beta) for child in kids]
        self.level = lv - 1
        best = max(values) if kind == MAX else min(values)  # the first of equal values
        self._last_move = values.index(best)  # for the transposition table: after every child
        return best

    def _root(self) -> tuple[Any, int | None, tuple[int, ...] | None]:
        root = self.tree.root
        kind = self.tree.kind(root)
        if kind not in (MAX, MIN):
            return self._search(root, None, None), None, None
        self._enter(root)
        self._down()
        values = [self._search(child, None, None) for child in self.tree.children(root)]
        self.level = 0
        best_move = 0
        for m, v in enumerate(values):
            if v > values[best_move] if kind == MAX else v < values[best_move]:
                best_move = m
        best = values[best_move]
        tied = tuple(
            m for m, v in enumerate(values) if agree(v, best, self.L, self.U, self.arith.exact)
        )
        self.root_values = tuple(values)
        return best, best_move, tied
