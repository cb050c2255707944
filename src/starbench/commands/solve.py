"""Solve one tree with several algorithms and check that their values agree (``solve``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starbench.compiled.support import compiling_line
from starbench.errors import InputError
from starbench.ground.textable import text_table
from starbench.search import ALGORITHMS, SearchResult, parse_spec
from starbench.search.arith import agree, format_value
from starbench.search.registry import expand_spec, is_exact, resolve
from starbench.trees.protocol import Tree, has_chance


def default_algorithms(tree: Tree) -> list[str]:
    """Every registered algorithm that applies to the tree (minimax, alpha-beta: no chance);
    inexact ones and a study's readings (``AlgorithmInfo.reading``) only when named."""
    finder = getattr(tree, "first_chance", None)
    chance = (finder() if finder is not None else has_chance(tree)) is not None
    return [
        name
        for name, info in ALGORITHMS.items()
        if (info.chance or not chance) and info.exact and not info.reading
    ]


@dataclass(frozen=True)
class Solved:
    results: list[SearchResult]
    mismatch: str | None  # a one-line description of the first disagreement
    #: per result, what ``after`` returned after that search (a game's ``order_evals``)
    extras: tuple[Any, ...] = ()
    #: one line per search that a node budget stopped (it has no result)
    stopped: tuple[str, ...] = ()
    #: one line per search that raised (its type and message; it has no result)
    failed: tuple[str, ...] = ()


def solve(
    tree: Tree,
    specs: list[str] | None = None,
    *,
    exact: bool = False,
    debug: bool = False,
    engine: str = "auto",
    log: Callable[[str], None] | None = None,
    before: Callable[[], None] | None = None,
    after: Callable[[], Any] | None = None,
    node_budget: int | None = None,
) -> Solved:
    """Run the algorithms named by ``specs`` (default: all that apply) on ``tree``.

    ``engine``: ``python``, ``compiled``, or ``auto`` (compiled for trees over
    ``AUTO_SOLVE_NODES`` nodes where it applies, else python).  ``before`` is called before
    each search and ``after`` after it (its values are ``Solved.extras``): a game source resets
    and reads its move-ordering counter there.  ``node_budget``: the most nodes a search may
    enter; a search it stops has no result, only a line in ``Solved.stopped``.
    """
    from starbench.engines import (
        AUTO_SOLVE_NODES,
        Auto,
        choose,
        compiled_tree,
        execute,
        prepare,
        python_engine_notes,
    )

    specs_ = [
        resolve(n, p)
        for s in (specs or default_algorithms(tree))
        for x in expand_spec(s)
        for n, p in [parse_spec(x)]
    ]
    # make every search first: bad input is reported before anything runs
    for spec in specs_:
        spec.make(tree, exact=exact, debug=debug)
    choices = [
        choose(
            engine,
            spec.name,
            exact=exact,
            debug=debug,
            tree=tree,
            auto=Auto(min_nodes=AUTO_SOLVE_NODES),
            key="--engine",
        )
        for spec in specs_
    ]
    if log is not None:
        for line in python_engine_notes(
            [(spec.label, c) for spec, c in zip(specs_, choices, strict=True)]
        ):
            log(line)
    kernel_tree = None
    results = []
    extras = []
    stopped: list[str] = []
    failed: list[str] = []
    for spec, choice in zip(specs_, choices, strict=True):
        if before is not None:
            before()
        if choice.engine == "compiled" and kernel_tree is None:
            kernel_tree = compiled_tree(tree)
            on_kernel = [s for s, c in zip(specs_, choices, strict=True) if c.engine == "compiled"]
            model = getattr(kernel_tree, "model", None)  # a game's (its family's kernel)
            prepare(_compile_note(log), specs=on_kernel, model=model)
        outcome = execute(
            spec,
            tree,
            engine=choice.engine,
            exact=exact,
            debug=debug,
            compiled=kernel_tree,
            node_budget=node_budget,
            levels=True,  # solve --json prints the counters per level
        )
        if outcome.status == "budget_exceeded":
            nodes = outcome.stats.nodes if outcome.stats is not None else node_budget
            stopped.append(
                f"starbench: {spec.label} stopped at --node-budget {node_budget} "
                f"({nodes} nodes entered): no value"
            )
            continue
        if isinstance(outcome.error, RecursionError | InputError):  # too deep, or bad input
            raise outcome.error  # (an evaluation outside [L, U]): the command's own one line
        if outcome.status == "error":  # a search that raised (a plugin's bug, a bad value)
            failed.append(f"starbench: {spec.label} failed: {outcome.message}: no value")
            continue
        results.append(outcome.value())
        extras.append(None if after is None else after())
    L, U = tree.bounds
    mismatch = None
    # each family must agree within itself: the exact algorithms, and each inexact family on
    # its own sampled tree (expectimax-ss, star1-ss, star2-ss with the same samples); an
    # inexact result differing from the exact ones is expected (its row is approx).  The exact
    # family's reference is its first search without a transposition table (a table's mistake
    # is shared by every search with one): with none, their values are checked by nothing
    families: dict[Any, SearchResult] = {}
    exact_results = [r for r in results if is_exact(r.algorithm, r.params)]
    plain = [r for r in exact_results if not r.params.get("tt")]
    if plain:
        families["exact"] = plain[0]
    elif exact_results and log is not None:
        log(
            "starbench: every exact search here uses a transposition table: no search without "
            "one checks their values (add expectimax to the algorithms to check them)"
        )
    for r in results:
        info = ALGORITHMS.get(r.algorithm)
        if info is not None and not info.exact and info.reference is None:
            continue  # an estimate (MCTS): no other result must equal it
        if info is not None and info.exact and not is_exact(r.algorithm, r.params):
            continue  # made inexact by a parameter (tt_depth=deeper): an estimate too
        family = (
            "exact" if info is None or info.exact else (info.reference, r.params.get("samples"))
        )
        if family == "exact" and not plain:
            continue  # no reference (said above)
        first = families.setdefault(family, r)
        if mismatch is None and not agree(r.value, first.value, L, U, exact):
            mismatch = (
                f"values differ: {label(first)} = {format_value(first.value, exact)}, "
                f"{label(r)} = {format_value(r.value, exact)}"
            )
    return Solved(results, mismatch, tuple(extras), tuple(stopped), tuple(failed))


