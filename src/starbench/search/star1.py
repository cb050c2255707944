"""Star1: Ballard's *-minimax pruning at chance nodes, alpha-beta at decision nodes.

Every value lies in [L, U].  A chance node with outcomes 1..n, probabilities p_1..p_n and window
(alpha, beta) keeps, for each outcome j, a lower and an upper bound lo_j <= v_j <= hi_j (L and U
before the outcome is searched; its exact value after).  Before outcome i is searched, with
X_i = sum_{j<i} p_j v_j and the tails over the outcomes after i,

    alpha_i = (alpha - X_i - sum_{j>i} p_j hi_j) / p_i     (v_i <= alpha_i  =>  value <= alpha)
    beta_i  = (beta  - X_i - sum_{j>i} p_j lo_j) / p_i     (v_i >= beta_i   =>  value >= beta)

(the general per-outcome form; with equal probabilities and lo = L, hi = U this is Ballard's
A_i = N(alpha - U) + U, B_i = N(beta - L) + L, with A += U - v, B += L - v after each outcome).
Outcome i is searched with the window clamped to [L, U], (max(alpha_i, L), min(beta_i, U)), but
the cut-off is tested against the *unclamped* alpha_i and beta_i (non-strict tests).  On a fail
low the node returns the proven upper bound X_i + p_i v_i + sum_{j>i} p_j hi_j, on a fail high the
lower bound X_i + p_i v_i + sum_{j>i} p_j lo_j (fail-soft); otherwise sum_i p_i v_i, which is what
expectimax returns.  Before the first outcome the node returns at once when the bounds alone
decide (sum_j p_j hi_j <= alpha or sum_j p_j lo_j >= beta).  In float mode rounding can close
the clamped window of a nearly decided node; that outcome is then searched with the full window
[L, U] (never with an empty window, whose result would be neither bound).

A proven bound never lands on the wrong side of its window: the fail-low result is
min(X_i + p_i v_i + sum_{j>i} p_j hi_j, alpha), the fail-high one max(..., beta).  Exactly this
changes nothing (the sum is <= alpha, resp. >= beta); in floats the sum lands within a rounding
of the edge, on either side, and a result read by its place in the window (a parent's cut-off
tests, the transposition table's store) would otherwise take an upper bound that landed past
alpha for an exact value, or one that landed on beta in a window narrower than the rounding
for a lower bound (issue 72: with a table, wrong values on rare DAGs, 3.0 for 2.85).  So in
both arithmetics a result <= alpha is an upper bound, >= beta a lower bound, and strictly
inside the window exact (within the float rounding).

With a transposition table (``tt > 0``) and ``tt_chance=true``, lo_j and hi_j start from the
bounds the table holds for outcome j (at its depth), not from L and U (``_initial_bounds``).

B. W. Ballard, "The *-minimax search procedure for trees containing chance nodes", Artificial
Intelligence 21(3):327-350, 1983.  T. Hauk, M. Buro, J. Schaeffer, "Rediscovering *-Minimax
Search", Computers and Games 2004, LNCS 3846, 2006.  J. Veness, A. Blair, "Effective Use of
Transposition Tables in Stochastic Game Tree Search", IEEE CIG 2007.
"""

from __future__ import annotations

from typing import Any

from starbench.search.alphabeta import LEAF, AlphaBeta


class ChanceNode:
    """One chance node under search: the state its probe phase (Star2, Star2.5) and its search
    phase share, the procedure's variables at that node.  ``kids`` its outcomes with
    probabilities ``probs``; ``(alpha, beta)`` its window; ``lo[i] <= v_i <= hi[i]`` each
    outcome's proven bounds (L and U, or the table's with ``tt_chance``, until a probe or a
    search tightens them); ``states`` the probe state of each outcome a probe entered (None:
    not probed; Star1 has none at all); ``sums`` = [sum_i p_i lo_i, sum_i p_i hi_i] while a
    probe phase runs.  The fused game searches (``games.stars``) add the outcomes' kinds and
    the plies left."""

    __slots__ = ("kids", "probs", "alpha", "beta", "lo", "hi", "states", "sums")

    def __init__(
        self, kids: Any, probs: Any, alpha: Any, beta: Any, lo: Any, hi: Any, states: Any = None
    ):
        self.kids, self.probs, self.alpha, self.beta = kids, probs, alpha, beta
        self.lo, self.hi, self.states = lo, hi, states
        self.sums: list[Any] = []


