"""The recursive reference searches do not thrash CPython's frame-stack chunks.

Counted in page faults, not time: each chunk CPython maps faults in fresh pages, so a search
whose leaves sit just past a chunk boundary faults at every leaf visit (see
``starbench.search.pystack``).  Where the boundary falls depends on the caller's depth, so the
search is run from every caller depth over a whole 16 KB chunk.
"""

from __future__ import annotations

import contextlib
import resource

from starbench.errors import BudgetExceeded
from starbench.search import reference_search as search
from starbench.search.pystack import with_room
from starbench.trees.regular import RegularTree, RegularTreeSpec

SPEC = RegularTreeSpec(branching=3, chance_arity=3, depth=12)
BUDGET = 1000


def _faults_at(extra: int) -> int:
    if extra:
        return _faults_at(extra - 1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    with contextlib.suppress(BudgetExceeded):
        search(RegularTree(SPEC, seed=0, instance=0), "star2", node_budget=BUDGET)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_deep_search_does_not_map_a_chunk_per_node_at_any_caller_depth():
    faults = [_faults_at(extra) for extra in range(220)]
    worst = max(range(len(faults)), key=faults.__getitem__)
    assert faults[worst] < BUDGET // 4, (worst, faults[worst])


def test_with_room_returns_the_value():
    assert with_room(lambda: 42) == 42
