"""Star2 and Star2.5: Star1 with a probing phase at chance nodes (probing factor k).

Probing phase, at a chance node with window (alpha, beta), for every successor that is a MAX or
MIN node (leaf and chance successors are not probed: they keep L and U until the search phase).
A MAX successor i keeps a running lower bound lo_i (initially L); probing it searches its next
move with alpha-beta, with the window

    (lo_i, min(beta_i, U)),   beta_i = (beta - sum_{j != i} p_j lo_j) / p_i,

i.e. its running bound as one edge and the chance-level fail-high threshold, clamped to [L, U],
as the other; the successor's running maximum becomes lo_i (a probe that fails low leaves lo_i
unchanged: it is only an upper bound of that move).  A MIN successor mirrors this with an upper
bound hi_i, window (max(alpha_i, L), hi_i), alpha_i = (alpha - sum_{j != i} p_j hi_j) / p_i.
After every probe the node tests the cut-offs with the bounds so far:
sum_j p_j lo_j >= beta (fail high, returns that lower bound) or sum_j p_j hi_j <= alpha (fail low).

* ``star2`` (Ballard's Star2, k = 1): one probe, the first move, of every successor.
* ``star2.5-cyclic``: k rounds; round r probes move r of every successor still open, testing
  after every probe.
* ``star2.5-sequential``: each successor in turn is probed on up to k moves (one alpha-beta run
  that stops early once the successor's own bound decides the cut-off), then the cut-off is tested.

A successor stops being probed when its moves run out or its window is empty (its bound reached
U, resp. L).  A threshold that float rounding pushes past the far bound (an empty window, never
in exact arithmetic) is replaced by that bound, so every probe is searched with a non-empty
window.  k = 0 is Star1; k = 1 is Star2 in both variants (tests check the node counts).

Search phase: Star1 (see ``star1``) with lo_j, hi_j from probing in place of L, U.  With
``after_probe=resume`` (default) each probed successor continues after its probed moves with its
probe result as the running bound, so no leaf is evaluated twice; ``after_probe=research``
searches it again from its first move (Hauk's variant).  Either way the successor is entered again
and counted in ``resumed``.

``probe_full_window=false`` (half of the counting convention C2 of the ballard1983 study; the
other half is ``after_probe=research``): no probing phase at a chance node searched with the
full window (alpha <= L and beta >= U), where no probe can prove a cut-off that is not the exact
value; Ballard's root's first chance node, searched with alpha = -inf, is one.  The default
(``true``) probes wherever the window overlaps [L, U].

**The table in the probe phase** (``tt_probe=true``, with ``tt_chance=true`` and a table; Veness
and Blair's use of the table at chance nodes, applied to the probe phase).  The outcomes' bounds
lo_i, hi_i start from the entries the table holds for them (``tt_chance``), and then

* before any probe, the chance node's cut-off is tested with those bounds, exactly as the search
  phase tests it before its first outcome (sum_j p_j hi_j <= alpha or sum_j p_j lo_j >= beta):
  a cut-off there counts one ``chance_cutoffs``, and no probe phase is run (``probes`` and
  ``probe_cutoffs`` unchanged);
* a successor whose entry is exact (lo_i = hi_i) is not probed, and in the search phase its
  stored value is its result: the node is entered and counted once in ``nodes`` (and its kind)
  with one ``tt_cutoffs``, as a node the table answers always is, without another lookup
  (``tt_probes`` and ``tt_hits`` counted its one lookup when its bounds were read);
* a probed successor starts its probe from its stored bound: a MAX successor's probe window is
  (lo_i, min(beta_i, U)) instead of (L, min(beta_i, U)), a MIN successor's
  (max(alpha_i, L), hi_i) instead of (max(alpha_i, L), U).  Since lo_i <= v_i is proven, a move
  that fails low against lo_i is an upper bound no higher than the successor's value, so the
  running maximum stays a valid fail-soft result when the search phase resumes it.

Without ``tt_probe`` (the default) the probe phase ignores the table's bounds as before: it probes
every MAX and MIN successor from L (or U), and tests the cut-off only after its first probe.
Values are unchanged either way; only the work differs.

Ballard defined Star2 on regular trees (all successors of a chance node decision nodes of one
kind); this per-successor form is identical there and correct on every tree.

B. W. Ballard, "The *-minimax search procedure for trees containing chance nodes", Artificial
Intelligence 21(3):327-350, 1983.  T. Hauk, "Search in Trees with Chance Nodes", MSc thesis,
University of Alberta, 2004.  C. Heyden, "Implementing a computer player for Carcassonne", MSc
thesis, Maastricht University, 2009.  J. Veness, A. Blair, "Effective Use of Transposition Tables
in Stochastic Game Tree Search", IEEE Symposium on Computational Intelligence and Games, 2007.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from starbench.search.star1 import ChanceNode, Star1
from starbench.trees.protocol import Kind

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN = Kind.MAX, Kind.MIN

PROBING_MODES = ("cyclic", "sequential")
AFTER_PROBE = ("resume", "research")


class Stored:
    """An outcome whose exact value the table holds (``tt_probe``): not probed, not searched."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


