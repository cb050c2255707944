"""The compiled engine: prepares trees for the kernel and returns ``SearchResult``s.

``CompiledTree`` holds a tree in the kernel's form: lazy generator parameters (generated trees
whose orderings need no full pass) or arrays (explicit trees; generated trees materialised in
numba).  ``supports`` says whether a request can run compiled; what it cannot serve (exact mode,
debug mode, time budgets, games, algorithms registered by plugins) runs on the Python engine.
"""

from __future__ import annotations

import functools
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from starbench.compiled.codes import BUDGET, EXHAUSTIVE, N_STATS, OK, PROBING
from starbench.compiled.contract import family_value
from starbench.compiled.kernel import (
    NO_ARRAYS,
    NO_LAZY,
    ArrayTree,
    LazyTree,
    Options,
    Out,
    Probe,
    Table,
    enter,
)
from starbench.compiled.models import ModelTree
from starbench.compiled.support import compiling_line, kernel_algo
from starbench.errors import BudgetExceeded, EvaluationError, InputError
from starbench.search.arith import tolerance
from starbench.search.registry import AlgorithmSpec, resolve
from starbench.search.stats import LevelCounts, SearchResult, SearchStats
from starbench.trees.explicit import ExplicitTree
from starbench.trees.hashing import root_id, tree_seed
from starbench.trees.models import VALUE_MODELS
from starbench.trees.regular import RegularTreeSpec, shape_of

#: The probe bundle of a search without a probe phase (k = 0).
_NO_PROBE = Probe(0, False, False, False)


@functools.lru_cache(maxsize=64)
def _form_of(spec: RegularTreeSpec) -> tuple[dict[str, Any], Any, Any]:
    """What every instance of ``spec`` shares in the kernel's form (checked once per spec):
    the ``LazyTree`` fields but the seeds, the shape, and the declared bounds (L, U).  The
    arrays are shared by the instances; the kernel only reads them."""
    from starbench.compiled.trees import ORDERING_CODES, OUTCOME_CODES

    shape = shape_of(spec)  # validates the spec
    const = shape.const_probs
    lazy = dict(
        levels=len(shape.level_kinds),
        level_kind=np.array([int(k) for k in shape.level_kinds], np.int64),
        level_arity=np.array(shape.arities, np.int64),
        incremental=bool(VALUE_MODELS[spec.value_model].incremental),
        r1=np.uint64(spec.resolution + 1),
        ordering=int(ORDERING_CODES[spec.ordering]),
        outcome=int(OUTCOME_CODES[spec.outcome_order]),
        dist_random=spec.distribution == "random",
        const_probs=np.zeros(1) if const is None else np.array([float(p) for p in const]),
        wmax=np.uint64(spec.weight_max),
        version=int(spec.generator_version),
    )
    shared = dict(
        lazy=not spec.needs_full_pass and spec.pool == 0,
        max_arity=int(max(shape.arities, default=1)),
        max_depth=len(shape.level_kinds),
        has_chance=spec.pattern != "max,min",
        size=spec.size,
    )
    return {"tree": lazy, **shared}, *shape.declared_bounds


