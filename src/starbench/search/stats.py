"""Search statistics and results: one definition of every counter, used by every algorithm.

Counters (the compiled engine counts identically; tests compare them counter for counter):

* ``nodes``: nodes entered: every call into a node, root and leaves included; a node entered again
  (a probed successor resumed or re-searched, a successor probed again in a later cyclic round)
  counts again.  ``max_nodes``, ``min_nodes``, ``chance_nodes``, ``leaves`` split it by kind, so
  ``nodes == max_nodes + min_nodes + chance_nodes + leaves``.
* ``leaves``: leaf evaluations (a leaf is evaluated exactly when it is entered).
* ``probe_nodes``, ``probe_leaves``: the part of ``nodes`` and ``leaves`` entered while a probing
  phase (Star2, Star2.5) is under way anywhere above.
* ``chance_cutoffs``: chance nodes that returned a bound with outcomes left unsearched (all
  phases); ``probe_cutoffs``: those proven during that node's own probing phase.
* ``decision_cutoffs``: times a decision node declined to search a move it would otherwise have
  searched, because its running value reached its window edge (>= beta at MAX, <= alpha at MIN).
* ``probes``: probe phases run (Star2, Star2.5): chance nodes where probing started, i.e. some
  successor is a decision node and the window is open (``alpha < U`` and ``beta > L``).  A probe
  phase *succeeds* when it proves the chance node's cut-off by itself, so the probe success rate
  is ``probe_cutoffs / probes`` (Hauk et al.'s "probes succeed" figure counts the same event).
* ``tt_probes``, ``tt_hits``, ``tt_cutoffs`` (a transposition table, ``tt > 0``; 0 without):
  lookups of a node's entry (every inner node entered through the search, and with
  ``tt_chance`` every inner outcome of a chance node before its bounds are set), lookups that
  found an entry of the node's key and depth, and hits that answered the node without a search.
  A node answered by the table is entered: it counts once in ``nodes`` and its kind's counter,
  its subtree does not count.  Leaves are never looked up, so ``leaves`` stays the number of
  evaluations.  Best-move lookups for move ordering are not probes.
* ``resumed``: probed successors resumed (``after_probe=resume``) or re-searched
  (``after_probe=research``) in a search phase.
* ``shallow_nodes``: the part of ``nodes`` entered by ChanceProbCut's shallow searches (their
  nodes count in ``nodes``, ``leaves`` and the kinds' counters too); 0 for every other algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class SearchStats:
    nodes: int = 0
    leaves: int = 0
    max_nodes: int = 0
    min_nodes: int = 0
    chance_nodes: int = 0
    probe_nodes: int = 0
    probe_leaves: int = 0
    chance_cutoffs: int = 0
    probe_cutoffs: int = 0
    decision_cutoffs: int = 0
    resumed: int = 0
    probes: int = 0
    tt_probes: int = 0
    tt_hits: int = 0
    tt_cutoffs: int = 0
    shallow_nodes: int = 0

    @classmethod
    def of(cls, counts: Any) -> SearchStats:
        """The statistics from their counts in ``STAT_FIELDS`` order (the kernel's ``stats``
        array as a list), without the generated ``__init__``'s per-field frozen assignment."""
        stats = object.__new__(cls)
        stats.__dict__.update(zip(STAT_FIELDS, counts, strict=True))
        return stats

    def __add__(self, other: SearchStats) -> SearchStats:
        return SearchStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


STAT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(SearchStats))


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    ``best_move`` is the 0-based index of the first best child of a decision root (None for a
    leaf or chance root).  ``tied_moves`` is the set of all tied best moves, from the exhaustive
    algorithms only (pruning cannot tell a tie from a worse move); None otherwise.
    ``root_values``: the exhaustive algorithms' value of every root move at a decision root (the
    oracle of a random tree's decision quality, ``starbench.oracles.decisions``); None otherwise.
    """

    algorithm: str
    params: dict[str, Any]
    value: Any
    best_move: int | None
    tied_moves: tuple[int, ...] | None
    stats: SearchStats
    exact: bool
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    root_values: tuple[Any, ...] | None = None
