"""Star2 counted with each probe as one evaluation at its level: a reading of Ballard's figures.

The search is Star2's (``star2``, k = 1, after_probe=resume), node for node, and its value is
exact.  Only the counting differs: Ballard's "leaves examined" read as counting a probe by the
level it probes.  A probe of successor i searches the successor's first move m; here that
search counts as *one* leaf at m's level (m's evaluation by the probe), and what it entered
below m (nodes, leaves, cut-offs, probe phases, resumed successors) is not counted.  So

    leaves = the leaves entered outside every probe  +  the moves probed,

and ``nodes``, the kinds' counters and the counters per level follow the same rule (the
probed move is a leaf at its level, ``nodes == max_nodes + min_nodes + chance_nodes + leaves``
holds).  A probe inside a probe is inside the outer probe's move and is not counted either; a
probe in the search phase (below a successor being searched) is counted by the same rule.  On
3-level trees (MAX, chance, MIN, leaves) a probed move is a leaf and the counts are Star2's;
on deeper trees they are lower by what the probes searched below their first moves.

B. W. Ballard, "The *-minimax search procedure for trees containing chance nodes", Artificial
Intelligence 21(3):327-350, 1983.
"""

from __future__ import annotations

from starbench.search.star1 import ChanceNode
from starbench.search.star2 import Star2
from starbench.search.stats import STAT_FIELDS

#: The counters a collapsed probe gives back (everything counted below the probed moves): every
#: counter but the transposition table's (this variant searches without one).
_UNDONE = tuple(f for f in STAT_FIELDS if not f.startswith("tt_"))


class Star2ProbeLevel(Star2):
    name = "star2-probe-level"

    def _probe(self, c: ChanceNode, i: int, stop: int) -> None:
        """Star2's probe; then, for an outermost probe, its moves' subtrees counted as one
        leaf each at the moves' level (the successor itself stays counted)."""
        if self.probing > 1:  # inside another probe's move: that probe's count covers it
            super()._probe(c, i, stop)
            return
        below = self.level + 2  # the probed moves' level (the successor is one level down)
        before = {f: getattr(self, f) for f in _UNDONE}
        lists = (self.lv_nodes, self.lv_leaves, self.lv_cuts, self.lv_probes)
        saved = [list(x) for x in lists]
        moves_before = 0 if c.states[i] is None else c.states[i].next
        super()._probe(c, i, stop)
        probed = c.states[i].next - moves_before
        kind_field = "max_nodes" if c.states[i].is_max else "min_nodes"
        for f, v in before.items():  # back to before, with the successor's own entry
            setattr(self, f, v)
        self.nodes += 1 + probed
        setattr(self, kind_field, getattr(self, kind_field) + 1)
        self.leaves += probed
        self.probe_nodes += 1 + probed
        self.probe_leaves += probed
        for x, old in zip(lists, saved, strict=True):
            x[: len(old)] = old
            for j in range(len(old), len(x)):
                x[j] = 0
        if below >= self._room:
            self._grow(below)
        self.lv_nodes[below - 1] += 1
        self.lv_nodes[below] += probed
        self.lv_leaves[below] += probed
