"""ChanceProbCut: forward pruning at chance nodes, on top of Star2 (inexact).

At a chance node with outcomes 1..n, probabilities p_1..p_n, window (alpha, beta) and D decision
plies below it, where D >= r, each outcome i is first searched *shallow*: to D - r decision plies
(0 plies: the outcome's own static value, as ProbCut's shallow search of depth 0 is the
evaluation), its horizon valued by the static value of the nodes there (the random trees'
incremental path sum, a game's heuristic; ``starbench.trees.horizon``), giving v'_i.  A linear
model fitted beforehand on positions of the same tree model (``starbench calibrate``;
``starbench.search.calibration``) predicts the deep value from it, v_i ~ a v'_i + b, with residual
standard deviation s for the depth pair (D, D - r).
The prediction gives the outcome estimated bounds

    lo_i = max(L, a v'_i + b - t s),    hi_i = min(U, a v'_i + b + t s),

in place of L and U.  After each shallow search (outcomes not yet searched shallow keep L and
U) the node is cut when the estimated bounds put it outside the window:

    sum_j p_j hi_j <= alpha   (returns that sum, an estimated upper bound), or
    sum_j p_j lo_j >= beta    (returns that sum, an estimated lower bound).

Otherwise Star2 runs at the node (its probing phase, then Star1's search phase) with lo_i and hi_i
as the outcomes' starting bounds instead of L and U: an outcome's window (alpha_i, beta_i) of
``star1`` is narrowed by the estimates of the others, and an outcome whose probe or search
proves a value replaces its estimate.  That changes two phases of Star2: a new phase before the
probing phase, and the bounds both phases start from.  Where D < r (no shallow search of that
reduction exists), at a node searched with the full window (no estimate can put it outside a
window that holds [L, U]), and everywhere with
``t = inf`` (every estimate is then [L, U] and no cut can come of it), no shallow search runs and
the node is Star2's exactly: with ``t = inf`` the value, the move and every counter equal Star2's.

Choices where the paper leaves one (Schadd et al. state the method on Star1/Star2 in general):
the shallow searches are Star2 searches with the full window of the shallow view (exact at their
depth) and never cut themselves; they run outcome by outcome in the node's order, testing the
cut after each; an outcome that is a leaf is searched like any other (its shallow value is its
value); chance is free (D counts decision plies; chance nodes above the horizon stay chance
nodes); a shallow search's nodes count in ``nodes``, ``leaves`` and the kinds' counters as every
node does, and in ``shallow_nodes`` too; a cut counts one ``chance_cutoffs``.  ``1 <= r`` and r at
most the deepest chance node's D (so ``r < tree.depth``): a chance node is searched exactly only
where D < r, so ``r = 1`` prunes Ballard's three-level trees (D = 1, shallow depth 0) too; the
calibration names the depth pairs it covers, and a tree with a chance node whose pair it lacks is
refused when the search is made (``starbench.search.calibration.Calibration.check``).

M. P. D. Schadd, M. H. M. Winands, J. W. H. M. Uiterwijk, "ChanceProbCut: Forward Pruning in
Chance Nodes", IEEE Symposium on Computational Intelligence and Games (CIG) 2009, pp. 178-185,
doi:10.1109/CIG.2009.5286476; M. P. D. Schadd, "Selective Search in Games of Different
Complexity", PhD thesis, Maastricht University, 2011.  M. Buro, "ProbCut: An Effective Selective
Extension of the Alpha-Beta Algorithm", ICCA Journal 18(2), 1995.
"""

from __future__ import annotations

import math
from typing import Any

from starbench.errors import BudgetExceeded, InputError
from starbench.search.star2 import Star2
from starbench.trees.protocol import Kind

#: The counters a shallow search adds to the search that runs it (and ``shallow_nodes``).
KIND_COUNTERS = ("nodes", "leaves", "max_nodes", "min_nodes", "chance_nodes")


def shallow_value(view: Any, exact: bool, within: Any = None) -> tuple[Any, dict[str, int]]:
    """A shallow view's value by Star2 with a window past its bounds (exact at its depth), and
    the search's ``KIND_COUNTERS``; a view that is one leaf is evaluated (one node, one leaf).
    ChanceProbCut's shallow searches and its calibration's (``starbench.experiment.calibrate``).

    ``within``: the search that runs it, which gets its counters (and ``shallow_nodes``) and
    whose node and time budgets it shares: past either it raises ``BudgetExceeded`` with the
    nodes it visited counted in ``within``'s."""
    if view.kind(view.root) == Kind.LEAF:  # a leaf, or the horizon at the view's root itself
        counts = {"nodes": 1, "leaves": 1}
        _count(within, counts)
        if within is not None:  # the view's root is the searched node's outcome: one level down
            lv = within.level + 1
            if lv >= within._room:
                within._grow(lv)
            within.lv_nodes[lv] += 1
            within.lv_leaves[lv] += 1
        if within is not None and within.nodes > within._check_at:
            within._over_budget()
        return view.evaluate(view.root), counts
    left = None
    if within is not None and within.node_budget is not None:
        left = within.node_budget - within.nodes
    s = Star2(view, k=1, probing="cyclic", after_probe="resume", exact=exact, node_budget=left)
    if within is not None and within._deadline is not None:  # looked at every 1,024 nodes
        s._deadline, s._check_at = within._deadline, min(s._check_at, 1023)
    lo, hi = view.bounds
    try:
        v = s._search(view.root, s.num(lo) - 1, s.num(hi) + 1)
    except BudgetExceeded:
        _count(within, {f: getattr(s, f) for f in KIND_COUNTERS})
        within._over_budget()  # the node budget's own message
        raise
    counts = {f: getattr(s, f) for f in KIND_COUNTERS}
    _count(within, counts)
    if within is not None:
        _count_levels(within, s)
    return v, counts


