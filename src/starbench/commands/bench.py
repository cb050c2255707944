"""``starbench bench``: nodes per CPU second per algorithm and engine, against reference kernels.

On a fixed set of generated trees (uniform or dice outcomes, incremental values, generated order)
every algorithm runs on both engines.  Three reference kernels run beside them on the same
shapes, each named for what it does:

* the *minimum-work kernel* (``anchor``, the reference of the percentages): expectimax with the
  least work per node this design allows, recursive, one SplitMix64 round per node, a leaf's
  value by a constant modulo, a chance node's outcomes weighted by fixed probabilities inside
  its parent's loop: the per-node work of the reference kernel starbench's speed targets are
  stated against.  Checked side by side with that reference once, in one process, interleaved,
  CPU time (15 repeats, 2026-12-01, load about 0.7): 1.016, 0.997 and 0.998 of its speed on
  b5-c6-d4, b10-c10-d3 and b20-c21dice-d2 (within 5 %);
* the *minimum-work loop* (``ceiling``): the same kind of work as a loop over an explicit stack
  that evaluates leaves in place (no call per node), about twice the anchor's speed;
* the *bare* kernel: that loop with the generator's own hashing per node, as the engines
  compute it (``starbench.compiled.hashing``'s ``child`` and ``increment``: under generator
  version 1 six mixing rounds and a remainder per child, under version 2 one round and a
  multiply-shift), in numba and in pure Python: the floor for these trees, since every engine
  pays the generator's hashing.

Every shape is measured on trees of both generator versions (``tree.generator_version``), each
version against the same anchor and its own bare kernel: the report shows them side by side.

Measuring on a shared, noisy machine: time is CPU time of this process (``time.process_time``);
in every repeat each contender runs once, in an order rotated from repeat to repeat (so a burst
of load hits all of them); a contender's share of a reference is computed *within* each repeat
and the report gives the median of those per-repeat ratios with their range.  The compiled
engine is timed two ways: *per call* through ``starbench.search(RegularTree(spec, seed=0,
instance=i), name, engine="compiled")`` (tree construction and the Python around the kernel
included), and *kernel only* on prepared trees; a per-call section times one small search
both ways and the runner per instance.  The per-call searches are also measured *paired*, the
way a user checks a speed by hand (``paired``): in each of ``PAIRED_REPEATS`` repeats each
search runs right after the anchor, for the same CPU time, and its share is taken against that
anchor run alone.  The machine's load average is recorded before and
after.  Compile time is measured apart, in CPU time, in fresh processes with an empty and then a
warm numba cache, the kernel without a table and the table's specialization apart; the
search's own memory (peak RSS growth) in a fresh process on a lazy tree of depth 12 under a
node budget.  The process is pinned to one core where the OS allows it.
Writes ``bench.md`` and ``bench.json``.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from starbench.compiled.hashing import child as c_child
from starbench.compiled.hashing import divisor as c_divisor
from starbench.compiled.hashing import increment as c_increment
from starbench.errors import InputError
from starbench.experiment.timing import (
    MIN_REPEAT_SECONDS,
    PAIRED_REPEATS,
    interleaved,
    load_average,
    machine,
    paired,
    pin_one_core,
    source_state,
)
from starbench.trees.generators import GENERATORS
from starbench.trees.hashing import root_id, tree_seed
from starbench.trees.regular import RegularTreeSpec

#: (label, tree parameters): the benchmark's fixed trees.
SHAPES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("b5-c6-d4", dict(branching=5, chance_arity=6, depth=4)),
    ("b20-c21dice-d2", dict(branching=20, chance_arity=21, distribution="dice", depth=2)),
    ("b10-c10-d3", dict(branching=10, chance_arity=10, depth=3)),
)
#: The generator versions every shape is measured under (``trees.generators``).
VERSIONS: tuple[int, ...] = tuple(GENERATORS)
ALGOS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("expectimax", {}),
    ("star1", {}),
    ("star2", {}),
    ("star2.5-cyclic", {"k": 2}),
    ("star2.5-sequential", {"k": 2}),
)


# --------------------------------------------------------------------------- bare kernels
def bare_python(spec: RegularTreeSpec, seed: int, instance: int) -> tuple[float, int]:
    """Bare recursive expectimax over the generated tree (uniform outcomes, incremental values,
    the spec's generator version): (value, nodes)."""
    ts = tree_seed(seed, instance)
    g = GENERATORS[spec.generator_version]
    child_id, increment = g.child, g.increment
    kinds = [int(k) for k in spec.level_kinds]
    arities = spec.arities
    levels = len(kinds)
    r1 = spec.resolution + 1
    count = [0]

    def node(level: int, nid: int, ps: int) -> float:
        count[0] += 1
        if level == levels:
            return float(ps)
        n = arities[level]
        kind = kinds[level]
        acc = 0.0 if kind == 2 else None
        for j in range(n):
            cid = child_id(nid, j)
            v = node(level + 1, cid, ps + increment(ts, cid, r1))
            if kind == 2:
                acc += v / n
            elif acc is None or (v > acc if kind == 0 else v < acc):
                acc = v
        return acc

    v = node(0, root_id(ts), 0)
    return v, count[0]


@njit(cache=True)
def _bare_compiled(levels, kinds, arities, ts, rid, r1, version):
    """The bare loop compiled: an explicit stack, expectimax, uniform outcomes."""
    r1d = c_divisor(r1)
    D = levels + 1
    ids = np.zeros(D, np.uint64)
    ps = np.zeros(D, np.int64)
    j = np.zeros(D, np.int64)
    acc = np.zeros(D)
    ids[0] = rid
    nodes = 1
    d = 0
    acc[0] = 0.0 if kinds[0] == 2 else (-np.inf if kinds[0] == 0 else np.inf)
    ret = 0.0
    while d >= 0:
        if j[d] > 0:
            v = ret
            k = kinds[d]
            if k == 2:
                acc[d] += v / arities[d]
            elif (k == 0 and v > acc[d]) or (k == 1 and v < acc[d]):
                acc[d] = v
        if j[d] < arities[d]:
            cid = c_child(version, ids[d], np.uint64(j[d]))
            cps = ps[d] + np.int64(c_increment(version, ts, cid, r1d))
            j[d] += 1
            nodes += 1
            if d + 1 == levels:
                ret = float(cps)
                continue
            d += 1
            ids[d] = cid
            ps[d] = cps
            j[d] = 0
            acc[d] = 0.0 if kinds[d] == 2 else (-np.inf if kinds[d] == 0 else np.inf)
            continue
        ret = acc[d]
        d -= 1
    return ret, nodes


def bare_compiled(spec: RegularTreeSpec, seed: int, instance: int) -> tuple[float, int]:
    ts = tree_seed(seed, instance)
    kinds = np.array([int(k) for k in spec.level_kinds], np.int64)
    arities = np.array(spec.arities, np.int64)
    return _bare_compiled(
        len(kinds),
        kinds,
        arities,
        np.uint64(ts),
        np.uint64(root_id(ts)),
        np.uint64(spec.resolution + 1),
        int(spec.generator_version),
    )


@njit(cache=True)
def _sm64(x):
    """One SplitMix64 round."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _ceiling(levels, kinds, arities, probs, rid):
    """The ceiling kernel: expectimax with one hash round per node and nothing else (a leaf's
    value is its id modulo a constant; chance children weighted by ``probs[level]``)."""
    D = levels + 1
    ids = np.zeros(D, np.uint64)
    j = np.zeros(D, np.int64)
    acc = np.zeros(D)
    ids[0] = rid
    nodes = 1
    d = 0
    acc[0] = 0.0 if kinds[0] == 2 else (-np.inf if kinds[0] == 0 else np.inf)
    ret = 0.0
    while d >= 0:
        if j[d] > 0:
            k = kinds[d]
            if k == 2:
                acc[d] += probs[d, j[d] - 1] * ret
            elif (k == 0 and ret > acc[d]) or (k == 1 and ret < acc[d]):
                acc[d] = ret
        if j[d] < arities[d]:
            cid = _sm64(ids[d] ^ np.uint64(j[d] + 1))
            j[d] += 1
            nodes += 1
            if d + 1 == levels:
                ret = float(cid % np.uint64(201))
                continue
            d += 1
            ids[d] = cid
            j[d] = 0
            acc[d] = 0.0 if kinds[d] == 2 else (-np.inf if kinds[d] == 0 else np.inf)
            continue
        ret = acc[d]
        d -= 1
    return ret, nodes


@njit(cache=False)  # recursive: compiled in the bench's process, not cached
def _anchor(nid, plies, maxing, b, probs, count):
    """The minimum-work kernel, recursive, on an alternating tree (``plies`` decision levels of
    ``b`` moves, MAX and MIN in turn, a chance node of ``len(probs)`` outcomes between two):
    one SplitMix64 round per node (a move's child ``mix(id ^ (i + 1))``, an outcome's
    ``mix(id ^ (j + 17))``), a leaf's value ``mix(id) % 201 - 100``, a chance node summed with
    fixed probabilities inside its parent's loop, one call per decision node and leaf.  The
    work of the reference kernel that starbench's speed targets are stated against (see the
    module docstring for the side-by-side check)."""
    count[0] += 1
    if plies == 0:
        return float(_sm64(nid) % np.uint64(201)) - 100.0
    best = -1e18 if maxing else 1e18
    for i in range(b):
        cid = _sm64(nid ^ np.uint64(i + 1))
        if plies == 1:
            v = _anchor(cid, 0, not maxing, b, probs, count)
        else:  # a chance child, summed here
            count[0] += 1
            v = 0.0
            for j in range(probs.shape[0]):
                oid = _sm64(cid ^ np.uint64(j + 17))
                v += probs[j] * _anchor(oid, plies - 1, not maxing, b, probs, count)
        if (maxing and v > best) or ((not maxing) and v < best):
            best = v
    return best


@functools.lru_cache(maxsize=16)
def _ceiling_shape(spec: RegularTreeSpec) -> tuple[int, Any, Any, Any]:
    """(levels, kinds, arities, probabilities by level) of a shape, computed once."""
    from starbench.trees.regular import RegularTree

    tree = RegularTree(spec, 0, 0)
    kinds = np.array([int(k) for k in spec.level_kinds], np.int64)
    arities = np.array(spec.arities, np.int64)
    probs = np.zeros((len(kinds), max(spec.arities)))
    node = tree.root
    for level, kind in enumerate(kinds):  # the first node of each level: its probabilities
        if kind == 2:
            probs[level, : arities[level]] = [float(p) for p in tree.probabilities(node)]
        node = tree.children(node)[0]
    return len(kinds), kinds, arities, probs


def ceiling(spec: RegularTreeSpec, seed: int, instance: int) -> tuple[float, int]:
    """The ceiling kernel on the shape of ``spec`` (its levels, arities and outcome
    probabilities; the values are the kernel's own): (value, nodes)."""
    return _ceiling(*_ceiling_shape(spec), np.uint64(tree_seed(seed, instance)))


def anchor_args(spec: RegularTreeSpec) -> tuple[int, int, Any]:
    """(decision plies, moves, outcome probabilities) of an alternating shape with a decision
    root, for ``_anchor`` (``InputError`` where the shape is not one)."""
    levels, kinds, arities, probs = _ceiling_shape(spec)
    decision = [lv for lv in range(levels) if kinds[lv] != 2]
    chance = [lv for lv in range(levels) if kinds[lv] == 2]
    if (
        kinds[0] == 2
        or len({int(arities[lv]) for lv in decision}) != 1
        or chance != [lv + 1 for lv in decision[:-1]]
    ):
        raise InputError(f"the minimum-work kernel needs an alternating tree, not {spec}")
    c = int(arities[chance[0]]) if chance else 1
    outcome = probs[chance[0], :c] if chance else np.ones(1)
    return len(decision), int(arities[0]), np.ascontiguousarray(outcome)


def anchor(spec: RegularTreeSpec, seed: int, instance: int) -> tuple[float, int]:
    """The minimum-work kernel (``_anchor``) on the shape of ``spec``: (value, nodes)."""
    plies, b, probs = anchor_args(spec)
    count = np.zeros(1, np.int64)
    value = _anchor(np.uint64(tree_seed(seed, instance)), plies, True, b, probs, count)
    return value, int(count[0])


# --------------------------------------------------------------------------- measuring
# (the harness: ``experiment.timing``)
def measure_shape(
    label: str,
    params: dict[str, Any],
    instances: int,
    repeats: int,
    python_budget: float,
    version: int = 1,
    paired_repeats: int = PAIRED_REPEATS,
) -> list[dict[str, Any]]:
    """Every contender on instances of one shape under generator ``version``; the per-call
    searches also ``paired`` with the anchor (``paired_repeats``; 0: not)."""
    from starbench.compiled.engine import CompiledTree, execute
    from starbench.engines import search
    from starbench.search.registry import resolve
    from starbench.trees import RegularTree

    spec = RegularTreeSpec(**params, generator_version=version)
    cts = [CompiledTree.from_regular(spec, 0, i) for i in range(instances)]
    plies, b, probs = anchor_args(spec)
    roots = [np.uint64(tree_seed(0, i)) for i in range(instances)]
    count = np.zeros(1, np.int64)

    def anchor_nodes(i: int) -> int:
        count[0] = 0
        _anchor(roots[i], plies, True, b, probs, count)
        return int(count[0])

    anchor_nodes(0), ceiling(spec, 0, 0), bare_compiled(spec, 0, 0)  # compile
    compiled = {
        "anchor": anchor_nodes,
        "ceiling": lambda i: ceiling(spec, 0, i)[1],
        "bare": lambda i: bare_compiled(spec, 0, i)[1],
    }
    for algo, p in ALGOS:
        name = algo + (f":k={p['k']}" if "k" in p else "")
        request = resolve(algo, p)
        compiled[f"call {name}"] = lambda i, a=algo, p=p: (
            search(RegularTree(spec, seed=0, instance=i), a, engine="compiled", **p).stats.nodes
        )
        compiled[f"kernel {name}"] = lambda i, r=request: execute(cts[i], r).stats.nodes
    fast = interleaved(compiled, instances, repeats, "anchor", "bare")
    # the user's way: the anchor on roots 1, 2, ... (as the reference script runs it), each
    # search through the public API on the instances in turn, paired with the anchor
    one = np.zeros(1, np.int64)

    def anchor_root(j: int) -> int:
        one[0] = 0
        _anchor(np.uint64(j + 1), plies, True, b, probs, one)
        return int(one[0])

    calls = {
        name: lambda j, f=compiled[f"call {name}"]: f(j % instances)
        for name in (a + (f":k={p['k']}" if "k" in p else "") for a, p in ALGOS)
    }
    by_hand = paired(anchor_root, calls, paired_repeats) if paired_repeats > 0 else {}
    # the Python engine: fewer repeats (about python_budget seconds per contender), against
    # its own bare kernel
    pts = [RegularTree(spec, 0, i) for i in range(instances)]
    py_reps = max(1, min(repeats, int(python_budget / max(instances * spec.size / 3e5, 1e-3)) - 1))
    python = {"bare": lambda i: bare_python(spec, 0, i)[1]}
    for algo, p in ALGOS:
        name = algo + (f":k={p['k']}" if "k" in p else "")
        python[name] = lambda i, a=algo, p=p: search(pts[i], a, engine="python", **p).stats.nodes
    slow = interleaved(python, instances, py_reps, "bare")
    rows = []

    def add(kind: str, algo: str, engine: str, m: dict[str, float], **extra: Any) -> None:
        rows.append(
            {
                "tree": label,
                "generator": version,
                "tree_nodes": spec.size,
                "kind": kind,
                "algorithm": algo,
                "engine": engine,
                **m,
                **extra,
            }
        )

    add("anchor", "expectimax", "compiled", fast["anchor"])
    add("ceiling", "expectimax", "compiled", fast["ceiling"])
    add("bare", "expectimax", "compiled", fast["bare"])
    add("bare", "expectimax", "python", slow["bare"], repeats=py_reps)
    for algo, p in ALGOS:
        name = algo + (f":k={p['k']}" if "k" in p else "")
        add("engine", name, "compiled", fast[f"call {name}"], timing="per call")
        if name in by_hand:
            rows[-1]["paired"] = {**by_hand[name], "repeats": paired_repeats}
        add("kernel", name, "compiled", fast[f"kernel {name}"], timing="kernel only")
        add("engine", name, "python", slow[name], repeats=py_reps)
    return rows


#: The default experiment's algorithms (``conf/algorithms/default.yaml``; a test checks).
DEFAULT_ALGORITHMS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("expectimax", {}),
    ("star1", {}),
    ("star2", {}),
    ("star2.5-cyclic", {"k": 2}),
    ("star2.5-cyclic", {"k": 5}),
    ("star2.5-sequential", {"k": 2}),
    ("star2.5-sequential", {"k": 5}),
)

