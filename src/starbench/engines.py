"""The engine seam: the one place that chooses an engine and runs a search on it.

Two engines count identically, node for node (``tests/test_compiled.py``):

* ``python``: the reference modules (``search/expectimax.py``, ``star1.py``, ``star2.py``, ...),
  every algorithm, tree type and option (exact fractions, debug checks, time budgets, plugins);
  on game trees, expectimax, Star1 and the Star2 family in floats run fused with the game's
  state API (``games/expectimax.py``, ``games/stars.py``, chosen by the tree's
  ``search_class``, same values and counters);
* ``compiled``: the numba kernel (``compiled/kernel.py``) for the registered algorithms it
  implements, on generated trees and tree files, in floats, with node budgets.

``auto`` takes the compiled engine wherever it serves the request and the search is big enough
for loading (the first time: compiling) numba's kernel to pay: for ``solve``, trees over
``AUTO_SOLVE_NODES`` nodes; for ``run``, cells whose trees hold over ``AUTO_RUN_NODES`` nodes in
all (trees x nodes per tree, ``max_trees`` when the cell may grow).  It says why when it does
not.  ``run``, ``solve``, ``bench`` and the public ``starbench.search`` all choose through
``choose`` and run through ``run`` (one resolved ``registry.AlgorithmSpec``, one ``Outcome``);
nothing outside ``starbench.compiled`` calls the kernel.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from starbench.compiled.support import game_types, unsupported  # no numba: kernel unloaded
from starbench.errors import (
    DEADLINE_GRACE_S,
    BudgetExceeded,
    EvaluationError,
    InputError,
    deadline,
)
from starbench.search.registry import AlgorithmSpec, is_plugin, resolve
from starbench.search.stats import SearchResult, SearchStats
from starbench.trees.explicit import ExplicitTree
from starbench.trees.regular import RegularTree

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


@dataclass(frozen=True)
class Auto:
    """What ``engine=auto`` weighs beside the request (``choose``): the tree must have more
    than ``min_nodes`` nodes (``solve``), the cell's trees more than ``AUTO_RUN_NODES`` in all
    (``cell_nodes``, ``run``; None: not known); ``kept`` (``run``): the engine the cell's stored
    rows of the request ran on, kept wherever it serves the request, so that a grown cell's
    timings never mix two engines."""

    min_nodes: int = 0
    cell_nodes: int | None = None
    kept: str | None = None


def choose(
    requested: str,
    name: str,
    *,
    exact: bool = False,
    debug: bool = False,
    time_budget: float | None = None,
    tree: Any = None,
    key: str = "engine",
    auto: Auto = Auto(),  # noqa: B008 - frozen
) -> Choice:
    """The engine for one search.  ``requested`` is ``auto``, ``compiled`` or ``python``;
    ``compiled`` on a request it cannot serve is an ``InputError`` naming ``key``; ``auto``
    uses the compiled engine where it serves the request and the tree and the cell are large
    enough, or the engine the cell's rows kept (``Auto``)."""
    min_nodes, cell_nodes, kept = auto.min_nodes, auto.cell_nodes, auto.kept
    if requested not in ENGINES:
        raise InputError(f"{key}: must be one of {', '.join(ENGINES)}, got {requested!r}")
    if requested == "python":
        return _REQUESTED_PYTHON
    why = unsupported(name, exact=exact, debug=debug, time_budget=time_budget, tree=tree)
    if requested == "compiled":
        if why is not None:
            flag = key.startswith("-")  # a command-line flag, or a config key
            said, sep = (key, " ") if flag else (f"{key}:", "=")
            raise InputError(
                f"{said} compiled cannot serve {why} ({name}); "
                f"use {key}{sep}auto or {key}{sep}python"
            )
        return _REQUESTED_COMPILED
    if why is None and isinstance(tree, game_types()):
        # a game's model: at any size (its kernel is cached), but a grown cell keeps the
        # engine its rows ran on, as a random tree's does
        return _KEPT.get(kept or "", _GAME_AUTO)
    size = getattr(tree, "size", None)
    if size is None and tree is not None and hasattr(tree, "spec"):
        size = tree.spec.size  # a generated tree: its spec knows the size
    if size is not None and size <= min_nodes:
        return Choice("python", f"a tree of at most {min_nodes} nodes")
    if why is not None:
        return Choice("python", f"the compiled engine does not serve {why}")
    if kept in _KEPT:
        return _KEPT[kept]
    if cell_nodes is not None and cell_nodes <= AUTO_RUN_NODES:
        return Choice("python", f"a cell of at most {AUTO_RUN_NODES} nodes")
    return Choice("compiled", "auto")


