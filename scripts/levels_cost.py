#!/usr/bin/env python3
"""What counting per level costs the compiled engine: the same searches with and without it.

    python scripts/levels_cost.py [--repeats 15] [--out results/bench/levels]

In one process pinned to one core, on every shape of ``starbench bench`` (``bench.SHAPES``,
generator version 2, instances 0..4 prepared once), each algorithm of ``bench.ALGOS`` is
timed on the compiled kernel (``compiled.engine.execute``) with ``per_level=True`` and with
``per_level=False``, each for 0.15 s of CPU, the two in alternating order from repeat to
repeat; a repeat's ratio is the nodes per CPU second with the counters over those without.
The report gives per search the median ratio over ``--repeats`` repeats and its range, the
load average before and after, and the code measured.  Writes ``cost.json`` and ``cost.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = 0.15


def _rate(ct: list, name: str, params: dict, per_level: bool) -> float:
    """Nodes per CPU second of the search on the trees in turn (``timing.rate``)."""
    from starbench.compiled.engine import execute
    from starbench.experiment.timing import rate

    def one(j: int) -> int:
        return execute(ct[j % len(ct)], name, params, per_level=per_level).stats.nodes

    return rate(one, BLOCK)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench" / "levels"))
    args = ap.parse_args(argv)
    from starbench.commands import bench as B
    from starbench.compiled.engine import CompiledTree, execute
    from starbench.experiment import timing
    from starbench.ground.files import atomic_write_text
    from starbench.trees.regular import RegularTreeSpec

    pin = timing.pin_one_core()
    load_before = timing.load_average()
    rows = []
    for shape, kw in B.SHAPES:
        spec = RegularTreeSpec(generator_version=2, **kw)
        trees = [CompiledTree.from_regular(spec, 0, i) for i in range(5)]
        for name, params in B.ALGOS:
            for flag in (True, False):  # compiled and warm, outside the timing
                execute(trees[0], name, dict(params), per_level=flag)
            ratios = []
            for r in range(args.repeats):
                order = (True, False) if r % 2 else (False, True)
                rate = {flag: _rate(trees, name, dict(params), flag) for flag in order}
                ratios.append(rate[True] / rate[False])
            label = name + "".join(f":{k}={v}" for k, v in params.items())
            rows.append(
                {
                    "tree": shape,
                    "algorithm": label,
                    "median": statistics.median(ratios),
                    "low": min(ratios),
                    "high": max(ratios),
                }
            )
            print(f"{shape} {label}: {100 * rows[-1]['median']:.1f} %", file=sys.stderr)
    result = {
        "machine": timing.machine(),
        "date": time.strftime("%Y-%m-%d"),
        "source": timing.source_state(),
        "pinned": pin,
        "repeats": args.repeats,
        "load_before": load_before,
        "load_after": timing.load_average(),
        "rows": rows,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "cost.json", json.dumps(result, indent=1) + "\n")
    m = result["machine"]
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores, Python {m['python']}, numba "
        f"{m['numba']}; {result['date']}; {result['source']}; {pin}; load average (1/5/15 min) "
        f"{'/'.join(map(str, load_before or []))} before, "
        f"{'/'.join(map(str, result['load_after'] or []))} after.",
        "",
        "The compiled kernel's nodes per CPU second counting per level (`per_level=True`: "
        "`levels_detail=true`, `solve`, `starbench.search(..., levels=True)`) as a percent of "
        f"the same searches without it, the median of {args.repeats} interleaved repeats "
        f"(range); generator version 2, {BLOCK} s of CPU a side (`python "
        "scripts/levels_cost.py`):",
        "",
        "| tree | algorithm | % of the speed without counting per level |",
        "|---|---|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['tree']} | {r['algorithm']} | {100 * r['median']:.0f} "
            f"({100 * r['low']:.0f}-{100 * r['high']:.0f}) |"
        )
    atomic_write_text(out / "cost.md", "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
