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

Counters per level (``LevelCounts``, a search result's ``by_level``).  A node's *level* is its
distance from the root in edges: the root is level 0 and chance levels count, as in the tables'
``levels`` column (a regular tree of ``levels`` L has levels 0 to L; a game's levels are its plies,
chance plies included).  Per level, indexed by level:

* ``nodes_by_level``: nodes entered at that level (sums to ``nodes``);
* ``leaves_by_level``: leaves evaluated there (sums to ``leaves``);
* ``cutoffs_by_level``: cut-offs, counted at the level of the node that stops searching its
  remaining children (sums to ``chance_cutoffs + decision_cutoffs``, the ``cutoffs`` total);
* ``probes_by_level``: probe phases, counted at the level of the chance node that probes (sums to
  ``probes``).

A ChanceProbCut shallow search's nodes and leaves count at their levels in the searched tree (its
root is the chance node's outcome); its own cut-offs and probes are not the search's, as in the
totals.  The lists run from level 0 to the deepest level the search entered (a level below that
with nothing entered is not listed), so an expectimax search of a regular tree of ``levels`` L
lists L + 1 levels, and both engines list the same levels.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def _counter(doc: str, lead: bool = False, summary: bool = False) -> Any:
    """A counter: 0 to start; its meaning (``doc``, the tables' docs) and where the tables put
    it (``lead``: among the leading columns; ``summary``: read back by the summary), read by
    ``record.columns``, which makes every counter a column."""
    return field(default=0, metadata={"doc": doc, "lead": lead, "summary": summary})


@dataclass(frozen=True)
class SearchStats:
    nodes: int = _counter(
        "every call into a node, root and leaves included (a node entered again counts again)",
        lead=True,
        summary=True,
    )
    leaves: int = _counter("leaf evaluations (horizon evaluations in games)", True, True)
    max_nodes: int = _counter("MAX nodes entered")
    min_nodes: int = _counter("MIN nodes entered")
    chance_nodes: int = _counter("chance nodes entered")
    probe_nodes: int = _counter("nodes entered by Star2/Star2.5's probe phases", lead=True)
    probe_leaves: int = _counter("leaves evaluated by probe phases", lead=True)
    chance_cutoffs: int = _counter("chance nodes cut off (probe phase or search phase)", True)
    probe_cutoffs: int = _counter("chance nodes cut off by the probe phase", lead=True)
    decision_cutoffs: int = _counter("MAX and MIN nodes cut off (alpha-beta cut-offs)", True)
    resumed: int = _counter(
        "probed successors resumed after the probe phase (`after_probe=resume`)", lead=True
    )
    probes: int = _counter("probe phases run (the probe success rate is `probe_cutoffs / probes`)")
    tt_probes: int = _counter("transposition-table lookups")
    tt_hits: int = _counter("lookups that found the node's entry")
    tt_cutoffs: int = _counter("lookups that answered the node")
    shallow_nodes: int = _counter("the part of `nodes` entered by ChanceProbCut's shallow searches")

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

#: The per-level lists' names (``solve --json``'s keys and the tables' columns), in
#: ``LevelCounts`` order.
LEVEL_FIELDS: tuple[str, ...] = (
    "nodes_by_level",
    "leaves_by_level",
    "cutoffs_by_level",
    "probes_by_level",
)
#: Each per-level list's total: a ``SearchStats`` field, or the sum of two (``cutoffs``).
LEVEL_TOTALS: dict[str, tuple[str, ...]] = {
    "nodes_by_level": ("nodes",),
    "leaves_by_level": ("leaves",),
    "cutoffs_by_level": ("chance_cutoffs", "decision_cutoffs"),
    "probes_by_level": ("probes",),
}


@dataclass(frozen=True)
class LevelCounts:
    """Nodes, leaves, cut-offs and probes per level (see the module docstring), each a tuple
    indexed by level, all of one length: level 0 to the deepest level entered."""

    nodes: tuple[int, ...] = ()
    leaves: tuple[int, ...] = ()
    cutoffs: tuple[int, ...] = ()
    probes: tuple[int, ...] = ()

    @classmethod
    def of(cls, rows: Any) -> LevelCounts:
        """From four sequences indexed by level (nodes, leaves, cut-offs, probes), of any one
        length: cut after the deepest level with a node entered."""
        rows = [[int(x) for x in r] for r in rows]
        nodes = rows[0]
        depth = len(nodes)
        while depth > 0 and nodes[depth - 1] == 0:
            depth -= 1
        return cls(*(tuple(r[:depth]) + (0,) * (depth - len(r[:depth])) for r in rows))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LevelCounts:
        """From the lists by their names (``LEVEL_FIELDS``)."""
        return cls.of([d[name] for name in LEVEL_FIELDS])

    def rows(self) -> tuple[tuple[int, ...], ...]:
        return (self.nodes, self.leaves, self.cutoffs, self.probes)

    def __add__(self, other: LevelCounts) -> LevelCounts:
        n = max(len(self.nodes), len(other.nodes))
        return LevelCounts.of(
            [
                [(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(n)]
                for a, b in zip(self.rows(), other.rows(), strict=True)
            ]
        )

    def as_dict(self) -> dict[str, list[int]]:
        return {name: list(r) for name, r in zip(LEVEL_FIELDS, self.rows(), strict=True)}

    def totals(self) -> dict[str, int]:
        """Each list's sum, by its name."""
        return {name: sum(r) for name, r in zip(LEVEL_FIELDS, self.rows(), strict=True)}

    def check(self, stats: SearchStats) -> None:
        """Raise AssertionError unless every list sums to its total in ``stats``."""
        for name, total in self.totals().items():
            want = sum(getattr(stats, f) for f in LEVEL_TOTALS[name])
            if total != want:
                raise AssertionError(f"{name} sums to {total}, its total is {want}")


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
    #: the counters per level (``LevelCounts``); None where a search does not count them
    by_level: LevelCounts | None = None

    @classmethod
    def of(cls, *values: Any) -> SearchResult:
        """The result from all its fields, in order, without the generated ``__init__``'s
        per-field frozen assignment (a compiled game search is short enough for it to show)."""
        result = object.__new__(cls)
        result.__dict__.update(zip(RESULT_FIELDS, values, strict=True))
        return result


#: ``SearchResult``'s fields, in order (``SearchResult.of``).
RESULT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(SearchResult))
