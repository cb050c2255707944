"""Search algorithms over the tree protocol: one module per algorithm, a registry, one entry."""

from __future__ import annotations

from typing import Any

from starbench.search.registry import ALGORITHMS, AlgorithmInfo, get_algorithm, parse_spec
from starbench.search.stats import STAT_FIELDS, SearchResult, SearchStats
from starbench.trees.protocol import Tree


def search(
    tree: Tree,
    algorithm: str = "expectimax",
    *,
    exact: bool = False,
    debug: bool = False,
    node_budget: int | None = None,
    time_budget: float | None = None,
    **params: Any,
) -> SearchResult:
    """Search ``tree`` with the named algorithm and return its result.

    ``params`` are the algorithm's own parameters (``k``, ``after_probe``); ``exact`` runs in
    fractions; ``debug`` checks every windowed result against a full-window search.
    """
    info = get_algorithm(algorithm)
    return info.make(
        tree, params, exact=exact, debug=debug, node_budget=node_budget, time_budget=time_budget
    ).run()


__all__ = [
    "ALGORITHMS",
    "STAT_FIELDS",
    "AlgorithmInfo",
    "SearchResult",
    "SearchStats",
    "get_algorithm",
    "parse_spec",
    "search",
]
