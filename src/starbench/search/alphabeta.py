"""Alpha-beta: fail-soft alpha-beta search of a tree without chance nodes.

At a MAX node with window (alpha, beta) the moves are searched in order with the window
(max(alpha, best), beta); the node stops (a decision cut-off) as soon as ``best >= beta``; a MIN
node mirrors this (``best <= alpha``).  Cut-off tests are non-strict, ties go to the first move
(strict ``>``), the root is searched with (-inf, +inf).  With perfect ordering on a uniform tree of
branching b and depth d it evaluates Knuth and Moore's minimal tree,
b^ceil(d/2) + b^floor(d/2) - 1 leaves.

The decision loop works on a ``DecisionState`` and can stop after any move and continue later:
the *-minimax algorithms reuse it for their decision nodes, and Star2/Star2.5 probe the first
moves of a successor with it and resume the rest.

D. E. Knuth and R. W. Moore, "An analysis of alpha-beta pruning", Artificial Intelligence 6(4),
1975.
"""

from __future__ import annotations

from typing import Any

from starbench.search.arith import tolerance
from starbench.search.base import DecisionState, Search, refuse_chance
from starbench.trees.protocol import Kind

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF


class AlphaBeta(Search):
    name = "alphabeta"
    chance_capable = False

    def __init__(self, tree: Any, **kw: Any):
        if not self.chance_capable:
            refuse_chance(tree, self.name)
        super().__init__(tree, **kw)

    def _state(self, node: Any, kind: Kind) -> DecisionState:
        is_max = kind == MAX
        kids = self.tree.children(node)
        return DecisionState(
            node,
            is_max,
            kids,
            self.arith.neg_inf if is_max else self.arith.pos_inf,
            None if self.table is None else self._take_hint(len(kids)),
        )

    def _run_moves(
        self, st: DecisionState, alpha: Any, beta: Any, stop: int, margin: Any = 0
    ) -> None:
        """Search moves ``st.next .. stop-1`` with alpha-beta, updating ``st`` (fail-soft).

        A move replaces the best one only when it is better by more than ``margin`` (0 except at
        a float-mode root, see ``_root``)."""
        kids = st.children
        best = st.best
        if st.is_max:
            while st.next < stop:
                if best >= beta:
                    self._cut_decision()
                    break
                m = st.next
                st.next = m + 1
                v = self._child(kids[m], alpha if alpha > best else best, beta)
                if v > best + margin:
                    best = v
                    st.best_move = m
        else:
            while st.next < stop:
                if best <= alpha:
                    self._cut_decision()
                    break
                m = st.next
                st.next = m + 1
                v = self._child(kids[m], alpha, beta if beta < best else best)
                if v < best - margin:
                    best = v
                    st.best_move = m
        st.best = best

    def _chance(self, node: Any, alpha: Any, beta: Any) -> Any:
        raise AssertionError("alpha-beta met a chance node")  # refused at construction

    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:
        kind = self._enter(node)
        if kind == LEAF:
            return self._leaf(node)
        if kind == CHANCE:
            return self._chance(node, alpha, beta)
        st = self._state(node, kind)
        self._run_moves(st, alpha, beta, len(st.children))
        self._last_move = st.move(st.best_move)
        return st.best

    def _root(self) -> tuple[Any, int | None, tuple[int, ...] | None]:
        root = self.tree.root
        kind = self.tree.kind(root)
        neg, pos = self.arith.neg_inf, self.arith.pos_inf
        if kind not in (MAX, MIN):
            return self._search(root, neg, pos), None, None
        self._enter(root)
        st = self._state(root, kind)
        # In floats a later move's fail-low bound can round to just above the best value and
        # would take the best move from a better move: at the root a move must be better by
        # more than the tolerance (its value is then within the tolerance of the best anyway).
        margin = 0 if self.arith.exact else tolerance(self.L, self.U)
        self._run_moves(st, neg, pos, len(st.children), margin)
        return st.best, st.move(st.best_move), None
