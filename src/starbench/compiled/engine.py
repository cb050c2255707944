"""The compiled engine: prepares trees for the kernel and returns ``SearchResult``s.

``CompiledTree`` holds a tree in the kernel's form: lazy generator parameters (generated trees
whose orderings need no full pass) or arrays (explicit trees; generated trees materialised in
numba).  ``supports`` says whether a request can run compiled; what it cannot serve (exact mode,
debug mode, time budgets, games, algorithms registered by plugins) runs on the Python engine.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from starbench.compiled.codes import BAD_EVAL, BUDGET, EXHAUSTIVE, N_STATS, PROBING, WINDOWED
from starbench.errors import BudgetExceeded, EvaluationError, InputError
from starbench.search.alphabeta import AlphaBeta
from starbench.search.arith import tolerance
from starbench.search.expectimax import Expectimax
from starbench.search.minimax import Minimax
from starbench.search.registry import get_algorithm
from starbench.search.star1 import Star1
from starbench.search.star2 import Star2
from starbench.search.stats import SearchResult, SearchStats
from starbench.trees.explicit import ExplicitTree
from starbench.trees.hashing import root_id, tree_seed
from starbench.trees.models import VALUE_MODELS
from starbench.trees.regular import RegularTree, RegularTreeSpec, shape_of

#: Registered algorithm classes the kernel implements, and how.
_KERNEL_ALGOS = {
    Expectimax: EXHAUSTIVE,
    Minimax: EXHAUSTIVE,
    AlphaBeta: WINDOWED,
    Star1: WINDOWED,
    Star2: PROBING,
}


def kernel_algo(name: str) -> int | None:
    """The kernel's code for a registered algorithm (exact class match: subclasses registered by
    plugins may change the procedure, so they run on the Python engine)."""
    return _KERNEL_ALGOS.get(get_algorithm(name).cls)


def unsupported(
    name: str,
    *,
    exact: bool = False,
    debug: bool = False,
    time_budget: float | None = None,
    tree: Any = None,
    params: dict[str, Any] | None = None,
) -> str | None:
    """Why the compiled engine cannot serve this request, or None if it can."""
    if exact:
        return "exact mode"
    if debug:
        return "debug mode"
    if time_budget is not None:
        return "time budgets"
    if kernel_algo(name) is None:
        return f"algorithm {name}"
    if tree is None or isinstance(tree, ExplicitTree | CompiledTree):
        return None
    spec = tree.spec if isinstance(tree, RegularTree) else tree
    if not isinstance(spec, RegularTreeSpec):
        from starbench.games.adapter import GameTree
        from starbench.games.spec import GameSpec

        if isinstance(tree, GameTree | GameSpec):
            return "game trees"
        return f"trees of type {type(tree).__name__}"
    if spec.pool and spec.size > spec.full_pass_limit:
        return "pool trees over tree.full_pass_limit nodes (it unfolds them into arrays)"
    return None


_NO_ARRAYS = (
    np.zeros(1, np.int64),
    np.zeros(1, np.int64),
    np.zeros(1, np.int64),
    np.zeros(1),
    np.zeros(1),
    np.zeros(1, np.uint64),
)
_NO_TABLE = (
    np.zeros(1, np.uint64),
    np.zeros(1, np.int64),
    np.zeros(1),
    np.zeros(1),
    np.zeros(1, np.int64),
)


@functools.lru_cache(maxsize=64)
def _form_of(spec: RegularTreeSpec) -> tuple[dict[str, Any], Any, Any]:
    """What every instance of ``spec`` shares in the kernel's form (checked once per spec):
    the CompiledTree fields but the seeds, arrays and bounds, and the declared bounds (L, U).
    The arrays are shared by the instances; the kernel only reads them."""
    from starbench.compiled.trees import ORDERING_CODES, OUTCOME_CODES

    shape = shape_of(spec)  # validates the spec
    const = shape.const_probs
    form = dict(
        lazy=not spec.needs_full_pass and spec.pool == 0,
        levels=len(shape.level_kinds),
        max_arity=int(max(shape.arities, default=1)),
        max_depth=len(shape.level_kinds),
        has_chance=spec.pattern != "max,min",
        size=spec.size,
        level_kind=np.array([int(k) for k in shape.level_kinds], np.int64),
        level_arity=np.array(shape.arities, np.int64),
        incremental=VALUE_MODELS[spec.value_model].incremental,
        r1=np.uint64(spec.resolution + 1),
        ordering=ORDERING_CODES[spec.ordering],
        outcome=OUTCOME_CODES[spec.outcome_order],
        dist_random=spec.distribution == "random",
        const_probs=np.zeros(1) if const is None else np.array([float(p) for p in const]),
        wmax=np.uint64(spec.weight_max),
    )
    return form, *shape.declared_bounds


@dataclass
class CompiledTree:
    """A tree in the kernel's form."""

    lazy: bool
    L: float
    U: float
    bounds: tuple[Any, Any]
    levels: int
    max_arity: int
    max_depth: int
    has_chance: bool
    tseed: np.uint64
    rid: np.uint64
    level_kind: np.ndarray
    level_arity: np.ndarray
    incremental: bool
    r1: np.uint64
    ordering: int
    outcome: int
    dist_random: bool
    const_probs: np.ndarray
    wmax: np.uint64
    arrays: tuple[np.ndarray, ...]
    size: int
    tree_seed_int: int = 0

    @classmethod
    def from_explicit(cls, tree: ExplicitTree) -> CompiledTree:
        from starbench.compiled.trees import explicit_arrays

        arrays = explicit_arrays(tree)
        nchild = arrays[2]
        L, U = tree.bounds
        return cls(
            False,
            float(L),
            float(U),
            (L, U),
            0,
            int(nchild.max(initial=1)),
            tree.max_depth,
            tree.first_chance() is not None,
            np.uint64(0),
            np.uint64(0),
            np.zeros(1, np.int64),
            np.zeros(1, np.int64),
            False,
            np.uint64(1),
            0,
            0,
            False,
            np.zeros(1),
            np.uint64(1),
            arrays,
            tree.size,
        )

    @classmethod
    def from_regular(
        cls, spec: RegularTreeSpec, seed: int, instance: int, ts: int | None = None
    ) -> CompiledTree:
        """Instance ``instance`` of ``spec`` under ``seed`` (``ts``: its tree seed, if known)."""
        from starbench.compiled.trees import materialize

        ts = tree_seed(seed, instance) if ts is None else ts
        form, L, U = _form_of(spec)
        tseed, rid = np.uint64(ts), np.uint64(root_id(ts))
        arrays: tuple[np.ndarray, ...] = _NO_ARRAYS
        if not form["lazy"]:
            *arrays, lo, hi = materialize(
                spec.levels,
                form["level_kind"],
                form["level_arity"],
                tseed,
                rid,
                form["incremental"],
                form["r1"],
                form["ordering"],
                form["outcome"],
                form["dist_random"],
                form["const_probs"],
                form["wmax"],
                float(spec.noise_sd),
                np.uint64(spec.pool),
            )
            arrays = tuple(arrays)
            if spec.bounds == "tree":
                L, U = int(lo), int(hi)
                if L == U:
                    U = L + 1
        return cls(
            L=float(L),
            U=float(U),
            bounds=(L, U),
            tseed=tseed,
            rid=rid,
            arrays=arrays,
            tree_seed_int=ts,
            **form,
        )

    def first_chance(self) -> bool:
        return self.has_chance

    def root_arity(self) -> int:
        if self.lazy:
            return int(self.level_arity[0]) if self.levels else 0
        return int(self.arrays[2][0])