def _count(within: Any, counts: dict[str, int]) -> None:
    """Add a shallow search's counters to the search that ran it."""
    if within is None:
        return
    for f, c in counts.items():
        setattr(within, f, getattr(within, f) + c)
    within.shallow_nodes += counts["nodes"]


def _count_levels(within: Any, s: Any) -> None:
    """Add a shallow search's nodes and leaves per level to ``within``'s, at their levels in
    ``within``'s tree (the shallow root is one level below ``within.level``)."""
    top = within.level + 1
    got = s.by_level()
    if top + len(got.nodes) > within._room:
        within._grow(top + len(got.nodes))
    for j, (n, leaves) in enumerate(zip(got.nodes, got.leaves, strict=True)):
        within.lv_nodes[top + j] += n
        within.lv_leaves[top + j] += leaves


class ChanceProbCut(Star2):
    name = "chanceprobcut"

    def __init__(self, tree: Any, *, r: int, t: float, cal: Any = None, **kw: Any):
        """``cal``: a ``starbench.search.calibration.Calibration`` (or its digest, looked up); not
        needed with ``t = inf``."""
        super().__init__(tree, **kw)
        self.r = int(r)
        self.t = float(t)
        self.calibration = None
        #: the estimated bounds of the chance node being entered, for ``_initial_bounds``
        self._estimates: tuple[list[Any], list[Any]] | None = None
        self.cuts_on = math.isfinite(self.t)
        if self.cuts_on:
            from starbench.search.calibration import resolve

            if not (
                callable(getattr(tree, "shallow", None)) and getattr(tree, "static_values", False)
            ):
                raise InputError(
                    f"chanceprobcut: {getattr(tree, 'source', 'this tree')} has no static "
                    f"values at interior nodes for its shallow searches (random trees need "
                    f"tree.value_model=incremental, games a heuristic; JSON trees have none); "
                    f"t=inf runs Star2"
                )
            self.calibration = resolve(cal, tree, self.r)
            self._fits = self.calibration.lines

    @property
    def params(self) -> dict[str, Any]:
        cal = None if self.calibration is None else self.calibration.digest
        return {**super().params, "r": self.r, "t": self.t, "cal": cal}

    def _chance(self, node: Any, alpha: Any, beta: Any) -> Any:
        if not self.cuts_on:
            return super()._chance(node, alpha, beta)
        tree = self.tree
        depth = tree.plies_below(node)
        if depth < self.r or not (alpha > self.L or beta < self.U):
            # searched exactly: too shallow, or the full window (no cut is possible)
            return super()._chance(node, alpha, beta)
        fit = self._fits.get(depth)
        if fit is None:  # a game's chance root, deeper than the calibration's depths
            raise InputError(
                f"chanceprobcut: cal={self.calibration.digest} has no line for chance nodes with "
                f"{depth} plies below (it covers {sorted(self._fits)}): calibrate deeper"
            )
        a, b, s = fit
        kids = tree.children(node)
        probs = self._probs(node)
        n = len(kids)
        L, U = self.L, self.U
        num = self.num
        lo, hi = [L] * n, [U] * n
        sum_lo = sum_hi = num(0)
        for p in probs:
            sum_lo += p * L
            sum_hi += p * U
        margin = num(self.t * s)
        for i in range(n):
            v = self._shallow(kids[i], depth - self.r)
            m = num(a) * v + num(b)
            new_lo = m - margin if m - margin > L else L
            new_hi = m + margin if m + margin < U else U
            if new_lo > U:
                new_lo = U
            if new_hi < L:
                new_hi = L
            p = probs[i]
            sum_lo += p * (new_lo - lo[i])
            sum_hi += p * (new_hi - hi[i])
            lo[i], hi[i] = new_lo, new_hi
            if sum_hi <= alpha:
                self._cut_chance()
                return sum_hi
            if sum_lo >= beta:
                self._cut_chance()
                return sum_lo
        self._estimates = (lo, hi)
        return super()._chance(node, alpha, beta)

    def _initial_bounds(self, kids: Any) -> tuple[list[Any], list[Any]]:
        est = self._estimates
        if est is None:
            return super()._initial_bounds(kids)
        self._estimates = None
        return est

    def _shallow(self, child: Any, plies: int) -> Any:
        """The child's shallow value (``shallow_value``); its counters added to this search's
        and to ``shallow_nodes``, within this search's budgets."""
        v, _ = shallow_value(self.tree.shallow(child, plies), self.arith.exact, within=self)
        return self.num(v)
