"""How fast ``starbench solve`` reads and solves a large JSON tree, and its memory per node.

Writes a generated tree (branching 7, 7 random outcomes, 4 plies: 960,800 nodes) as JSON, then
times ``starbench solve FILE`` in fresh processes (CPU time of the child, median of --repeats) and
measures the loader's traced peak memory per node in float and exact mode.  Prints a Markdown
table; ``--out`` also writes it to a file.

    python scripts/bench_json.py [--repeats 3] [--out results/bench/json.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path


def child_cpu(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    import numpy  # noqa: F401  (imported before measuring memory)

    from starbench.experiment.timing import source_state
    from starbench.trees import RegularTree, RegularTreeSpec, load_tree
    from starbench.trees.explicit import tree_to_json

    spec = RegularTreeSpec(branching=7, chance_arity=7, depth=4, distribution="random")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tree.json"
        path.write_text(json.dumps(tree_to_json(RegularTree(spec, 0, 0)), separators=(",", ":")))
        exe = str(Path(sys.executable).parent / "starbench")
        child_cpu([exe, "solve", str(path)])  # warm the numba cache
        runs = [child_cpu([exe, "solve", str(path)]) for _ in range(args.repeats)]
        memory = {}
        for exact in (False, True):
            tracemalloc.start()
            load_tree(path, exact=exact)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            memory[exact] = peak / spec.size
        size_mb = path.stat().st_size / 1e6
    cpu = statistics.median(r[0] for r in runs)
    wall = statistics.median(r[1] for r in runs)
    lines = [
        f"Tree: {spec.size:,} nodes, {size_mb:.1f} MB of JSON; {source_state()}; load average "
        f"{os.getloadavg()[0]:.2f}; median of {args.repeats} fresh processes.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| `starbench solve` (float mode, 5 algorithms), CPU s | {cpu:.2f} |",
        f"| `starbench solve`, wall s | {wall:.2f} |",
        f"| loader peak traced memory, float mode, bytes/node | {memory[False]:.0f} |",
        f"| loader peak traced memory, exact mode, bytes/node | {memory[True]:.0f} |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