#: ``choose``'s answers that name no request (made once: a game's search is short enough for
#: a dataclass made per call to show)
_REQUESTED_PYTHON = Choice("python", "requested")
_REQUESTED_COMPILED = Choice("compiled", "requested")
_GAME_AUTO = Choice("compiled", "auto: a game with a model")
_KEPT = {e: Choice(e, "kept: the cell's earlier rows of it ran there") for e in ENGINES[1:]}


def game_model(spec: Any) -> Any:
    """The native model of a game cell's game (a ``GameSpec``), or None where it has none."""
    from starbench.compiled.support import spec_model

    return spec_model(spec)


def prepare(before: Any = None, after: Any = None, specs: Any = None, model: Any = None) -> float:
    """Load (the first time on a machine: compile) the compiled kernel's specializations that
    searches with ``specs`` use (with a table, without one; by default the one without; over
    the game model ``model``, a ``GameModel``, when given) before anything is timed;
    ``before(compiling, seconds)`` is called when one is not loaded yet (``compiling``: numba's
    cache does not hold it, so it is compiled, in about ``seconds``), ``after(seconds)`` once
    they are.  Returns the seconds it took (0 when already loaded)."""
    from starbench.compiled import engine

    forms = engine.forms_for(specs, model) if specs else None
    if engine.is_warm(forms):
        return 0.0
    if before is not None:
        seconds = engine.compile_seconds(None if model is None else model.family)
        on_disk = all(engine.cached_on_disk(f, t) for t, f in forms or {(False, None)})
        before(not on_disk, seconds)
    seconds = engine.warm_up(forms, model)
    if after is not None:
        after(seconds)
    return seconds


@functools.cache
def _kernel() -> Any:
    """The compiled engine's module, imported (with numba) the first time a search needs it."""
    import starbench.compiled.engine

    return starbench.compiled.engine


def compiled_tree(tree: Any) -> Any:
    """``tree`` in the compiled kernel's form (generated trees stay lazy where they can)."""
    CompiledTree = _kernel().CompiledTree  # noqa: N806
    if isinstance(tree, RegularTree):
        return CompiledTree.from_regular(
            tree.spec, tree.seed, tree.instance, tree.tree_seed, rid=tree.root[1]
        )
    if isinstance(tree, CompiledTree):
        return tree
    if isinstance(tree, ExplicitTree):
        return CompiledTree.from_explicit(tree)
    if isinstance(tree, game_types()[0]):  # a game with a model: the search over its model
        form = _kernel().ModelTree.of(tree)
        if form is not None:
            return form
        raise InputError("the compiled engine searches games with a model only (pig, Einstein)")
    raise InputError(f"the compiled engine cannot search trees of type {type(tree).__name__}")


def kernel_iterations(spec: AlgorithmSpec) -> Any:
    """``make`` for ``search.deepening.deepen`` on the compiled engine: each iteration's game
    tree searched over its model, one kernel table kept across the iterations."""
    return _kernel().iteration_maker(spec, compiled_tree)


@dataclass(frozen=True)
class Outcome:
    """What one search gave, the same on both engines: its result (a finished search), or the
    statistics where it stopped (``status`` ``budget_exceeded``, or ``error``: a bad
    evaluation, a recursion too deep for the Python engine), with the exception that said so."""

    engine: str
    status: str  # done, budget_exceeded, error
    result: SearchResult | None = None
    stats: SearchStats | None = None
    error: BaseException | None = None

    @property
    def message(self) -> str | None:
        """The stop's reason as a row's ``error`` column holds it."""
        e = self.error
        if e is None:
            return None
        if self.status == "budget_exceeded":
            return str(e)
        hint = "; the compiled engine has no depth limit" if isinstance(e, RecursionError) else ""
        return f"{type(e).__name__}: {e}{hint}"

    def value(self) -> SearchResult:
        """The result, or the exception the search stopped with (raised)."""
        if self.result is None:
            assert self.error is not None
            if isinstance(self.error, BudgetExceeded) and not hasattr(self.error, "stats"):
                self.error.stats = self.stats  # type: ignore[attr-defined]
            raise self.error
        return self.result


