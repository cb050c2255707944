"""Test-only plugin: three deliberately wrong algorithms, the bugs the field keeps making
(``starbench shrink`` must reduce each one's disagreement to a tree of at most 10 nodes)."""

from starbench import register_algorithm
from starbench.search.expectimax import Expectimax
from starbench.search.star1 import Star1
from starbench.search.star2 import Star2


class SkipLastOutcome(Expectimax):
    """Expectimax that leaves out the last outcome of every chance node."""

    def _probs(self, node):
        probs = list(super()._probs(node))
        if len(probs) > 1:
            probs[-1] = self.num(0)
        return probs


class OffByOneWindow(Star1):
    """Star1 that searches each outcome with its lower window edge one unit too high."""

    def _outcome(self, i, node, a, b, states):
        return super()._outcome(i, node, a + 1 if a + 1 < b else a, b, states)


class WrongProbeBound(Star2):
    """Star2 that stores a probe's bound in the wrong place: the upper bound a probe proves on
    a MIN successor becomes its lower bound, and its upper bound the old lower bound."""

    def _probe(self, i, kids, probs, alpha, beta, lo, hi, states, sums, stop):
        super()._probe(i, kids, probs, alpha, beta, lo, hi, states, sums, stop)
        if not states[i].is_max and hi[i] > lo[i]:
            old = lo[i]
            sums[0] += probs[i] * (hi[i] - old)
            sums[1] += probs[i] * (old - hi[i])
            lo[i], hi[i] = hi[i], old


register_algorithm("skip-last-outcome", SkipLastOutcome, doc="test-only: wrong on purpose")
register_algorithm("star1-off-by-one", OffByOneWindow, doc="test-only: wrong on purpose")
register_algorithm(
    "star2-wrong-probe",
    WrongProbeBound,
    fixed={"k": 1, "probing": "cyclic", "after_probe": "resume"},
    doc="test-only: wrong on purpose",
)
