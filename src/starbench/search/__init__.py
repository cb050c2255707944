"""Search algorithms over the tree protocol: one module per algorithm, a registry, one entry.

``reference_search`` is the Python reference engine's entry.  The package is callable:
``starbench.search(tree, name, engine=..., **params)`` is ``starbench.engines.search`` (either
engine, ``auto`` by default), so the public function and the subpackage are one name (``import
starbench.search.registry`` works); the package ``starbench`` makes it callable (this floor does
not import the engines above it).
"""

from __future__ import annotations

from typing import Any

from starbench.search.registry import ALGORITHMS, AlgorithmInfo, get_algorithm, parse_spec
from starbench.search.stats import STAT_FIELDS, SearchResult, SearchStats
from starbench.trees.protocol import Tree


def reference_search(
    tree: Tree,
    algorithm: str = "expectimax",
    *,
    exact: bool = False,
    debug: bool = False,
    node_budget: int | None = None,
    time_budget: float | None = None,
    **params: Any,
) -> SearchResult:
    """Search ``tree`` with the named algorithm on the Python reference engine and return its
    result.

    ``params`` are the algorithm's own parameters (``k``, ``after_probe``); ``exact`` runs in
    fractions; ``debug`` checks every windowed result against a full-window search.
    """
    info = get_algorithm(algorithm)
    return info.make(
        tree, params, exact=exact, debug=debug, node_budget=node_budget, time_budget=time_budget
    ).run()


def search_window(
    tree: Tree, algorithm: str, alpha: Any, beta: Any, *, exact: bool = False, **params: Any
) -> tuple[Any, SearchStats]:
    """Search ``tree``'s root with the window (``alpha``, ``beta``): the fail-soft value and
    the counters of that search (``Search.run_window``)."""
    s = get_algorithm(algorithm).make(
        tree, params, exact=exact, debug=False, node_budget=None, time_budget=None
    )
    v = s.run_window(alpha, beta)
    return v, s.stats()


__all__ = [
    "ALGORITHMS",
    "STAT_FIELDS",
    "AlgorithmInfo",
    "SearchResult",
    "SearchStats",
    "get_algorithm",
    "parse_spec",
    "reference_search",
    "search_window",
]