def execute(
    spec: AlgorithmSpec,
    tree: Any,
    *,
    engine: str = "python",
    exact: bool = False,
    debug: bool = False,
    node_budget: int | None = None,
    time_budget: float | None = None,
    compiled: Any = None,
    loaded: dict[str, Any] | None = None,
    levels: bool = False,
) -> Outcome:
    """Run one search of ``tree`` on ``engine`` (``python`` or ``compiled``, as ``choose``
    gave it): the one run path of ``solve``, the runner, the public ``starbench.search`` and
    the benchmark.  ``compiled``: ``tree`` already in the kernel's form (``compiled_tree``), so
    that several searches of one tree prepare it once; ``loaded``: as for
    ``AlgorithmSpec.make``; ``levels``: the result's counters per level (``by_level``; None
    without; the Python engine counts them either way), which cost the compiled engine about a
    tenth of its speed on leaf-heavy trees (``docs/benchmark.md``).  Bad input (a request the
    search cannot be made with) raises ``InputError``; every end of a search is an
    ``Outcome``."""
    if engine == "compiled":
        form = compiled or compiled_tree(tree)
        try:
            # a tree in the kernel's form, or a game's model (compiled.models.ModelTree)
            result = _kernel().execute(form, spec, node_budget=node_budget, per_level=levels)
        except BudgetExceeded as e:
            return Outcome("compiled", "budget_exceeded", None, e.stats, e)  # type: ignore[attr-defined]
        except EvaluationError as e:
            return Outcome("compiled", "error", None, None, e)
        return Outcome("compiled", "done", result, result.stats)
    try:
        search = spec.make(
            tree,
            loaded,
            exact=exact,
            debug=debug,
            node_budget=node_budget,
            time_budget=time_budget,
        )
    except InputError:
        raise
    except (Exception, SystemExit) as e:  # noqa: BLE001 - a plugin's constructor (its sys.exit too): an error row
        return Outcome("python", "error", None, None, e)
    if time_budget is None or not is_plugin(type(search)):
        return _run(search, time_budget, levels)
    return _run_killable(search, time_budget, levels)  # a plugin's: bounded by its process


def _run(search: Any, time_budget: float | None, levels: bool) -> Outcome:
    """One run of a made search in this process, stopped by the deadline (``levels``: keep its
    counters per level)."""
    try:
        with deadline(time_budget):
            result = search.run()
    except BudgetExceeded as e:
        return Outcome("python", "budget_exceeded", None, _stats_of(search), e)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any search's failure (a plugin's sys.exit too): an error row
        return Outcome("python", "error", None, _stats_of(search), e)
    if not levels and result.by_level is not None:  # as the compiled engine gives it
        result = dataclasses.replace(result, by_level=None)
    return Outcome("python", "done", result, result.stats)


def _run_killable(search: Any, time_budget: float, levels: bool) -> Outcome:
    """``_run`` in a process of its own, killed ``DEADLINE_GRACE_S + KILL_GRACE_S`` past the
    budget: a plugin's search that blocks in C code, or catches or ignores the deadline, ends as
    a ``budget_exceeded`` row there (without counters: its process is gone); one whose process
    dies (``os._exit``, a crash) as an ``error`` row."""
    from starbench.ground.isolate import KILL_GRACE_S, Died, Killed, killable

    limit = time_budget + DEADLINE_GRACE_S + KILL_GRACE_S
    try:
        return killable(lambda: _run(search, time_budget, levels), limit)
    except Killed:
        stop = BudgetExceeded(
            f"time budget of {time_budget:g} s exceeded (the search did not stop at it: its "
            f"process was killed at {limit:g} s)"
        )
        return Outcome("python", "budget_exceeded", None, None, stop)
    except (Died, Exception) as e:  # noqa: BLE001 - ended without a result, or one that does not pickle
        return Outcome("python", "error", None, None, e)


def _stats_of(search: Any) -> Any:
    """The statistics of a search where it stopped; None when its ``stats()`` fails too (a
    plugin's)."""
    try:
        return search.stats()
    except Exception:  # noqa: BLE001 - a failing plugin's counters are not to be trusted
        return None


def search(
    tree: Any,
    algorithm: str = "expectimax",
    *,
    engine: str = "auto",
    exact: bool = False,
    debug: bool = False,
    node_budget: int | None = None,
    time_budget: float | None = None,
    levels: bool = False,
    **params: Any,
) -> SearchResult:
    """Search ``tree`` with the named algorithm on the chosen engine and return its result.

    ``params`` are the algorithm's own parameters (``k``, ``after_probe``, ...); ``exact``
    searches in fractions and ``debug`` checks every windowed result against a full-window
    search (both Python engine); ``engine``: ``auto`` (compiled wherever it serves the
    request), ``compiled`` or ``python``.  The counters are the same on both engines;
    ``levels=True`` adds them per level (``result.by_level``: nodes, leaves, cut-offs and probes
    by level, the root 0), which costs the compiled engine about a tenth of its speed on
    leaf-heavy trees.  A search stopped by its budget raises ``BudgetExceeded`` (with
    ``stats``, where it stopped), one that met a bad evaluation ``EvaluationError``.
    """
    spec = resolve(algorithm, params)
    choice = choose(
        engine,
        spec.name,
        exact=exact,
        debug=debug,
        time_budget=time_budget,
        tree=tree,
    )
    return execute(
        spec,
        tree,
        engine=choice.engine,
        exact=exact,
        debug=debug,
        node_budget=node_budget,
        time_budget=time_budget,
        levels=levels,
    ).value()
