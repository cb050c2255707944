"""Monte Carlo tree search with chance nodes (``mcts``): UCT over decision nodes, chance outcomes
sampled by their probabilities; inexact.

Each of ``mcts_iterations`` iterations walks from the root: at a decision node with an untried child
it expands that child (the lowest-numbered one), else it descends to the child maximising UCB1
(Kocsis and Szepesvari, "Bandit based Monte-Carlo planning", ECML 2006), for the node's player,

    mean(child) + c * sqrt(ln N(node) / N(child)),

with values scaled to [0, 1] by the tree's bounds L and U (a MIN node maximises ``1 - mean``);
at a chance node it draws an outcome by its probabilities (as MCTS programs and OpenSpiel's
``mcts.py`` handle chance).  From the expanded node a playout descends to a leaf, uniformly
random moves and outcomes drawn by their probabilities (a game tree's leaves are its horizon,
evaluated by its heuristic, or its terminals); the leaf's value is backed up the walked path.
The root's value is the mean of its most visited child's returns (the root's own mean at a
chance root), its best move that child (ties: the lowest index).  Every node a walk or a playout
enters is counted by ``Search._enter``, as every algorithm counts nodes (a node entered by
several iterations counts each time).  Draws come from numpy's PCG64 seeded by ``(mcts_seed, the
tree's seed)``: a search is reproducible.  A value is an estimate, so rows are ``approx``.
"""

from __future__ import annotations

import math
from typing import Any

from starbench.search.base import Search
from starbench.trees.protocol import Kind

MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF


class _Node:
    __slots__ = ("kids", "n", "total")

    def __init__(self) -> None:
        self.kids: dict[int, _Node] = {}
        self.n = 0
        self.total = 0.0


class MCTS(Search):
    name = "mcts"

    def __init__(
        self,
        tree: Any,
        *,
        mcts_iterations: int = 1000,
        exploration: float = 1.4,
        mcts_seed: int = 0,
        **kw: Any,
    ):
        super().__init__(tree, **kw)
        self.iterations = mcts_iterations
        self.exploration = exploration
        self.mcts_seed = mcts_seed
        import numpy as np  # here, not at import: ``import starbench`` stays light

        self._np = np
        ts = int(getattr(tree, "tree_seed", 0) or 0)
        self._rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([mcts_seed, ts])))
        self._span = float(self.U - self.L)

    @property
    def params(self) -> dict[str, Any]:
        return {
            **super().params,
            "mcts_iterations": self.iterations,
            "exploration": self.exploration,
            "mcts_seed": self.mcts_seed,
        }

    def _outcome(self, node: Any, kids: Any) -> int:
        p = self._np.asarray([float(x) for x in self.tree.probabilities(node)])
        return int(self._rng.choice(len(kids), p=p / p.sum()))

    def _playout(self, node: Any) -> float:
        """A random descent from ``node`` (entered already) to a leaf: its value."""
        tree = self.tree
        kind = tree.kind(node)
        while kind != LEAF:
            kids = tree.children(node)
            if kind == CHANCE:
                node = kids[self._outcome(node, kids)]
            else:
                node = kids[int(self._rng.integers(len(kids)))]
            self._down()
            kind = self._enter(node)
        return float(self._leaf(node))

    def _iterate(self, root: Any, stats: _Node) -> None:
        tree = self.tree
        node, here = root, stats
        path = [here]
        self.level = 0  # the root's level (each step down is one level deeper)
        kind = self._enter(node)
        while kind != LEAF:
            kids = tree.children(node)
            if kind == CHANCE:
                j = self._outcome(node, kids)
            elif len(here.kids) < len(kids):
                j = next(i for i in range(len(kids)) if i not in here.kids)
            else:
                j = self._ucb(here, kind == MAX)
            node = kids[j]
            fresh = j not in here.kids
            here = here.kids.setdefault(j, _Node())
            path.append(here)
            self._down()
            kind = self._enter(node)
            if fresh and kind != LEAF and tree.kind(node) != CHANCE:
                value = self._playout(node)
                break
        else:
            value = float(self._leaf(node))
        for s in path:
            s.n += 1
            s.total += value

    def _ucb(self, here: _Node, maximise: bool) -> int:
        log_n = math.log(here.n)
        best, best_j = -math.inf, 0
        for j in sorted(here.kids):
            k = here.kids[j]
            mean = (k.total / k.n - float(self.L)) / self._span
            score = (mean if maximise else 1.0 - mean) + self.exploration * math.sqrt(log_n / k.n)
            if score > best:
                best, best_j = score, j
        return best_j

    def _root(self) -> tuple[Any, int | None, tuple[int, ...] | None]:
        root = self.tree.root
        stats = _Node()
        for _ in range(self.iterations):
            self._iterate(root, stats)
        kind = self.tree.kind(root)
        if kind not in (MAX, MIN) or not stats.kids:
            return self.num(stats.total / max(stats.n, 1)), None, None
        j = max(sorted(stats.kids), key=lambda i: stats.kids[i].n)
        child = stats.kids[j]
        return self.num(child.total / child.n), j, None

    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:  # pragma: no cover - _root
        raise NotImplementedError("mcts searches from the root only")
