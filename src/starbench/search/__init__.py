"""Search algorithms over the tree protocol: one module per algorithm, a registry, one entry.

The package is callable: ``starbench.search(tree, name, engine=..., **params)`` is
``starbench.engines.search`` (either engine, ``auto`` by default), so the public function and the
subpackage are one name (``import starbench.search.registry`` works); ``search`` in this package
is the Python reference engine's entry.
"""

from __future__ import annotations

import sys
import types
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
    "search",
    "search_window",
]


class _CallablePackage(types.ModuleType):
    """This package, callable as the public ``starbench.search``."""

    def __call__(self, tree: Any, algorithm: str = "expectimax", **kw: Any) -> SearchResult:
        from starbench.engines import search as run

        return run(tree, algorithm, **kw)


sys.modules[__name__].__class__ = _CallablePackage