#: The per-call section's tree: 186 nodes (MAX, chance, MIN; 5 moves, 6 outcomes).
PER_CALL_TREE = dict(branching=5, chance_arity=6, depth=2)


def _cpu_per_call(fn: Any, calls: int) -> float:
    """CPU seconds per call of ``fn()``, over ``calls`` calls."""
    t0 = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - t0) / calls


#: Calls of the API and kernel per repeat in ``measure_per_call`` (the runner's: a tenth).
PER_CALL_CALLS = 2000


def measure_per_call(repeats: int = 9, calls: int | None = None) -> dict[str, Any]:
    """CPU time per call on a small tree (``PER_CALL_TREE``): a Star2 search through the public
    API (the tree built per call), the same search on a prepared tree (kernel only: the engine's
    ``run`` on a ``CompiledTree``), interleaved per repeat; and the runner's CPU time per
    instance of the default experiment's 7 searches with ``engine=compiled``
    (``experiment.compute.compute_instance``: the rows included), against the kernel-only time
    of the same 7 searches."""
    from starbench.compiled.engine import CompiledTree, execute
    from starbench.engines import search
    from starbench.experiment.compute import compute_instance
    from starbench.experiment.settings import RunSettings
    from starbench.search.registry import resolve
    from starbench.trees import RegularTree

    calls = PER_CALL_CALLS if calls is None else calls
    spec = RegularTreeSpec(**PER_CALL_TREE)
    ct = CompiledTree.from_regular(spec, 0, 0)
    star2 = resolve("star2")
    api = lambda: search(RegularTree(spec, 0, 0), "star2", engine="compiled")  # noqa: E731
    kernel = lambda: execute(ct, star2)  # noqa: E731
    todo = tuple(resolve(a, p) for a, p in DEFAULT_ALGORITHMS)
    settings = RunSettings(tree=spec, algorithms=todo, engine="compiled", progress=False)
    runner = lambda: compute_instance(settings, 0, todo)  # noqa: E731
    seven = lambda: [execute(ct, a) for a in todo]  # noqa: E731
    for f in (api, kernel, runner, seven):
        f()  # warm: compile, caches
    got: dict[str, list[float]] = {"api": [], "kernel": [], "runner": [], "seven": []}
    fns = {"api": api, "kernel": kernel, "runner": runner, "seven": seven}
    per = {"api": calls, "kernel": calls, "runner": calls // 10, "seven": calls // 10}
    names = list(fns)
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            got[name].append(_cpu_per_call(fns[name], per[name]))
    med = {k: statistics.median(v) for k, v in got.items()}
    ratios = [a / k for a, k in zip(got["api"], got["kernel"], strict=True)]
    overhead = [a - k for a, k in zip(got["runner"], got["seven"], strict=True)]
    return {
        "tree_nodes": spec.size,
        "algorithms": [a.label for a in todo],
        "api_us": 1e6 * med["api"],
        "kernel_us": 1e6 * med["kernel"],
        "api_over_kernel": statistics.median(ratios),
        "api_over_kernel_range": [min(ratios), max(ratios)],
        "runner_ms": 1e3 * med["runner"],
        "runner_kernels_ms": 1e3 * med["seven"],
        "runner_overhead_ms": 1e3 * statistics.median(overhead),
        "repeats": repeats,
    }


_COMPILE_PROBE = """
import time
c = time.process_time
t0 = c()
import starbench.compiled.engine as e
t1 = c()
e.warm_up({False})  # the kernel without a table: what a first search without one compiles
t2 = c()
e.warm_up({True})  # the table's specialization, compiled when a table is first used
t3 = c()
from starbench.commands.bench import bare_compiled
from starbench.trees.regular import RegularTreeSpec
t4 = c()
bare_compiled(RegularTreeSpec(), 0, 0)
t5 = c()
print(t1 - t0, t2 - t1, t3 - t2, t5 - t4)
"""

_MEMORY_PROBE = """
import sys
from starbench import RegularTree, RegularTreeSpec, search
from starbench.compiled.engine import CompiledTree, execute, warm_up
from starbench.errors import BudgetExceeded


def status(key):
    for line in open("/proc/self/status"):  # Linux only
        if line.startswith(key):
            return int(line.split()[1]) / 1024.0


warm_up()
spec = RegularTreeSpec(branching=10, chance_arity=10, depth=12)
engine = sys.argv[1]
open("/proc/self/clear_refs", "w").write("5")  # reset the peak to the current RSS
before = status("VmRSS:")
try:
    if engine == "compiled":
        execute(CompiledTree.from_regular(spec, 0, 0), "star2", node_budget=5_000_000)
    else:
        search(RegularTree(spec, 0, 0), "star2", node_budget=300_000)
except BudgetExceeded:
    pass
print(status("VmHWM:") - before)
"""


def measure_compile(cold_runs: int = 3) -> dict[str, Any]:
    """CPU seconds to compile the kernel with an empty numba cache (median and range of
    ``cold_runs`` fresh processes, each with its own cache folder): without a table (a first
    search without one), then the table's specialization; and to load each from the warm cache
    in a second fresh process."""
    cold, warm = [], []
    for _ in range(cold_runs):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            runs = []
            for _ in range(2):
                p = subprocess.run(
                    [sys.executable, "-c", _COMPILE_PROBE],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=True,
                )
                runs.append([float(x) for x in p.stdout.split()])
        cold.append(runs[0])
        warm.append(runs[1])

    def med(rows: list[list[float]], i: int) -> float:
        return statistics.median(r[i] for r in rows)

    no_table = sorted(r[1] for r in cold)
    return {
        "import_s": med(warm, 0),
        "no_table_cold_s": med(cold, 1),
        "no_table_cold_min_s": no_table[0],
        "no_table_cold_max_s": no_table[-1],
        "table_cold_s": med(cold, 2),
        "no_table_cached_s": med(warm, 1),
        "table_cached_s": med(warm, 2),
        "bare_kernel_cold_s": med(cold, 3),
        "bare_kernel_cached_s": med(warm, 3),
        "cold_runs": [r[1:3] for r in cold],
        "clock": "CPU",
    }


def measure_memory() -> dict[str, float]:
    res = {}
    for engine in ("compiled", "python"):
        p = subprocess.run(
            [sys.executable, "-c", _MEMORY_PROBE, engine], capture_output=True, text=True
        )
        res[f"{engine}_search_mb"] = float(p.stdout.strip()) if p.returncode == 0 else float("nan")
    return res


def bench(
    out: Path,
    instances: int = 5,
    repeats: int = 9,
    python_budget: float = 10.0,
    shapes: tuple[tuple[str, dict[str, Any]], ...] = SHAPES,
    compile_and_memory: bool = True,
    versions: tuple[int, ...] = VERSIONS,
    paired_repeats: int = PAIRED_REPEATS,
) -> dict[str, Any]:
    pin = pin_one_core()
    from starbench.compiled.engine import warm_up

    warm_up()
    load_before = load_average()
    rows = []
    for label, params in shapes:
        for version in versions:
            rows.extend(
                measure_shape(
                    label, params, instances, repeats, python_budget, version, paired_repeats
                )
            )
    per_call = measure_per_call(repeats)
    result = {
        "machine": {**machine(), "affinity": pin},
        "load": {"before": load_before, "after": load_average()},
        "instances": instances,
        "repeats": repeats,
        "rows": rows,
        "per_call": per_call,
        "date": time.strftime("%Y-%m-%d"),
        "source": source_state(),
    }
    if compile_and_memory:
        result["compile"] = measure_compile()
        result["memory"] = measure_memory()
    out.mkdir(parents=True, exist_ok=True)
    from starbench.ground.files import atomic_write_text

    atomic_write_text(out / "bench.json", json.dumps(result, indent=1))
    atomic_write_text(out / "bench.md", markdown(result))
    return result


def _algorithms(rows: list[dict[str, Any]], tree: str, version: int) -> list[str]:
    """The algorithms timed on ``tree`` under ``version``, in the report's order."""
    return [
        r["algorithm"]
        for r in rows
        if r["tree"] == tree
        and r.get("generator", 1) == version
        and r["kind"] == "engine"
        and r["engine"] == "compiled"
    ]


def _pct(r: dict[str, Any]) -> str:
    return f"{100 * r['ratio']:.0f} ({100 * r['ratio_min']:.0f}-{100 * r['ratio_max']:.0f})"


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    load = result.get("load") or {}
    shown = {k: "/".join(f"{x:.2f}" for x in v) for k, v in load.items() if v}
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores ({m['affinity']}), Python "
        f"{m['python']}, numpy {m['numpy']}, numba {m['numba']}; {result['date']}; "
        f"{result.get('source', 'source not recorded')}; load average "
        f"(1/5/15 min) {shown.get('before', '?')} before, {shown.get('after', '?')} after.",
        f"Nodes per CPU second, median of {result['repeats']} repeats over "
        f"{result['instances']} instances; contenders interleaved in every repeat.  `% anchor`: "
        f"the median over repeats of the contender's rate divided by the minimum-work kernel's "
        f"in the same repeat (range in brackets); `% bare`: the same against the bare kernel "
        f"(expectimax with the generator's own hashing per node: the floor for these trees); "
        f"*per call* goes through "
        f'`starbench.search(RegularTree(...), name, engine="compiled")`, *kernel* runs on '
        f"prepared trees; the Python engine is compared with its own bare kernel (pure Python, "
        f"starbench's hashing).",
        "",
        "| tree | gen | algorithm | per call M nodes/s | % anchor | % bare | kernel M nodes/s "
        "| % anchor | % bare | python M nodes/s | % python bare |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = result["rows"]
    gen = lambda r: r.get("generator", 1)  # noqa: E731  (reports before versions: 1)
    by = {(r["tree"], gen(r), r["kind"], r["algorithm"], r["engine"]): r for r in rows}
    groups = list(dict.fromkeys((r["tree"], gen(r)) for r in rows))
    for t, v in groups:
        an = by[(t, v, "anchor", "expectimax", "compiled")]
        ce = by[(t, v, "ceiling", "expectimax", "compiled")]
        bc = by[(t, v, "bare", "expectimax", "compiled")]
        bp = by[(t, v, "bare", "expectimax", "python")]
        lines.append(
            f"| {t} | {v} | minimum-work kernel (anchor) | {an['nodes_per_s'] / 1e6:.1f} | 100 | "
            f"{_pct(an['vs_bare'])} | | | | | |"
        )
        lines.append(
            f"| {t} | {v} | minimum-work loop | {ce['nodes_per_s'] / 1e6:.1f} | {_pct(ce)} | "
            f"{_pct(ce['vs_bare'])} | | | | | |"
        )
        lines.append(
            f"| {t} | {v} | bare (generator's hashing) | {bc['nodes_per_s'] / 1e6:.1f} | "
            f"{_pct(bc)} | 100 | | | | {bp['nodes_per_s'] / 1e6:.2f} | 100 |"
        )
        for a in _algorithms(rows, t, v):
            c = by[(t, v, "engine", a, "compiled")]
            k = by[(t, v, "kernel", a, "compiled")]
            p = by[(t, v, "engine", a, "python")]
            lines.append(
                f"| {t} | {v} | {a} | {c['nodes_per_s'] / 1e6:.1f} | {_pct(c)} | "
                f"{_pct(c['vs_bare'])} | {k['nodes_per_s'] / 1e6:.1f} | {_pct(k)} | "
                f"{_pct(k['vs_bare'])} | {p['nodes_per_s'] / 1e6:.2f} | {_pct(p)} |"
            )
    by_hand = [r for r in rows if "paired" in r]
    if by_hand:  # the user's way, paired with the anchor (``paired``)
        reps = by_hand[0]["paired"]["repeats"]
        lines += [
            "",
            "Per node, the way a user measures it (`paired`): each search through "
            '`starbench.search(RegularTree(spec, seed=0, instance=i), name, engine="compiled")`, '
            "the tree built in the call, on the instances in turn, for "
            f"{MIN_REPEAT_SECONDS:g} s of CPU right after the minimum-work kernel ran as long "
            "on roots 1, 2, ...; `% anchor, paired`: the median over "
            f"{reps} repeats of the search's rate over the kernel's just before (range):",
            "",
            "| tree | gen | algorithm | % anchor, paired |",
            "|---|---:|---|---:|",
        ]
        for r in by_hand:
            lines.append(f"| {r['tree']} | {gen(r)} | {r['algorithm']} | {_pct(r['paired'])} |")
    versions = sorted({v for _, v in groups})
    if len(versions) > 1:  # the versions side by side: per call, % of the anchor
        lines += [
            "",
            "Per call, % of the minimum-work kernel (median over repeats), by generator "
            "version, side by side:",
            "",
            "| tree | algorithm | " + " | ".join(f"version {v}" for v in versions) + " |",
            "|---|---|" + "---:|" * len(versions),
        ]
        for t in dict.fromkeys(t for t, _ in groups):
            for a in _algorithms(rows, t, versions[0]):
                cells = [
                    f"{100 * by[(t, v, 'engine', a, 'compiled')]['ratio']:.0f}"
                    if (t, v, "engine", a, "compiled") in by
                    else ""
                    for v in versions
                ]
                lines.append(f"| {t} | {a} | " + " | ".join(cells) + " |")
    if "per_call" in result:
        pc = result["per_call"]
        lo, hi = pc["api_over_kernel_range"]
        lines += [
            "",
            f"Per call (CPU time, median of {pc['repeats']} interleaved repeats; a "
            f"{pc['tree_nodes']}-node tree, MAX, chance, MIN): Star2 through the public API "
            f"{pc['api_us']:.1f} us, on a prepared tree (kernel only) {pc['kernel_us']:.1f} us "
            f"({pc['api_over_kernel']:.2f}x, {lo:.2f}-{hi:.2f}x); the runner "
            f"{pc['runner_ms']:.2f} ms CPU per instance of the default experiment's "
            f"{len(pc['algorithms'])} searches with `engine=compiled`, of which the searches on "
            f"a prepared tree take {pc['runner_kernels_ms']:.2f} ms.",
        ]
    if "compile" in result:
        c = result["compile"]
        runs = len(c.get("cold_runs", [])) or 3
        lines += [
            "",
            f"Compile (CPU time, median of {runs} fresh processes with an empty numba cache): "
            f"the kernel without a table (a first search without one) "
            f"{c['no_table_cold_s']:.2f} s ({c['no_table_cold_min_s']:.2f}-"
            f"{c['no_table_cold_max_s']:.2f} s), the table's specialization (compiled when a "
            f"table is first used) {c['table_cold_s']:.2f} s more; from the cache in a fresh "
            f"process {c['no_table_cached_s']:.2f} s and {c['table_cached_s']:.2f} s (import "
            f"{c['import_s']:.2f} s).",
        ]
    if "memory" in result:
        mm = result["memory"]
        lines += [
            f"Search memory on a lazy tree of depth 12 under a node budget (peak RSS "
            f"growth): compiled {mm['compiled_search_mb']:.1f} MB, python "
            f"{mm['python_search_mb']:.1f} MB."
        ]
    return "\n".join(lines) + "\n"