def run(
    ct: CompiledTree,
    name: str,
    params: dict[str, Any] | None = None,
    *,
    node_budget: int | None = None,
) -> SearchResult:
    """Search a CompiledTree with a registered algorithm on the compiled kernel."""
    from starbench.compiled.kernel import search_kernel

    try:  # by type and value: 2.0 == 2, but only 2 is a valid k
        key = (name, tuple(sorted((p, type(v), v) for p, v in (params or {}).items())))
        hash(key)
    except TypeError:  # an unhashable parameter value: resolve refuses it below
        key = None
    shown, algo, k, sequential, research, skip_full, bits, tt_chance, tt_probe, decision = (
        _kernel_params(*key) if key is not None else _resolve(name, params or {})
    )
    if not get_algorithm(name).chance and ct.has_chance:
        raise InputError(f"{name} does not apply to trees with chance nodes")
    table = _NO_TABLE
    if bits:  # the table's arrays: key, depth (-1: empty), lower, upper, move
        size = 1 << bits
        table = (
            np.empty(size, np.uint64),
            np.empty(size, np.int64),
            np.empty(size),
            np.empty(size),
            np.empty(size, np.int64),
        )
    stats = np.zeros(N_STATS, np.int64)
    root_vals = np.zeros(max(ct.max_arity, 1))
    budget = -1 if node_budget is None else int(node_budget)
    a = ct.arrays
    warm_up()
    t0, c0 = time.perf_counter(), time.process_time()
    status, value, best, bad = search_kernel(
        algo,
        k,
        sequential,
        research,
        skip_full,
        ct.L,
        ct.U,
        budget,
        ct.lazy,
        ct.levels,
        ct.level_kind,
        ct.level_arity,
        ct.tseed,
        ct.rid,
        ct.incremental,
        ct.r1,
        ct.ordering,
        ct.outcome,
        ct.dist_random,
        ct.const_probs,
        ct.wmax,
        a[0],
        a[1],
        a[2],
        a[3],
        a[4],
        a[5],
        ct.max_arity,
        ct.max_depth,
        stats,
        root_vals,
        bits > 0,
        tt_chance,
        tt_probe,
        decision,
        *table,
    )
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = SearchStats(*stats.tolist())
    if status == BUDGET:
        raise _Budget(f"node budget of {node_budget} nodes exceeded", st)
    if status == BAD_EVAL:
        raise EvaluationError(
            f"node {bad}: evaluation {value} is NaN or outside the bounds "
            f"[{ct.bounds[0]}, {ct.bounds[1]}]"
        )
    best_move = None if best < 0 else int(best)
    tied = None
    if algo == EXHAUSTIVE and best_move is not None:  # as arith.agree, for every root move
        close = np.abs(root_vals[: ct.root_arity()] - value) <= tolerance(ct.L, ct.U)
        tied = tuple(int(m) for m in np.flatnonzero(close))
    return SearchResult(name, dict(shown), float(value), best_move, tied, st, False, seconds, cpu)


