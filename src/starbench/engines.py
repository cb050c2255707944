"""The engine seam: the one place that chooses an engine and runs a search on it.

Two engines count identically, node for node (``tests/test_compiled.py``):

* ``python``: the reference modules (``search/expectimax.py``, ``star1.py``, ``star2.py``, ...),
  every algorithm, tree type and option (exact fractions, debug checks, time budgets, plugins);
  on game trees, expectimax in floats runs fused with the game's state API
  (``games/expectimax.py``, chosen by the tree's ``search_class``, same counters);
* ``compiled``: the numba kernel (``compiled/kernel.py``) for the registered algorithms it
  implements, on generated trees and tree files, in floats, with node budgets.

``auto`` takes the compiled engine wherever it serves the request and the search is big enough
for loading (the first time: compiling) numba's kernel to pay: for ``solve``, trees over
``AUTO_SOLVE_NODES`` nodes; for ``run``, cells whose trees hold over ``AUTO_RUN_NODES`` nodes in
all (trees x nodes per tree, ``max_trees`` when the cell may grow).  It says why when it does
not.  ``run``, ``solve``, ``bench`` and the public ``starbench.search`` all choose through
``choose`` and run through ``search``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starbench.errors import InputError
from starbench.search.stats import SearchResult

ENGINES = ("auto", "compiled", "python")
#: ``solve --engine auto`` uses the compiled engine on trees of more nodes than this.
AUTO_SOLVE_NODES = 20_000
#: ``run`` with ``engine=auto`` uses the compiled engine on cells whose trees hold more nodes
#: than this in all (below it, the Python engine is done before numba's kernel has loaded).
AUTO_RUN_NODES = 20_000


@dataclass(frozen=True)
class Choice:
    """The engine that runs a search, and why (``requested``, ``auto``, or what the compiled
    engine does not serve)."""

    engine: str
    reason: str


def python_engine_notes(labelled: list[tuple[str, Choice]]) -> list[str]:
    """One line per reason the compiled engine was passed over (``auto``), naming every
    algorithm (by its label) it applies to."""
    by_reason: dict[str, list[str]] = {}
    for label, choice in labelled:
        if choice.engine == "python" and choice.reason.startswith("the compiled engine"):
            by_reason.setdefault(choice.reason, []).append(label)
    return [
        f"starbench: {names[0] + ' runs' if len(names) == 1 else ', '.join(names) + ' run'} "
        f"on the Python engine ({reason})"
        for reason, names in by_reason.items()
    ]


def choose(
    requested: str,
    name: str,
    *,
    exact: bool = False,
    debug: bool = False,
    time_budget: float | None = None,
    tree: Any = None,
    min_nodes: int = 0,
    key: str = "engine",
    params: dict[str, Any] | None = None,
    cell_nodes: int | None = None,
) -> Choice:
    """The engine for one search.  ``requested`` is ``auto``, ``compiled`` or ``python``;
    ``compiled`` on a request it cannot serve is an ``InputError`` naming ``key``; ``auto``
    uses the compiled engine where it serves the request and the tree has more than
    ``min_nodes`` nodes, and (``run``) the cell's trees hold more than ``AUTO_RUN_NODES``
    nodes in all (``cell_nodes``; None: not known)."""
    if requested not in ENGINES:
        raise InputError(f"{key}: must be one of {', '.join(ENGINES)}, got {requested!r}")
    if requested == "python":
        return Choice("python", "requested")
    from starbench.compiled.engine import unsupported  # what the kernel cannot serve

    why = unsupported(
        name, exact=exact, debug=debug, time_budget=time_budget, tree=tree, params=params
    )
    if requested == "compiled":
        if why is not None:
            flag = key.startswith("-")  # a command-line flag, or a config key
            said, sep = (key, " ") if flag else (f"{key}:", "=")
            raise InputError(
                f"{said} compiled cannot serve {why} ({name}); "
                f"use {key}{sep}auto or {key}{sep}python"
            )
        return Choice("compiled", "requested")
    size = getattr(tree, "size", None)
    if size is None and tree is not None and hasattr(tree, "spec"):
        size = tree.spec.size  # a generated tree: its spec knows the size
    if size is not None and size <= min_nodes:
        return Choice("python", f"a tree of at most {min_nodes} nodes")
    if why is not None:
        return Choice("python", f"the compiled engine does not serve {why}")
    if cell_nodes is not None and cell_nodes <= AUTO_RUN_NODES:
        return Choice("python", f"a cell of at most {AUTO_RUN_NODES} nodes")
    return Choice("compiled", "auto")


def compiled_tree(tree: Any) -> Any:
    """``tree`` in the compiled kernel's form (generated trees stay lazy where they can)."""
    from starbench.compiled.engine import CompiledTree
    from starbench.trees.explicit import ExplicitTree
    from starbench.trees.regular import RegularTree

    if isinstance(tree, CompiledTree):
        return tree
    if isinstance(tree, RegularTree):
        return CompiledTree.from_regular(tree.spec, tree.seed, tree.instance, tree.tree_seed)
    if isinstance(tree, ExplicitTree):
        return CompiledTree.from_explicit(tree)
    raise InputError(f"the compiled engine cannot search trees of type {type(tree).__name__}")


def search(
    tree: Any,
    algorithm: str = "expectimax",
    *,
    engine: str = "auto",
    exact: bool = False,
    debug: bool = False,
    node_budget: int | None = None,
    time_budget: float | None = None,
    **params: Any,
) -> SearchResult:
    """Search ``tree`` with the named algorithm on the chosen engine and return its result.

    ``params`` are the algorithm's own parameters (``k``, ``after_probe``, ...); ``exact``
    searches in fractions and ``debug`` checks every windowed result against a full-window
    search (both Python engine); ``engine``: ``auto`` (compiled wherever it serves the
    request), ``compiled`` or ``python``.  The counters are the same on both engines.
    """
    choice = choose(
        engine,
        algorithm,
        exact=exact,
        debug=debug,
        time_budget=time_budget,
        tree=tree,
        params=params,
    )
    if choice.engine == "compiled":
        from starbench.compiled.engine import run

        return run(compiled_tree(tree), algorithm, params, node_budget=node_budget)
    from starbench.search.registry import get_algorithm

    return (
        get_algorithm(algorithm)
        .make(
            tree,
            params,
            exact=exact,
            debug=debug,
            node_budget=node_budget,
            time_budget=time_budget,
        )
        .run()
    )