@dataclass
class CompiledTree:
    """A tree in the kernel's form: its bundles (``kernel.LazyTree`` for a generated tree
    searched lazily, ``kernel.ArrayTree`` for a tree in arrays), bounds and shape."""

    lazy: bool
    L: float
    U: float
    bounds: tuple[Any, Any]
    max_arity: int
    max_depth: int
    has_chance: bool
    tree: LazyTree
    arrays: ArrayTree
    size: int
    tree_seed_int: int = 0
    #: a tree file's tree: its transposition keys (identical subtrees) are made for a table
    explicit: ExplicitTree | None = None

    @property
    def levels(self) -> int:
        return self.tree.levels

    @functools.cached_property
    def bundles(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The tree's two bundles as the plain tuples ``kernel.enter`` takes, made once."""
        return tuple(self.tree), tuple(self.arrays)

    @functools.cached_property
    def table_bundles(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """``bundles`` for a search with a transposition table: a tree file's arrays with its
        transposition keys (``ExplicitTree.transposition_keys``, made only for a table)."""
        if self.explicit is None:
            return self.bundles
        keys = np.array(self.explicit.transposition_keys, np.uint64)
        return tuple(self.tree), tuple(self.arrays._replace(key=keys))

    @classmethod
    def from_explicit(cls, tree: ExplicitTree) -> CompiledTree:
        from starbench.compiled.trees import explicit_arrays

        arrays = ArrayTree(*explicit_arrays(tree))
        L, U = tree.bounds
        return cls(
            False,
            float(L),
            float(U),
            (L, U),
            int(arrays.nchild.max(initial=1)),
            tree.max_depth,
            tree.first_chance() is not None,
            NO_LAZY,
            arrays,
            tree.size,
            explicit=tree,
        )

    @classmethod
    def from_regular(
        cls,
        spec: RegularTreeSpec,
        seed: int,
        instance: int,
        ts: int | None = None,
        materialise: bool = False,
        rid: int | None = None,
    ) -> CompiledTree:
        """Instance ``instance`` of ``spec`` under ``seed`` (``ts``: its tree seed, and ``rid``
        its root's id, if known); ``materialise``: in arrays even where the kernel would search
        it lazily (a whole tree to compare, as ``tests/test_no_effect.py`` does)."""
        ts = tree_seed(seed, instance) if ts is None else ts
        cached = spec.__dict__.get("_compiled_form")
        if cached is None:  # once per spec object (the lru cache below: once per spec)
            form, L, U = _form_of(spec)
            f = form["tree"]
            before = tuple(f[k] for k in LazyTree._fields[:3])  # the fields around the seeds
            after = tuple(f[k] for k in LazyTree._fields[5:])
            cached = (form, L, U, before, after)
            object.__setattr__(spec, "_compiled_form", cached)
        form, L, U, before, after = cached
        tseed = np.uint64(ts)
        rid = np.uint64(root_id(ts) if rid is None else rid)
        lazy_tree = LazyTree._make((*before, tseed, rid, *after))
        arrays = NO_ARRAYS
        if materialise or not form["lazy"]:
            from starbench.compiled.trees import materialize

            f = form["tree"]
            *made, lo, hi = materialize(
                spec.levels,
                f["level_kind"],
                f["level_arity"],
                tseed,
                rid,
                f["incremental"],
                f["r1"],
                f["ordering"],
                f["outcome"],
                f["dist_random"],
                f["const_probs"],
                f["wmax"],
                float(spec.noise_sd),
                np.uint64(spec.pool),
                f["version"],
            )
            arrays = ArrayTree(*made)
            if spec.bounds == "tree":
                L, U = int(lo), int(hi)
                if L == U:
                    U = L + 1
        return cls(
            lazy=form["lazy"] and not materialise,
            L=float(L),
            U=float(U),
            bounds=(L, U),
            max_arity=form["max_arity"],
            max_depth=form["max_depth"],
            has_chance=form["has_chance"],
            tree=lazy_tree,
            arrays=arrays,
            size=form["size"],
            tree_seed_int=ts,
        )

    def first_chance(self) -> bool:
        return self.has_chance

    def game_bundle(self) -> None:
        """The kernel's ``Game`` bundle: None (a tree, not a game; ``compiled.models``)."""
        return None

    def saw(self, flat: Any) -> None:
        """What the leaves of a game searched were (a tree: nothing to tell)."""


def execute(
    ct: Any,
    spec: AlgorithmSpec | str,
    params: dict[str, Any] | None = None,
    *,
    node_budget: int | None = None,
    per_level: bool = True,
    table: Table | None = None,
    keep_table: bool = False,
) -> SearchResult:
    """Search a CompiledTree (or a game's ``compiled.models.ModelTree``, which offers the same
    names) on the compiled kernel: ``spec`` a resolved request
    (``registry.AlgorithmSpec``), or an algorithm's name with its ``params``.  ``per_level``:
    count nodes, leaves, cut-offs and probes per level (the result's ``by_level``; None
    without); ``table``: the kernel's table to search with (a new one of the request's size
    when None), kept as it is with ``keep_table`` (iterative deepening, ``iteration_maker``)."""
    if not isinstance(spec, AlgorithmSpec):
        spec = resolve(spec, params)
    algo, probing, tt, chance, settings, tt_flags = _kernel_form(spec)
    if not chance and ct.has_chance:
        raise InputError(f"{spec.name} does not apply to trees with chance nodes")
    game = ct.game_bundle()
    bits = tt.bits
    if bits:
        table = tuple(table if table is not None else _table(bits))
    else:  # a game's kernel takes a table always (one specialization per family: kernel.Options)
        table = None if game is None else _NO_TABLE
    arity, depth, L, U = ct.max_arity, ct.max_depth, ct.L, ct.U  # noqa: N806 - the kernel's
    # the root moves' values: a prefix of this row, filled by the exhaustive algorithms (the
    # values are never NaN, a bad evaluation stops the search), so its length is the root's
    # arity without asking the tree
    stats, root_vals = np.zeros(N_STATS, np.int64), np.empty(arity or 1)
    root_vals.fill(np.nan)
    by_level = np.zeros((4, depth + 2), np.int64)  # levels 0 .. max_depth + 1
    budget = -1 if node_budget is None else int(node_budget)
    # an ``Options``, as the plain tuple ``kernel.enter`` takes
    opts = (algo, L, U, budget, ct.lazy, ct.levels, arity, depth, *tt_flags,
            per_level, keep_table, bool(bits))  # fmt: skip
    if game is None:
        model, form, game_model = None, (table is not None, None), None
        tree, arrays = ct.bundles if table is None else ct.table_bundles
    else:  # the model apart from the game's tuple, its family's typed value; the tree bundles
        game_model = ct.model  # are the placeholders ``kernel.entry_game`` holds itself
        model, form = family_value(game_model.family), (True, game_model.family)
        tree = arrays = None
    if form not in _WARMED:  # its first use here: compiled outside the timing, and said
        _first_use(form, game_model)
    out = (stats, root_vals, by_level)
    t0, c0 = time.perf_counter(), time.process_time()
    status, value, best, bad = enter(opts, tree, arrays, probing, table, out, game, model)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if game is not None and status != BUDGET:
        ct.saw(game[-1])
    if status != OK:
        _stopped(status, value, bad, node_budget, stats, by_level, per_level, ct)
    tied = root_values = None
    if algo == EXHAUSTIVE and best >= 0:  # as arith.agree, for every root move
        root_values = tuple(v for v in root_vals.tolist() if v == v)
        tol = tolerance(L, U)
        tied = tuple(m for m, v in enumerate(root_values) if abs(v - value) <= tol)
    return SearchResult.of(
        spec.name,
        dict(settings),
        float(value),
        None if best < 0 else int(best),
        tied,
        SearchStats.of(stats.tolist()),
        False,
        seconds,
        cpu,
        root_values,
        _levels(by_level) if per_level else None,
    )


def _stopped(
    status: int,
    value: float,
    bad: int,
    node_budget: int | None,
    stats: np.ndarray,
    by_level: np.ndarray,
    per_level: bool,
    ct: Any,
) -> None:
    """Raise what stopped a search (the kernel's ``status``): ``BudgetExceeded`` with the
    counters where it stopped, or ``EvaluationError`` naming the bad evaluation."""
    if status == BUDGET:
        raise _Budget(
            f"node budget of {node_budget} nodes exceeded",
            SearchStats.of(stats.tolist()),
            _levels(by_level) if per_level else None,
        )
    where = "a leaf" if isinstance(ct, ModelTree) else f"node {bad}"
    raise EvaluationError(
        f"{where}: evaluation {value} is NaN or outside the bounds [{ct.bounds[0]}, {ct.bounds[1]}]"
    )


def _levels(by_level: np.ndarray) -> LevelCounts:
    """The kernel's counters per level (inner nodes, leaves, cut-offs, probes; ``kernel.LV_*``)
    as a ``LevelCounts``: the nodes are the inner nodes and the leaves, up to the deepest level
    entered."""
    nodes = by_level[0] + by_level[1]
    depth = int(np.flatnonzero(nodes)[-1]) + 1 if nodes.any() else 0
    rows = by_level[:, :depth].tolist()
    return LevelCounts(
        tuple(nodes[:depth].tolist()), tuple(rows[1]), tuple(rows[2]), tuple(rows[3])
    )


def _kernel_form(spec: AlgorithmSpec) -> tuple[int, Any, Any, bool, dict[str, Any], Any]:
    """(kernel code, probe bundle, table settings, searches chance nodes, settings, the table's
    ``Options`` flags) of a resolved request, worked out once per request object."""
    form = spec.__dict__.get("_kernel")
    if form is None:
        algo = kernel_algo(spec.name)
        if algo is None:
            raise InputError(f"the compiled engine does not implement {spec.name}")
        probe = spec.probing
        probing = _NO_PROBE  # k = 0 (Star1, and the algorithms without probes): no probe phase
        if algo == PROBING and probe.k > 0:
            probing = Probe(int(probe.k), probe.sequential, probe.research, probe.skip_full)
        # the probe bundle as the plain tuple ``kernel.enter`` takes, and the table's flags
        # in ``Options``' order
        tt = spec.table
        flags = (tt.chance, tt.probe, tt.decision_only, tt.deeper)
        form = (int(algo), tuple(probing), tt, spec.info.chance, spec.settings, flags)
        object.__setattr__(spec, "_kernel", form)  # a cache on the frozen request itself
    return form


#: A kernel specialization: (with a table, the game model's family or None for a tree).  Numba
#: compiles one machine-code kernel per specialization, each the first time it is used
#: (``kernel.py``); a bare bool is a tree's (with a table or not).  A game family has one,
#: (True, family), serving searches with and without a table (``kernel.Options``).
Form = tuple[bool, str | None]

_WARMED: set[Form] = set()


def _forms(forms: Any) -> set[Form]:
    """``forms`` as (table, family) pairs (default: a tree without a table; a family's one
    specialization whatever table it is asked with)."""
    pairs = {f if isinstance(f, tuple) else (bool(f), None) for f in (forms or {False})}
    return {(True, family) if family is not None else (t, None) for t, family in pairs}


def forms_for(specs: Any, model: Any = None) -> set[Form]:
    """The specializations that searches with ``specs`` use (over ``model``, a game's
    ``GameModel``: its family's one; or a tree's, with or without a table)."""
    if model is not None:
        return {(True, model.family)}
    return {(bool(_kernel_form(spec)[2].bits), None) for spec in specs}


#: About how long the kernel's first compile takes, in seconds (a fresh numba cache, on the
#: development machine: ``scripts/engine_speed.py``'s cold compile, ``results/bench/engine.md``),
#: and a game model family's (its one specialization, with the table code, through
#: ``kernel.entry_game``: measured here 26 s of CPU for pig).
COMPILE_SECONDS = 12
GAME_COMPILE_SECONDS = 25


def compile_seconds(family: str | None) -> int:
    """About how long a first compile of a tree's kernel (``family`` None) or of a game model
    family's takes, in seconds."""
    return COMPILE_SECONDS if family is None else GAME_COMPILE_SECONDS


def _first_use(form: Form, model: Any) -> None:
    """A specialization's first use in this process (outside any timing): loaded from numba's
    cache, or compiled with one line on stderr (``compiling_line``) where the cache lacks it,
    so that no search, ``starbench.search`` included, compiles for most of a minute unsaid
    (``run`` and ``solve`` say it before their work, through ``engines.prepare``)."""
    table, family = form
    if not cached_on_disk(family, table):
        print(compiling_line(compile_seconds(family)), file=sys.stderr, flush=True)
    warm_up({form}, model)


def cached_on_disk(family: str | None = None, table: bool | None = None) -> bool:
    """Does numba's cache hold the kernel compiled from this source (so that a first search
    loads it in about a second rather than compiling it)?  numba's own index of the kernel's
    entry, read as numba reads it (stale or missing: empty): a specialization over the game
    model ``family`` (None: a tree's), with a table or without one (None: either)."""
    from starbench.compiled.kernel import ENTRIES

    if family is not None:  # a game family's one entry, its model the last argument
        return f"GameModel({family})" in {k[0][-1] for k in _index(ENTRIES[(True, True)])}
    return any(_index(ENTRIES[(t, False)]) for t in ((False, True) if table is None else (table,)))


def _index(entry: Any) -> list[Any]:
    """The keys (argument types, target, ...) of numba's cache index of a kernel entry, read as
    numba reads it (stale, missing or unreadable: empty)."""
    try:
        keys = entry._cache._cache_file._load_index()  # noqa: SLF001 - numba's cache
        return [(tuple(str(a) for a in k[0]), *k[1:]) for k in keys]
    except Exception:  # noqa: BLE001 - an unreadable cache is one numba compiles again
        return []


def is_warm(forms: Any = None) -> bool:
    """Has this process loaded (or compiled) these specializations (default: a tree's without
    a table)?"""
    return _forms(forms) <= _WARMED


def warm_up(forms: Any = None, model: Any = None) -> float:
    """Compile (or load from numba's cache) the kernel's specializations ``forms`` (default:
    a tree's without a table) once per process, outside any timing, with a one-node search of
    each (a game family's: of ``model``'s first state, a leaf); a search compiles its own the
    first time it is used.  Returns the seconds it took (0 when all were warm)."""
    todo = sorted(_forms(forms) - _WARMED, key=str)
    if not todo:
        return 0.0
    t0 = time.perf_counter()
    for table, family in todo:
        if family is None:
            ct = CompiledTree.from_regular(_TINY, 0, 0)
        elif model is not None and model.family == family:
            ct = ModelTree.make(model, model.initial(), 0, model.heuristics[0], (-1.0, 1.0))
        else:
            raise ValueError(f"warm_up: the game family {family} needs its model")
        _WARMED.add((table, family))
        opts = Options(
            int(PROBING),
            ct.L,
            ct.U,
            -1,
            ct.lazy,
            ct.levels,
            ct.max_arity,
            ct.max_depth,
            False,
            False,
            False,
            False,
            True,
            False,
            table,
        )
        _one_search(ct, opts, table)
    return time.perf_counter() - t0


def _one_search(ct: Any, opts: Options, table: bool) -> None:
    """``warm_up``'s one search of ``ct`` (with a one-slot table, or without one)."""
    model = getattr(ct, "model", None)  # a game's (compiled.models.ModelTree), else None
    enter(
        tuple(opts),
        *(ct.bundles if model is None else (None, None)),  # a game's: ``kernel.entry_game``'s
        tuple(Probe(1, False, False, False)),
        tuple(_table(1)) if table else None,
        tuple(
            Out(
                np.zeros(N_STATS, np.int64),
                np.zeros(max(ct.max_arity, 1)),
                np.zeros((4, ct.max_depth + 2), np.int64),
            )
        ),
        ct.game_bundle(),
        None if model is None else family_value(model.family),
    )


_TINY = RegularTreeSpec(branching=1, chance_arity=1, depth=1)


def _table(bits: int) -> Table:
    """An empty table of 2**bits entries: key, depth (-1: empty), lower, upper, move."""
    size = 1 << bits
    return Table(
        np.empty(size, np.uint64),
        np.empty(size, np.int64),
        np.empty(size),
        np.empty(size),
        np.empty(size, np.int64),
    )


#: The placeholder table a game's search without one takes (``Options.tabled`` False: the kernel
#: never reads or writes it).
_NO_TABLE = tuple(_table(0))


class _Budget(BudgetExceeded):
    def __init__(self, message: str, stats: SearchStats, by_level: LevelCounts | None = None):
        super().__init__(message)
        self.stats = stats
        self.by_level = by_level  # the counters per level where it stopped


class Iteration:
    """One iteration of iterative deepening on the kernel, as ``search.deepening.deepen`` runs
    a search: ``run()`` (a ``SearchResult``, or ``BudgetExceeded``), then ``stats()`` and
    ``by_level()`` where it finished or stopped."""

    def __init__(self, run: Any):
        self._run, self._stats, self._levels = run, SearchStats(), LevelCounts()

    def run(self) -> SearchResult:
        try:
            result = self._run()
        except _Budget as e:
            self._stats, self._levels = e.stats, e.by_level or LevelCounts()
            raise
        self._stats, self._levels = result.stats, result.by_level or LevelCounts()
        return result

    def stats(self) -> SearchStats:
        return self._stats

    def by_level(self) -> LevelCounts:
        return self._levels


def iteration_maker(spec: AlgorithmSpec, form_of: Any) -> Any:
    """``make`` for ``search.deepening.deepen`` on the kernel: each iteration's tree in the
    kernel's form (``form_of(tree)``), searched by ``spec`` with one kernel table kept across
    the iterations (the first starts it empty), as the Python engine keeps its table."""
    bits = _kernel_form(spec)[2].bits
    table = _table(bits) if bits else None
    started: list[bool] = []

    def make(tree: Any, *, node_budget: int | None = None, **_: Any) -> Any:
        keep = bool(started)
        started.append(True)
        return Iteration(
            lambda: execute(
                form_of(tree),
                spec,
                node_budget=node_budget,
                table=table,
                keep_table=keep,
            )
        )

    return make