class Star1(AlphaBeta):
    name = "star1"
    chance_capable = True

    def __init__(self, tree: Any, *, tt_chance: bool = False, **kw: Any):
        super().__init__(tree, **kw)
        self.tt_chance = tt_chance

    @property
    def params(self) -> dict[str, Any]:
        return {**super().params, "tt_nodes": self.tt_nodes, "tt_chance": self.tt_chance}

    def _chance(self, node: Any, alpha: Any, beta: Any) -> Any:
        kids = self.tree.children(node)
        probs = self._probs(node)
        lo, hi = self._initial_bounds(kids)
        return self._search_phase(ChanceNode(kids, probs, alpha, beta, lo, hi))

    def _initial_bounds(self, kids: Any) -> tuple[list[Any], list[Any]]:
        """Each outcome's bounds before any is searched: [L, U], or with ``tt_chance`` the
        bounds the transposition table holds for it (Veness and Blair's use of the table at
        chance nodes), which can decide the cut-off before any outcome is searched."""
        n = len(kids)
        L, U = self.L, self.U
        lo, hi = [L] * n, [U] * n
        table = self.table
        if table is None or not self.tt_chance:
            return lo, hi
        tree = self.tree
        for i, child in enumerate(kids):
            if tree.kind(child) == LEAF:
                continue
            key, depth = tree.transposition(child)
            self.tt_probes += 1
            e = table.probe(key, depth, self.tt_deeper)
            if e is not None:
                self.tt_hits += 1
                if e[2] > L:
                    lo[i] = e[2]
                if e[3] < U:
                    hi[i] = e[3]
        return lo, hi

    def _outcome(self, c: ChanceNode, i: int, a: Any, b: Any) -> Any:
        """Search outcome ``i`` with window (a, b); Star2 overrides this to resume probes."""
        return self._child(c.kids[i], a, b)

    def _search_phase(self, c: ChanceNode) -> Any:
        """Star1 over all outcomes with per-outcome bounds ``lo``/``hi`` (L/U unless probed)."""
        kids, probs, alpha, beta, lo, hi = c.kids, c.probs, c.alpha, c.beta, c.lo, c.hi
        L, U = self.L, self.U
        n = len(kids)
        tail_lo = self.num(0)
        tail_hi = self.num(0)
        for j in range(n):
            tail_lo += probs[j] * lo[j]
            tail_hi += probs[j] * hi[j]
        # the bounds alone may decide (no outcome searched)
        if tail_hi <= alpha:
            self._cut_chance()
            return tail_hi
        if tail_lo >= beta:
            self._cut_chance()
            return tail_lo
        x = self.num(0)
        for i in range(n):
            p = probs[i]
            tail_lo -= p * lo[i]
            tail_hi -= p * hi[i]
            alpha_i = (alpha - x - tail_hi) / p
            beta_i = (beta - x - tail_lo) / p
            a = alpha_i if alpha_i > L else L
            b = beta_i if beta_i < U else U
            if not a < b:
                # Exactly, a < b always; float rounding can close a near-empty window, and a
                # result searched with an empty window cannot be read as a bound: search exactly.
                a, b = L, U
            v = self._outcome(c, i, a, b)
            if v <= alpha_i:  # fail low: proven upper bound, never above alpha (see above)
                if i < n - 1:
                    self._cut_chance()
                r = x + p * v + tail_hi
                return r if r <= alpha else alpha
            if v >= beta_i:  # fail high: proven lower bound, never below beta
                if i < n - 1:
                    self._cut_chance()
                r = x + p * v + tail_lo
                return r if r >= beta else beta
            x += p * v
        return x
