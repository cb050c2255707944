"""starbench: exact, reproducible benchmarks of *-minimax search in trees with chance nodes.

The public API::

    from starbench import RegularTree, RegularTreeSpec, load_tree, search
    tree = RegularTree(RegularTreeSpec(branching=10, chance_arity=10, depth=2), seed=0)
    result = search(tree, "star2.5-cyclic", k=3)  # engine="auto" | "compiled" | "python"

``starbench.search`` is both the search function and the subpackage of the algorithms
(``import starbench.search.registry`` works).
    result.value, result.best_move, result.stats.leaves

    df = starbench.load_results("results/default")  # a cell, a sweep or collected.parquet
"""

import sys
import types
from typing import Any

from starbench.ground.caches import use_numba_cache

use_numba_cache()  # before numba is first imported (starbench.ground.caches)

import starbench.search as search  # noqa: E402
from starbench.errors import InputError, StarbenchError  # noqa: E402
from starbench.results import load_results  # noqa: E402
from starbench.search import ALGORITHMS, SearchResult, SearchStats  # noqa: E402
from starbench.search.base import Search  # noqa: E402
from starbench.search.registry import Param, register_algorithm  # noqa: E402
from starbench.trees import (  # noqa: E402
    GENERATOR_VERSION,
    ExplicitTree,
    Kind,
    RegularTree,
    RegularTreeSpec,
    Tree,
    load_tree,
    loads_tree,
)


class _SearchPackage(types.ModuleType):
    """``starbench.search``, callable as the public search (``starbench.engines.search``):
    installed here, at the top, so the search floor never imports the engines above it."""

    def __call__(self, tree: Any, algorithm: str = "expectimax", **kw: Any) -> SearchResult:
        from starbench.engines import search as public_search  # numba only when first called

        return public_search(tree, algorithm, **kw)


sys.modules["starbench.search"].__class__ = _SearchPackage


def __getattr__(name: str) -> Any:
    """``__version__``, read from the installed metadata when first asked for
    (``starbench.ground.version``)."""
    if name == "__version__":
        from starbench.ground.version import version

        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALGORITHMS",
    "GENERATOR_VERSION",
    "ExplicitTree",
    "InputError",
    "Kind",
    "Param",
    "RegularTree",
    "RegularTreeSpec",
    "Search",
    "SearchResult",
    "SearchStats",
    "StarbenchError",
    "Tree",
    "__version__",
    "load_results",
    "load_tree",
    "loads_tree",
    "register_algorithm",
    "search",
]
