"""Star2 with recursive probes: a reading of Ballard's deeper-tree Star2 (inexact from 5 levels).

Star2 (``star2``) probes successor i of a chance node by *searching* its first move with the
window the chance-level threshold allows.  This variant reads Ballard's probing as applied
recursively below the first chance level: the probe of a successor's first move m is itself a
probe, the first-move value of m's subtree,

    probe(leaf)     = its value,
    probe(MAX/MIN)  = probe(its first move),
    probe(chance)   = sum_j p_j probe(outcome j)   (a chance node has no one-move probe),

so below a probed move every decision node follows its first move and every chance node takes
all its outcomes.  The probe value w_i is then used as Star2 uses a probe result: a MAX
successor's bound lo_i = max(lo_i, w_i), a MIN successor's hi_i = min(hi_i, w_i), the cut-off
tested after every probe, and in the search phase the probed successor resumes after its first
move with w_i as that move's value (Ballard's resume, no leaf evaluated twice).

Exactness.  On 3-level trees (MAX, chance, MIN, leaves) the probed move is a leaf and this is
Star2, node for node; on 4-level trees (a chance level below MIN) probe(m) is m's exact value and
the search is exact.  From 5 levels on, a decision node below the probed move is valued by its
first move only, so w_i is not a bound on the successor (at a MIN successor it is an
expectation of MAX nodes' first moves, below their values): cut-offs may be wrong and the value
with them.  The variant is registered as inexact; its rows carry ``value_error`` against
expectimax (status ``approx``), so the reading is judged by its work and its error together.
Regular trees with k = 1 only (one probe per successor, cyclic), after_probe=resume, no
transposition table.

B. W. Ballard, "The *-minimax search procedure for trees containing chance nodes", Artificial
Intelligence 21(3):327-350, 1983 (section on deeper trees).
"""

from __future__ import annotations

from typing import Any

from starbench.search.star1 import ChanceNode
from starbench.search.star2 import Star2
from starbench.trees.protocol import Kind

CHANCE, LEAF = Kind.CHANCE, Kind.LEAF


class Star2RecursiveProbe(Star2):
    name = "star2-recursive-probe"

    def _probe(self, c: ChanceNode, i: int, stop: int) -> None:
        """Enter successor i and probe its first move recursively (``first_move_value``); its
        value becomes the successor's running value and bound."""
        node = c.kids[i]
        lo, hi, sums = c.lo, c.hi, c.sums
        lv = self._down()  # the successor's level
        kind = self._enter(node)
        st = c.states[i]
        if st is None:
            st = c.states[i] = self._state(node, kind)
        if st.next == 0 and st.children:
            self._down()  # its first move's level
            w = self.first_move_value(st.children[0])
            self.level = lv
            st.best, st.best_move, st.next = w, 0, 1
            p = c.probs[i]
            if st.is_max and w > lo[i]:
                sums[0] += p * (w - lo[i])
                lo[i] = w
            elif not st.is_max and w < hi[i]:
                sums[1] += p * (w - hi[i])
                hi[i] = w
        self.level = lv - 1

    def first_move_value(self, node: Any) -> Any:
        """``probe`` of the module docstring: enter ``node`` (at ``level``) and follow first
        moves, all outcomes at chance nodes; every node entered is counted at its level."""
        kind = self._enter(node)
        if kind == LEAF:
            return self._leaf(node)
        kids = self.tree.children(node)
        lv = self._down()
        if kind == CHANCE:
            total = self.num(0)
            for p, child in zip(self._probs(node), kids, strict=True):
                total += p * self.first_move_value(child)
        else:
            total = self.first_move_value(kids[0])
        self.level = lv - 1
        return total
