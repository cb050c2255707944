"""A differential fuzz of the transposition table: every exact algorithm with every exact table
option against expectimax without a table, on random DAG trees (``pool`` > 0: transpositions).

The trees lean to where a table can go wrong: small pools (many transpositions), few distinct
leaf values (ties, windows at the bounds), bounds from the tree's own extreme leaves, small
tables (collisions and replacements), every ordering and outcome order.  Each tree is searched
once by expectimax without a table (the reference) and by ``--pairs`` random (algorithm, table
option) requests, on the compiled engine (fast) and, with ``--python``, on the reference engine
too.  Every value must agree with the reference within the float tolerance.  A failure prints
the tree's spec, seed and instance and the request, one line each, and ends with exit 1.

    python scripts/fuzz_tables.py --trees 20000            # compiled engine
    python scripts/fuzz_tables.py --trees 2000 --python    # and the Python engine
    python scripts/fuzz_tables.py --trees 500 --exact      # Python engine, in fractions

It prints the trees, the pairs checked, the failures and the CPU seconds.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from starbench import RegularTree, RegularTreeSpec
from starbench.engines import search
from starbench.search.arith import tolerance

ALGORITHMS = (
    ("star1", {}),
    ("star2", {}),
    ("star2.5-cyclic", {"k": 2}),
    ("star2.5-cyclic", {"k": 3}),
    ("star2.5-sequential", {"k": 2}),
    ("star2.5-sequential", {"k": 3}),
    ("expectimax", {}),
)


def random_spec(rng: random.Random) -> RegularTreeSpec:
    """A small DAG spec where a table's mistakes live (see the module docstring)."""
    return RegularTreeSpec(
        branching=rng.choice([2, 3, 3, 4]),
        chance_arity=rng.choice([2, 3, 5, 6]),
        depth=rng.choice([2, 3, 3, 3, 4]),
        trailing_chance=rng.random() < 0.2,
        pattern=rng.choice(["max,chance", "max,chance,min,chance"]),
        distribution=rng.choice(["uniform", "random", "random", "geometric"]),
        weight_max=rng.choice([2, 4, 16]),
        value_model="uniform",
        resolution=rng.choice([1, 2, 3, 3, 10]),
        bounds=rng.choice(["tree", "tree", "declared"]),
        ordering=rng.choice(["generated", "reversed", "perfect", "worst"]),
        outcome_order=rng.choice(["generated", "probable", "refuting", "supporting"]),
        pool=rng.choice([2, 3, 5, 10, 10, 50]),
        generator_version=2,
    )


def random_request(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """An exact algorithm with a random exact table option."""
    name, params = rng.choice(ALGORITHMS)
    p: dict[str, Any] = {**params, "tt": rng.choice([1, 2, 3, 4, 6, 10])}
    if name != "expectimax" and rng.random() < 0.7:
        p["tt_chance"] = True
        if name != "star1" and rng.random() < 0.5:
            p["tt_probe"] = True
    if rng.random() < 0.2:
        p["tt_nodes"] = "decision"
    if name.startswith("star2"):
        if rng.random() < 0.3:
            p["after_probe"] = "research"
        if rng.random() < 0.2:
            p["probe_full_window"] = False
    return name, p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=20, help="requests per tree")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--python", action="store_true", help="the Python engine too")
    ap.add_argument("--exact", action="store_true", help="the Python engine in fractions only")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    engines = ["python"] if a.exact else ["compiled", "python"] if a.python else ["compiled"]
    c0 = time.process_time()
    pairs = failures = 0
    for _ in range(a.trees):
        spec = random_spec(rng)
        seed, instance = rng.randrange(2**32), rng.randrange(10**6)
        tree = RegularTree(spec, seed, instance)
        ref = search(tree, "expectimax", engine="python", exact=a.exact)
        tol = 0 if a.exact else tolerance(*tree.bounds)
        for _ in range(a.pairs):
            name, params = random_request(rng)
            for engine in engines:
                r = search(tree, name, engine=engine, exact=a.exact, **params)
                pairs += 1
                if abs(r.value - ref.value) > tol:
                    failures += 1
                    print(
                        f"FAIL {name} {params} engine={engine}: {r.value} against expectimax's "
                        f"{ref.value}; {spec}, seed={seed}, instance={instance}"
                    )
    cpu = time.process_time() - c0
    print(f"{a.trees} trees, {pairs} pairs, {failures} failures, {cpu:.0f} CPU seconds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