class Star2(Star1):
    name = "star2"

    def __init__(
        self,
        tree: Any,
        *,
        k: int,
        probing: str,
        after_probe: str,
        probe_full_window: bool = True,
        tt_probe: bool = False,
        **kw: Any,
    ):
        """``k``, ``probing``, ``after_probe`` and ``probe_full_window`` come resolved and
        checked from the registry (``starbench.search.registry``: the one place of their
        defaults and checks)."""
        super().__init__(tree, **kw)
        self.k = k
        self.probing_mode = probing
        self.after_probe = after_probe
        self.probe_full_window = probe_full_window
        self.tt_probe = tt_probe and self.table is not None and self.tt_chance

    @property
    def params(self) -> dict[str, Any]:
        return {
            **super().params,
            "k": self.k,
            "probing": self.probing_mode,
            "after_probe": self.after_probe,
            "probe_full_window": self.probe_full_window,
            "tt_probe": self.tt_probe,
        }

    # ------------------------------------------------------------------ chance nodes
    def _chance(self, node: Any, alpha: Any, beta: Any) -> Any:
        if self.k == 0:
            return super()._chance(node, alpha, beta)
        tree = self.tree
        kids = tree.children(node)
        probs = self._probs(node)
        n = len(kids)
        L, U = self.L, self.U
        lo, hi = self._initial_bounds(kids)
        c = ChanceNode(kids, probs, alpha, beta, lo, hi, [None] * n)
        states = c.states
        targets = [i for i in range(n) if tree.kind(kids[i]) in (MAX, MIN)]
        if self.tt_probe:  # the table's bounds first (see the module docstring)
            for i in range(n):
                if lo[i] == hi[i]:
                    states[i] = Stored(lo[i])
            targets = [i for i in targets if states[i] is None]
            if self._bounds_decide(c):
                targets = []  # the search phase's first test returns the proven bound
        if targets and alpha < U and beta > L and (self.probe_full_window or alpha > L or beta < U):
            self.probes += 1
            self.lv_probes[self.level] += 1
            self.probing += 1
            try:
                cut = self._probe_phase(c, targets)
            finally:
                self.probing -= 1
            if cut is not None:
                self.probe_cutoffs += 1
                self._cut_chance()
                return cut
        return self._search_phase(c)

    def _bounds_decide(self, c: ChanceNode) -> bool:
        """Do the outcomes' bounds alone decide the cut-off (``Star1._search_phase``'s first test,
        with its sums in its order)?"""
        tail_lo = tail_hi = self.num(0)
        probs, lo, hi = c.probs, c.lo, c.hi
        for j in range(len(probs)):
            tail_lo += probs[j] * lo[j]
            tail_hi += probs[j] * hi[j]
        return tail_hi <= c.alpha or tail_lo >= c.beta

    def _probe(self, c: ChanceNode, i: int, stop: int) -> None:
        """Enter successor i and probe its moves up to ``stop`` (exclusive); update its bound."""
        node = c.kids[i]
        lo, hi, sums = c.lo, c.hi, c.sums
        lv = self._down()  # the successor's level, while it is probed
        kind = self._enter(node)
        st = c.states[i]
        if st is None:
            if self.table is not None:  # the table's best move first (a hint, not a probe)
                self._hint = self.table.move(self.tree.transposition(node)[0])
            st = c.states[i] = self._state(node, kind)
        p = c.probs[i]
        L, U = self.L, self.U
        if st.is_max:
            beta_i = (c.beta - (sums[0] - p * lo[i])) / p
            b = beta_i if beta_i < U else U
            a = lo[i] if self.tt_probe else L  # from the stored bound (tt_probe)
            self._run_moves(st, a, b if b > a else U, min(stop, len(st.children)))
            if st.best > lo[i]:
                sums[0] += p * (st.best - lo[i])
                lo[i] = st.best
            if self.debug:
                self.check_bound(node, self.arith.neg_inf, lo[i], lo[i])
        else:
            alpha_i = (c.alpha - (sums[1] - p * hi[i])) / p
            a = alpha_i if alpha_i > L else L
            b = hi[i] if self.tt_probe else U  # from the stored bound (tt_probe)
            self._run_moves(st, a if a < b else L, b, min(stop, len(st.children)))
            if st.best < hi[i]:
                sums[1] += p * (st.best - hi[i])
                hi[i] = st.best
            if self.debug:
                self.check_bound(node, hi[i], self.arith.pos_inf, hi[i])
        self.level = lv - 1

    @staticmethod
    def _decided(c: ChanceNode) -> Any:
        """The proven bound if the chance node's cut-off is decided, else None."""
        if c.sums[0] >= c.beta:
            return c.sums[0]
        if c.sums[1] <= c.alpha:
            return c.sums[1]
        return None

    def _initial_sums(self, c: ChanceNode) -> None:
        sum_lo, sum_hi = self.num(0), self.num(0)
        for p, a, b in zip(c.probs, c.lo, c.hi, strict=True):
            sum_lo += p * a
            sum_hi += p * b
        c.sums = [sum_lo, sum_hi]

    def _open(self, c: ChanceNode, i: int) -> bool:
        """Can successor i still be probed (moves left and a non-empty window)?"""
        st = c.states[i]
        if st is None:
            return True
        if st.next >= len(st.children):
            return False
        return c.lo[i] < self.U if st.is_max else c.hi[i] > self.L

    def _probe_phase(self, c: ChanceNode, targets: list[int]) -> Any:
        """Probe in the variant's order, testing the cut-off after every probe; the proven
        bound, or None when the probe phase decides nothing."""
        self._initial_sums(c)
        for i, stop in self._probe_order(c, targets):
            self._probe(c, i, stop)
            cut = self._decided(c)
            if cut is not None:
                return cut
        return None

    def _probe_order(self, c: ChanceNode, targets: list[int]) -> Iterator[tuple[int, int]]:
        """(successor, probe up to move) pairs, computed lazily so each sees earlier probes.

        Sequential: each successor once, up to k moves.  Cyclic: k rounds of one more move per
        successor still open; a round in which no successor is open ends the phase."""
        if self.probing_mode == "sequential":
            for i in targets:
                yield i, self.k
            return
        for _ in range(self.k):
            progressed = False
            for i in targets:
                if self._open(c, i):
                    progressed = True
                    st = c.states[i]
                    yield i, (0 if st is None else st.next) + 1
            if not progressed:
                return

    # ------------------------------------------------------------------ search phase
    def _outcome(self, c: ChanceNode, i: int, a: Any, b: Any) -> Any:
        node = c.kids[i]
        st = None if c.states is None else c.states[i]
        if st is None:
            return self._child(node, a, b)
        if type(st) is Stored:  # the table's exact value (tt_probe): entered, counted, answered
            lv = self._down()
            self._enter(node)
            self.level = lv - 1
            self.tt_cutoffs += 1
            return st.value
        self.resumed += 1
        if self.after_probe == "research":
            return self._child(node, a, b)
        lv = self._down()  # the successor's level, while it is resumed
        if self.table is not None:  # the table may answer it (a transposition searched since)
            key, depth = self.tree.transposition(node)
            answer = self._tt_answer(node, key, depth, a, b)
            if answer is not None:
                self.level = lv - 1
                return answer
        self._enter(node)
        self._run_moves(st, a, b, len(st.children))
        self.level = lv - 1
        if self.debug:
            self.check_bound(node, a, b, st.best)
        if self.table is not None:
            key, depth = self.tree.transposition(node)
            self._store(key, depth, a, b, st.best, st.move(st.best_move))
            if self.debug:
                self.check_entry(node, key, depth, a, b, st.best)
        return st.best
