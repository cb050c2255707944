"""``starbench bench``: nodes per second per algorithm and engine, against bare expectimax kernels.

On a fixed set of generated trees (uniform outcomes, incremental values, generated order) every
algorithm runs on both engines; the figure is nodes entered per second of search wall time,
the median over repeats (each repeat searches the same instances).  Beside them, in the same run,
a *bare* expectimax kernel over the same hash-generated tree shape (pure Python recursion, and
the same loop compiled with numba) is the ceiling: it does the same hashing per node and nothing
else.  Compile time is measured apart, in fresh processes with an empty and then a warm numba
cache.  The search's own memory (peak RSS growth past imports and warm-up) is measured in a
fresh process on a lazy tree of depth 12 under a node budget.  The process is pinned to one
core where the OS allows it.  Writes ``bench.md`` and ``bench.json``.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from starbench.compiled.hashing import P_INCREMENT
from starbench.compiled.hashing import draw as c_draw
from starbench.compiled.hashing import mix as c_mix
from starbench.trees.hashing import PURPOSE_INCREMENT, child_id, draw, root_id, tree_seed
from starbench.trees.regular import RegularTreeSpec

#: (label, tree parameters): the benchmark's fixed trees.
SHAPES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("b5-c6-d4", dict(branching=5, chance_arity=6, depth=4)),
    ("b20-c21dice-d2", dict(branching=20, chance_arity=21, distribution="dice", depth=2)),
    ("b10-c10-d3", dict(branching=10, chance_arity=10, depth=3)),
)
ALGOS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("expectimax", {}),
    ("star1", {}),
    ("star2", {}),
    ("star2.5-cyclic", {"k": 2}),
    ("star2.5-sequential", {"k": 2}),
)


# --------------------------------------------------------------------------- bare kernels
def bare_python(spec: RegularTreeSpec, seed: int, instance: int) -> tuple[float, int]:
    """Bare recursive expectimax over the generated tree (uniform outcomes, incremental values):
    (value, nodes)."""
    ts = tree_seed(seed, instance)
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
            v = node(level + 1, cid, ps + draw(ts, cid, PURPOSE_INCREMENT) % r1)
            if kind == 2:
                acc += v / n
            elif acc is None or (v > acc if kind == 0 else v < acc):
                acc = v
        return acc

    v = node(0, root_id(ts), 0)
    return v, count[0]


@njit(cache=True)
def _bare_compiled(levels, kinds, arities, ts, rid, r1):
    """The bare loop compiled: an explicit stack, expectimax, uniform outcomes."""
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
            cid = c_mix(ids[d], np.uint64(j[d]))
            cps = ps[d] + np.int64(c_draw(ts, cid, P_INCREMENT) % r1)
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
    )


# --------------------------------------------------------------------------- measuring
def _pin_one_core() -> str:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):
        return "not pinned"


MIN_REPEAT_SECONDS = 0.25


def _median_rate(fn, repeats: int) -> tuple[float, int]:
    """Median nodes/s of ``fn() -> (nodes, seconds)`` over repeats, and the nodes of one call.

    A repeat calls ``fn`` as often as it takes to measure at least ``MIN_REPEAT_SECONDS`` of
    search (calibrated on a first call), so millisecond searches are not timed one by one."""
    nodes, secs = fn()
    inner = (
        max(1, int(MIN_REPEAT_SECONDS / max(secs, 1e-9)) + 1) if secs < MIN_REPEAT_SECONDS else 1
    )
    rates = []
    for _ in range(repeats):
        total_nodes, total_secs = 0, 0.0
        for _ in range(inner):
            n, t = fn()
            total_nodes += n
            total_secs += t
        rates.append(total_nodes / max(total_secs, 1e-12))
    return statistics.median(rates), nodes


def measure_shape(
    label: str, params: dict[str, Any], instances: int, repeats: int, python_budget: float
) -> list[dict[str, Any]]:
    from starbench import RegularTree, search
    from starbench.compiled.engine import CompiledTree, run

    spec = RegularTreeSpec(**params)
    rows = []

    def add(kind: str, algo: str, engine: str, rate: float, nodes: int) -> None:
        rows.append(
            {
                "tree": label,
                "tree_nodes": spec.size,
                "kind": kind,
                "algorithm": algo,
                "engine": engine,
                "nodes_per_s": rate,
                "nodes": nodes,
            }
        )

    def timed(f):
        def go():
            total_nodes, total_secs = 0, 0.0
            for i in range(instances):
                n, s = f(i)
                total_nodes += n
                total_secs += s
            return total_nodes, total_secs

        return go

    def bare_c(i):
        t0 = time.perf_counter()
        _, n = bare_compiled(spec, 0, i)
        return n, time.perf_counter() - t0

    def bare_p(i):
        t0 = time.perf_counter()
        _, n = bare_python(spec, 0, i)
        return n, time.perf_counter() - t0

    bare_compiled(spec, 0, 0)  # compile / load outside timing
    add("bare", "expectimax", "compiled", *_median_rate(timed(bare_c), repeats))
    # the Python engine runs fewer repeats: about python_budget seconds per algorithm
    py_reps = max(1, min(repeats, int(python_budget / max(instances * spec.size / 3e5, 1e-3)) - 1))
    add("bare", "expectimax", "python", *_median_rate(timed(bare_p), py_reps))
    cts = [CompiledTree.from_regular(spec, 0, i) for i in range(instances)]
    pts = [RegularTree(spec, 0, i) for i in range(instances)]
    for algo, p in ALGOS:

        def comp(i, algo=algo, p=p):
            r = run(cts[i], algo, p)
            return r.stats.nodes, r.seconds

        def pyth(i, algo=algo, p=p):
            r = search(pts[i], algo, **p)
            return r.stats.nodes, r.seconds

        name = algo + (f":k={p['k']}" if "k" in p else "")
        add("engine", name, "compiled", *_median_rate(timed(comp), repeats))
        add("engine", name, "python", *_median_rate(timed(pyth), py_reps))
    return rows


_COMPILE_PROBE = """
import time, sys
t0 = time.perf_counter()
import starbench.compiled.engine as e
t1 = time.perf_counter()
w = e.warm_up()
from starbench.bench import bare_compiled
from starbench.trees.regular import RegularTreeSpec
t2 = time.perf_counter()
bare_compiled(RegularTreeSpec(), 0, 0)
t3 = time.perf_counter()
print(t1 - t0, w, t3 - t2)
"""

_MEMORY_PROBE = """
import sys
from starbench import RegularTree, RegularTreeSpec, search
from starbench.compiled.engine import CompiledTree, run, warm_up
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
        run(CompiledTree.from_regular(spec, 0, 0), "star2", node_budget=5_000_000)
    else:
        search(RegularTree(spec, 0, 0), "star2", node_budget=300_000)
