"""Iterative deepening: search depth 1, 2, ..., D with one transposition table.

Each iteration is a full search of the same root to one more decision ply (a game's horizon;
random trees have no evaluation above their leaves, so they have no iterations).  With a table
(``tt > 0``) the entries of earlier iterations stay: their best moves are searched first (the
table's move-ordering hint, read at any depth), and an entry answers a node only at its own
depth (``starbench.search.transposition``), so every iteration's value is exactly that depth's
expectimax value.  Node and time budgets apply to the whole search: an iteration that exceeds
what is left stops the search, and ``depth_completed`` is the deepest depth whose iteration
finished (Hauk et al.'s measure: the depth reached under a budget).

The result (``Deepening``) holds the deepest finished iteration's ``SearchResult`` (value, best
move), the statistics summed over every iteration (the unfinished one included: that work was
spent), and one ``Iteration`` per depth tried.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starbench.errors import BudgetExceeded
from starbench.search.stats import LevelCounts, SearchResult, SearchStats
from starbench.search.transposition import TranspositionTable


@dataclass(frozen=True)
class Iteration:
    """One depth of an iterative-deepening search (``completed``: it finished)."""

    depth: int
    completed: bool
    nodes: int
    leaves: int
    cpu_seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "depth": self.depth,
            "completed": self.completed,
            "nodes": self.nodes,
            "leaves": self.leaves,
            "cpu_seconds": round(self.cpu_seconds, 6),
        }


@dataclass(frozen=True)
class Deepening:
    result: SearchResult | None  # the deepest finished iteration's (None if depth 1 did not)
    depth_completed: int
    stats: SearchStats  # summed over every iteration tried
    iterations: tuple[Iteration, ...]
    seconds: float
    cpu_seconds: float
    #: the counters per level summed over every iteration tried (an iteration's levels are
    #: the same levels of the same root's tree, searched to its own depth)
    by_level: LevelCounts = LevelCounts()


def deepen(
    tree_at: Callable[[int], Any],
    make: Callable[..., Any],
    depth: int,
    *,
    tt: int = 0,
    node_budget: int | None = None,
    time_budget: float | None = None,
) -> Deepening:
    """Search ``tree_at(1)``, ``tree_at(2)``, ... ``tree_at(depth)`` in turn.

    ``make(tree, table=..., node_budget=..., time_budget=...)`` builds one iteration's search
    (the algorithm with its parameters and options); ``tt`` is the table's size (0: none)."""
    table = TranspositionTable(tt) if tt else None
    t0, c0 = time.perf_counter(), time.process_time()
    total = SearchStats()
    levels = LevelCounts()
    done: SearchResult | None = None
    completed = 0
    iterations: list[Iteration] = []
    for d in range(1, depth + 1):
        nodes_left = None if node_budget is None else node_budget - total.nodes
        time_left = None if time_budget is None else time_budget - (time.perf_counter() - t0)
        if (nodes_left is not None and nodes_left <= 0) or (
            time_left is not None and time_left <= 0
        ):
            break
        search = make(tree_at(d), table=table, node_budget=nodes_left, time_budget=time_left)
        c = time.process_time()
        try:
            result = search.run()
        except BudgetExceeded:
            st = search.stats()
            total = total + st
            levels = levels + search.by_level()
            iterations.append(Iteration(d, False, st.nodes, st.leaves, time.process_time() - c))
            break
        total = total + result.stats
        levels = levels + search.by_level()
        iterations.append(
            Iteration(d, True, result.stats.nodes, result.stats.leaves, result.cpu_seconds)
        )
        done, completed = result, d
    return Deepening(
        done,
        completed,
        total,
        tuple(iterations),
        time.perf_counter() - t0,
        time.process_time() - c0,
        levels,
    )
