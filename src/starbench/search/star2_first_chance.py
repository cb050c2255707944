"""Star2 probing at the first chance level only, Star1 below: a reading of Ballard's Star2.

Star2 (``star2``) runs a probing phase at every chance node whose window is open, however deep.
This variant reads Ballard's probing as applied at the first chance level of the tree only: a
chance node with no chance node above it on its path probes as Star2 does (k = 1, cyclic, the
probed successors resumed), and every chance node below one is searched as Star1 searches it
(``star1``: no probing phase, each outcome with the window its bounds L and U allow).  The value
is exact (Star1 and Star2 both are); only the work differs.  On 3- and 4-level trees (MAX,
chance, MIN, leaves, with a chance level above the leaves at 4) there is one chance level with
decision successors and the search is Star2's, node for node.

B. W. Ballard, "The *-minimax search procedure for trees containing chance nodes", Artificial
Intelligence 21(3):327-350, 1983.
"""

from __future__ import annotations

from typing import Any

from starbench.search.star1 import Star1
from starbench.search.star2 import Star2


class Star2FirstChance(Star2):
    name = "star2-first-chance"

    def __init__(self, tree: Any, **kw: Any):
        super().__init__(tree, **kw)
        self._chance_above = 0  # chance nodes on the path above the node being searched

    def _chance(self, node: Any, alpha: Any, beta: Any) -> Any:
        if self._chance_above:  # below the first chance level: Star1
            self._chance_above += 1
            v = Star1._chance(self, node, alpha, beta)
            self._chance_above -= 1
            return v
        self._chance_above = 1
        v = super()._chance(node, alpha, beta)
        self._chance_above = 0
        return v