except BudgetExceeded:
    pass
print(status("VmHWM:") - before)
"""


def measure_compile(cold_runs: int = 3) -> dict[str, Any]:
    """Kernel compile time with an empty numba cache (median and range of ``cold_runs`` fresh
    processes, each with its own cache folder), and load time with a warm cache."""
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
    kernel_cold = sorted(r[1] for r in cold)
    return {
        "import_s": statistics.median(r[0] for r in warm),
        "search_kernel_cold_s": statistics.median(kernel_cold),
        "search_kernel_cold_min_s": kernel_cold[0],
        "search_kernel_cold_max_s": kernel_cold[-1],
        "search_kernel_cached_s": statistics.median(r[1] for r in warm),
        "bare_kernel_cold_s": statistics.median(r[2] for r in cold),
        "bare_kernel_cached_s": statistics.median(r[2] for r in warm),
        "cold_runs": [r[1] for r in cold],
    }


def measure_memory() -> dict[str, float]:
    res = {}
    for engine in ("compiled", "python"):
        p = subprocess.run(
            [sys.executable, "-c", _MEMORY_PROBE, engine], capture_output=True, text=True
        )
        res[f"{engine}_search_mb"] = float(p.stdout.strip()) if p.returncode == 0 else float("nan")
    return res


def machine() -> dict[str, Any]:
    import numba

    from starbench.experiment.metadata import cpu_model

    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "platform": platform.platform(),
    }


def bench(
    out: Path,
    instances: int = 5,
    repeats: int = 9,
    python_budget: float = 10.0,
    shapes: tuple[tuple[str, dict[str, Any]], ...] = SHAPES,
    compile_and_memory: bool = True,
) -> dict[str, Any]:
    pin = _pin_one_core()
    from starbench.compiled.engine import warm_up

    warm_up()
    rows = []
    for label, params in shapes:
        rows.extend(measure_shape(label, params, instances, repeats, python_budget))
    result = {
        "machine": {**machine(), "affinity": pin},
        "instances": instances,
        "repeats": repeats,
        "rows": rows,
        "date": time.strftime("%Y-%m-%d"),
    }
    if compile_and_memory:
        result["compile"] = measure_compile()
        result["memory"] = measure_memory()
    out.mkdir(parents=True, exist_ok=True)
    from starbench.experiment.storage import atomic_write_text

    atomic_write_text(out / "bench.json", json.dumps(result, indent=1))
    atomic_write_text(out / "bench.md", markdown(result))
    return result


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores ({m['affinity']}), Python "
        f"{m['python']}, numpy {m['numpy']}, numba {m['numba']}; {result['date']}.",
        f"Median nodes/s over {result['repeats']} repeats of {result['instances']} "
        f"instances; `% bare` is the share of the bare expectimax kernel of the same "
        f"engine on the same tree.",
        "",
        "| tree | algorithm | compiled M nodes/s | % bare | python M nodes/s | % bare |",
        "|---|---|---:|---:|---:|---:|",
    ]
    by = {}
    for r in result["rows"]:
        by[(r["tree"], r["kind"], r["algorithm"], r["engine"])] = r["nodes_per_s"]
    trees = list(dict.fromkeys(r["tree"] for r in result["rows"]))
    for t in trees:
        bc = by[(t, "bare", "expectimax", "compiled")]
        bp = by[(t, "bare", "expectimax", "python")]
        lines.append(f"| {t} | bare expectimax | {bc / 1e6:.1f} | 100 | {bp / 1e6:.2f} | 100 |")
        algos = [
            r["algorithm"]
            for r in result["rows"]
            if r["tree"] == t and r["kind"] == "engine" and r["engine"] == "compiled"
        ]
        for a in algos:
            c = by[(t, "engine", a, "compiled")]
            p = by[(t, "engine", a, "python")]
            lines.append(
                f"| {t} | {a} | {c / 1e6:.1f} | {100 * c / bc:.0f} | {p / 1e6:.2f} | "
                f"{100 * p / bp:.0f} |"
            )
    if "compile" in result:
        c = result["compile"]
        lines += [
            "",
            f"Compile (one kernel serves every algorithm): "
            f"{c['search_kernel_cold_s']:.2f} s with an empty numba cache (median of "
            f"{len(c.get('cold_runs', [])) or 3} fresh processes, "
            f"{c['search_kernel_cold_min_s']:.2f}-{c['search_kernel_cold_max_s']:.2f} s), "
            f"{c['search_kernel_cached_s']:.2f} s per process with the cache "
            f"(import {c['import_s']:.2f} s).",
        ]
    if "memory" in result:
        mm = result["memory"]
        lines += [
            f"Search memory on a lazy tree of depth 12 under a node budget (peak RSS "
            f"growth): compiled {mm['compiled_search_mb']:.1f} MB, python "
            f"{mm['python_search_mb']:.1f} MB."
        ]
    return "\n".join(lines) + "\n"