def _resolve(name: str, params: dict[str, Any]) -> tuple[Any, ...]:
    """The registry's checked parameters of ``name`` as the kernel takes them: (shown
    parameters, algorithm code, k, sequential, research, skip_full, tt bits, tt_chance,
    tt_probe, table at decision nodes only)."""
    info = get_algorithm(name)
    resolved = info.resolve(params)
    algo = kernel_algo(name)
    if algo is None:
        raise InputError(f"the compiled engine does not implement {name}")
    full = {**info.fixed, **resolved}
    # the registry resolved every parameter (its defaults are the only ones); the exhaustive
    # and windowed procedures have no probing parameters
    probing = algo == PROBING
    return (
        full,
        algo,
        int(full["k"]) if probing else 0,
        probing and full["probing"] == "sequential",
        probing and full["after_probe"] == "research",
        probing and not full["probe_full_window"],
        int(full.get("tt", 0)),
        bool(full.get("tt_chance", False)),
        bool(full.get("tt_probe", False)),
        full.get("tt_nodes", "all") == "decision",
    )


@functools.lru_cache(maxsize=256)
def _kernel_params(name: str, items: tuple[tuple[str, type, Any], ...]) -> tuple[Any, ...]:
    """``_resolve`` remembered per (name, typed parameters): errors are not cached, so bad
    parameters raise every time."""
    return _resolve(name, {p: v for p, _, v in items})


_WARM = False


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernels once per process, outside any timing;
    returns the seconds it took (0 when already warm)."""
    global _WARM
    if _WARM:
        return 0.0
    _WARM = True
    from starbench.compiled.kernel import search_kernel

    t0 = time.perf_counter()
    one = np.zeros(1, np.int64)
    arrays = (np.array([3], np.int64), one, one, np.zeros(1), np.zeros(1), np.zeros(1, np.uint64))
    search_kernel(
        0,
        0,
        False,
        False,
        False,
        0.0,
        1.0,
        -1,
        False,
        0,
        one,
        one,
        np.uint64(0),
        np.uint64(0),
        False,
        np.uint64(1),
        0,
        0,
        False,
        np.zeros(1),
        np.uint64(1),
        *arrays,
        1,
        0,
        np.zeros(N_STATS, np.int64),
        np.zeros(1),
        False,
        False,
        False,
        False,
        *_NO_TABLE,
    )
    return time.perf_counter() - t0


class _Budget(BudgetExceeded):
    def __init__(self, message: str, stats: SearchStats):
        super().__init__(message)
        self.stats = stats
