"""Expectimax on game trees with the tree protocol fused in: the games' fast path.

``starbench.search.expectimax.Expectimax`` (the reference) asks the tree for each node's kind,
children, probabilities and leaf value through ``GameTree``'s methods, and enters every node
through ``Search._enter`` and ``Search._leaf``: about five Python calls per node where OpenSpiel's
own ``expectiminimax`` makes one.  ``GameExpectimax`` computes the same thing straight from the
game states' API:

* a node is classified as ``GameTree.kind`` does (the horizon first, then ``is_terminal``,
  ``is_chance_node``, ``current_player``; on a pyspiel state one ``current_player()`` answers
  the last two, as OpenSpiel defines ``IsChanceNode``) and counted as ``Search._enter`` counts
  it (``nodes``, ``leaves``, ``max_nodes``, ``min_nodes``, ``chance_nodes``, the node and time
  budgets checked at the same node); the children of a node with one ply left are all leaves
  and are counted together when no budget check falls among them;
* a leaf child is evaluated in its parent's loop, as ``GameTree.evaluate`` and ``Search._leaf``
  do (``returns()[root_player]`` at a terminal, else the heuristic; a value outside [L, U] or
  not a number is refused with the reference's error, the counters standing at that leaf);
* a child state is made when its turn comes and dropped after its subtree, as OpenSpiel does
  (the reference makes a node's children first);
* values are combined in the reference's order and float arithmetic (``total += p * v`` over the
  outcomes in order, from 0.0; the first of equal best values at MAX and MIN).

So value, best move and every counter are the reference's (``tests/test_games.py`` compares them
on every game the tests know).  ``GameTree.search_class`` picks this class for expectimax in float
mode without a transposition table or debug checks; everything else runs the reference.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from starbench.search.expectimax import Expectimax
from starbench.trees.protocol import Kind

MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF
first = itemgetter(0)  # an outcome's action
#: OpenSpiel's current_player() at a chance node (``State::IsChanceNode`` is defined as this)
CHANCE_PLAYER = -1


def _openspiel_state(state: Any) -> bool:
    """Is ``state`` a pyspiel state?  Then ``current_player() == -1`` is ``is_chance_node()``,
    one call instead of two at every decision node."""
    try:
        import pyspiel
    except ImportError:
        return False
    return isinstance(state, pyspiel.State)


class GameExpectimax(Expectimax):
    """``Expectimax`` over a ``GameTree`` (float mode, no table, no debug checks)."""

    def __init__(self, tree: Any, **settings: Any):
        super().__init__(tree, **settings)
        self._codes = _openspiel_state(tree.root[0])

    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:
        kind = self._enter(node)  # the root's children come here (Expectimax._root)
        if kind == LEAF:
            return self._leaf(node)
        return self._subtree(node[0], node[1], kind, self.level)

    def _subtree(self, state: Any, left: int | None, kind: Kind, level: int) -> float:
        """The value of the entered decision or chance node ``state`` with ``left`` plies, at
        ``level``.

        One Python call per decision or chance node and none per leaf; the counters live in
        the closure while it runs (a local is cheaper than an attribute) and go back to the
        search object when it ends, a budget or an error included."""
        nodes, leaves = self.nodes, self.leaves
        max_nodes, min_nodes, chance_nodes = self.max_nodes, self.min_nodes, self.chance_nodes
        check_at = self._check_at
        tree = self.tree
        root_player, heuristic, L, U = tree.root_player, tree.heuristic, self.L, self.U
        codes = self._codes
        lv_nodes, lv_leaves = self.lv_nodes, self.lv_leaves  # grown in place (Search._grow)
        # the kinds as plain ints inside (an int comparison is cheaper than an IntEnum's)
        is_max, is_min, is_chance, is_leaf = int(MAX), int(MIN), int(CHANCE), int(LEAF)

        def over_budget() -> None:
            nonlocal check_at
            self.nodes = nodes
            self._over_budget()  # raises, or sets the count of the next time check
            check_at = self._check_at

        # do all values met so far equal the first (GameTree.flat_value)?  One list count per
        # node until two differ, one test after
        flat, common = True, None

        def value(state: Any, left: int | None, kind: int, lv: int) -> float:
            nonlocal nodes, leaves, max_nodes, min_nodes, chance_nodes, flat, common
            lv += 1  # the children's level
            if lv >= self._room:
                self._grow(lv)
            if kind == is_chance:
                outcomes = state.chance_outcomes()
                actions = list(map(first, outcomes))
                nxt = left
            else:
                actions = state.legal_actions()
                nxt = None if left is None else left - 1
            horizon = nxt is not None and nxt <= 0
            child_of = state.child  # a child is made when its turn comes, dropped after it
            values: list[float] = []
            if horizon and nodes + len(actions) <= check_at:
                # all leaves, and no budget check falls among them: counted together
                n = len(actions)
                nodes += n
                leaves += n
                lv_nodes[lv] += n
                lv_leaves[lv] += n
                try:
                    for a in actions:  # GameTree.evaluate and Search._leaf
                        child = child_of(a)
                        if child.is_terminal():
                            v = float(child.returns()[root_player])
                        else:
                            v = float(heuristic(child))
                        if not L <= v <= U:
                            raise ValueError(v)
                        values.append(v)
                except Exception:
                    # the reference counted up to this leaf, then raises its error in _leaf
                    nodes -= n - len(values) - 1
                    leaves -= n - len(values) - 1
                    lv_nodes[lv] -= n - len(values) - 1
                    lv_leaves[lv] -= n - len(values) - 1
                    self._leaf((child_of(actions[len(values)]), nxt))
                    raise
            else:
                for a in actions:
                    child = child_of(a)
                    # Search._enter with GameTree.kind
                    nodes += 1
                    lv_nodes[lv] += 1
                    terminal = False
                    if horizon:
                        ckind = is_leaf
                        leaves += 1
                        lv_leaves[lv] += 1
                    elif child.is_terminal():
                        ckind = is_leaf
                        terminal = True
                        leaves += 1
                        lv_leaves[lv] += 1
                    else:
                        if codes:  # a pyspiel state: one call tells chance and the player apart
                            player = child.current_player()
                            chance = player == CHANCE_PLAYER
                        else:
                            chance = child.is_chance_node()
                            player = None if chance else child.current_player()
                        if chance:
                            ckind = is_chance
                            chance_nodes += 1
                        elif player == root_player:
                            ckind = is_max
                            max_nodes += 1
                        else:
                            ckind = is_min
                            min_nodes += 1
                    if nodes > check_at:
                        over_budget()
                    if ckind != is_leaf:
                        values.append(value(child, nxt, ckind, lv))
                        continue
                    try:  # GameTree.evaluate and Search._leaf
                        if terminal or child.is_terminal():
                            v = float(child.returns()[root_player])
                        else:
                            v = float(heuristic(child))
                        ok = L <= v <= U
                    except (TypeError, ValueError, OverflowError):
                        ok = False
                    if not ok:  # the reference's error (no heuristic, NaN, outside the bounds)
                        self._leaf((child, nxt))
                    values.append(v)
            if flat:  # every leaf's value is among some node's values
                if common is None:
                    common = values[0]
                if values.count(common) != len(values):
                    flat = False
            if kind == is_chance:
                total = 0.0
                for (_, p), v in zip(outcomes, values, strict=True):
                    total += float(p) * v
                return total
            return max(values) if kind == is_max else min(values)

        try:
            return value(state, left, int(kind), level)
        finally:
            if not flat or common is not None:
                tree.saw_leaves(common if flat else None)
            self.nodes, self.leaves = nodes, leaves
            self.max_nodes, self.min_nodes, self.chance_nodes = max_nodes, min_nodes, chance_nodes