def label(r: SearchResult) -> str:
    """The result's one label (``registry.AlgorithmSpec.label``)."""
    info = ALGORITHMS.get(r.algorithm)
    own = {p.name: r.params[p.name] for p in info.params if p.name in r.params} if info else {}
    return resolve(r.algorithm, own).label if info else r.algorithm


def row(
    r: SearchResult,
    action: Callable[[int | None], Any] | None = None,
    order_evals: int | None = None,
) -> dict[str, Any]:
    """The JSON object of one result (keys fixed by the solve command's contract); for a game,
    ``action`` maps the best move to the game's own name of it (key ``best_action``), and a
    source that orders moves by evaluating them adds ``order_evals``."""
    info = ALGORITHMS.get(r.algorithm)
    own = {p.name for p in info.params} if info else set()
    extra = {} if action is None else {"best_action": action(r.best_move)}
    if order_evals is not None:
        extra["order_evals"] = order_evals
    if "probe_full_window" in own and not r.params.get("probe_full_window", True):
        extra["probe_full_window"] = False  # shown only where it is not the default
    if r.params.get("tt"):  # a transposition table: its size and counters
        extra["tt"] = r.params["tt"]
        for flag in ("tt_chance", "tt_probe"):
            if r.params.get(flag):
                extra[flag] = True
        extra.update(
            tt_probes=r.stats.tt_probes, tt_hits=r.stats.tt_hits, tt_cutoffs=r.stats.tt_cutoffs
        )
    return {
        "algorithm": r.algorithm,
        "k": r.params.get("k") if "k" in own else None,
        "after_probe": r.params.get("after_probe") if "after_probe" in own else None,
        "value": format_value(r.value, r.exact),
        "best_move": r.best_move,
        "nodes": r.stats.nodes,
        "leaves": r.stats.leaves,
        "seconds": r.seconds,
        **extra,
        # the counters per level (``starbench.search.stats``), each summing to its total
        "cutoffs": r.stats.chance_cutoffs + r.stats.decision_cutoffs,
        "probes": r.stats.probes,
        **({} if r.by_level is None else r.by_level.as_dict()),
    }


def table(
    results: list[SearchResult],
    action: Callable[[int | None], Any] | None = None,
    order_evals: tuple[Any, ...] = (),
) -> str:
    """A plain-text table of results (with a ``best_action`` column for games, and
    ``order_evals`` where the source counts them)."""
    head = ("algorithm", "value", "best_move", "nodes", "leaves", "seconds")
    if action is not None:
        head = (*head[:3], "best_action", *head[3:])
    counted = any(x is not None for x in order_evals)
    if counted:
        head = (*head[:-1], "order_evals", head[-1])
    lines: list[tuple[str, ...]] = [head]
    for i, r in enumerate(results):
        v = format_value(r.value, r.exact)
        cells = (
            label(r),
            f"{v:.10g}" if isinstance(v, float) else v,
            "-" if r.best_move is None else str(r.best_move),
            str(r.stats.nodes),
            str(r.stats.leaves),
            f"{r.seconds:.6f}",
        )
        if action is not None:
            a = action(r.best_move)
            cells = (*cells[:3], "-" if a is None else str(a), *cells[3:])
        if counted:
            cells = (*cells[:-1], str(order_evals[i]), cells[-1])
        lines.append(cells)
    return text_table(lines)


def _compile_note(log: Any) -> Any:
    """``prepare``'s ``before``: one line on ``log`` when the kernel this search needs is not in
    numba's cache (a first search on a machine compiles it: a game model family's, or a tree's)."""

    def before(compiling: bool, seconds: float) -> None:
        if compiling and log is not None:
            log(compiling_line(seconds))

    return before
