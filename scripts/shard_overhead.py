"""Shards on a real study: a subset of hauk2004-backgammon-deep's largest cell, split into shards
on a one-node SLURM cluster, against the same cell computed in one process.

    python scripts/shard_overhead.py [--trees 20] [--shards 8] [--out results/bench]

As root with SLURM's packages installed (the cluster tests' needs: ``tests/slurm_cluster.py``,
which this script uses to start a cluster of its own in a temporary folder, and stops).  It runs

1. the cell (``tree.move_order=none``, the first ``--trees`` positions) unsharded, in one local
   process (``starbench run``), and charges it the CPU of that process;
2. the same cell with ``shards=N`` through ``hydra/launcher=slurm``: N jobs of one array;

checks that the two tables are identical in every column but the timing ones, and reads from
the sharded cell's ``run.log`` each shard's process CPU when its instances were done (the line
each shard prints) minus the search CPU of its rows (``cpu_seconds``): that shard's overhead
(Python's start, the kernel or its cache, the game's evaluator, reading the journals).  The
merge (the last shard writing the table from every journal) and the driver (submission and
polling) are reported apart.  Writes ``results/bench/shards.json`` and ``shards.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from slurm_cluster import start, stop, unavailable  # noqa: E402
from starbench.commands.latency import timed_run  # noqa: E402
from starbench.experiment.timing import load_average  # noqa: E402

EXE = str(Path(sys.executable).parent / "starbench")
TIMING = ["seconds", "cpu_seconds", "date", "git_commit", "git_dirty", "hostname"]
CELL = ["experiment=hauk2004-backgammon-deep", "sweeps=[]", "tree.move_order=none"]


def table(sweep: Path) -> pd.DataFrame:
    (path,) = sweep.glob("*/table.parquet")
    return pd.read_parquet(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", type=int, default=20)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args()
    reason = unavailable()
    if reason:
        sys.stderr.write(f"shard_overhead: {reason}\n")
        return 2
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="starbench-shards-"))
    os.chmod(work, 0o755)
    cell = [*CELL, f"trees={args.trees}", "progress=false"]
    load = {"before": load_average()}
    cluster = start(work / "cluster")
    try:
        env = cluster.env
        whole, sharded = work / "whole", work / "sharded"
        p, user, system, wall = timed_run(
            [EXE, "run", "-m", *cell, f"hydra.sweep.dir={whole}"], work, env
        )
        assert p.returncode == 0, p.stderr[-3000:]
        unsharded = {"cpu": round(user + system, 2), "wall": round(wall, 2)}
        on_slurm = [
            "hydra/launcher=slurm",
            "hydra.launcher.timeout_min=60",
            f"shards={args.shards}",
        ]
        p, user, system, wall = timed_run(
            [EXE, "run", "-m", *cell, *on_slurm, f"hydra.sweep.dir={sharded}"], work, env
        )
        assert p.returncode == 0, p.stderr[-3000:]
        driver = {"cpu": round(user + system, 2), "wall": round(wall, 2)}
    finally:
        stop(cluster)
    load["after"] = load_average()
    result = _result(args, commit, cell, work, unsharded, driver, load)
    shutil.rmtree(work, ignore_errors=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "shards.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "shards.md").write_text(markdown(result))
    print(markdown(result))
    return 0 if result["identical"] else 1


def _result(
    args: Any, commit: str, cell: list[str], work: Path, unsharded: dict, driver: dict, load: dict
) -> dict:
    """The record: the two tables compared, each shard's overhead from the sharded cell's log."""
    whole, sharded = work / "whole", work / "sharded"
    a, b = table(whole), table(sharded)
    identical = a.drop(columns=TIMING, errors="ignore").equals(
        b.drop(columns=TIMING, errors="ignore")
    )
    (folder,) = [d for d in sharded.iterdir() if d.is_dir() and not d.name.startswith(".")]
    log = (folder / "run.log").read_text(encoding="utf-8")
    shards = []
    for m in re.finditer(r"shard (\d+) of (\d+): (\d+) rows .*?; ([\d.]+) s CPU in this", log):
        i, n = int(m.group(1)), int(m.group(2))
        search = float(b.loc[b["instance"] % n == i, "cpu_seconds"].sum())
        process = float(m.group(4))
        shards.append(
            {
                "shard": i,
                "rows": int(m.group(3)),
                "process_cpu": process,
                "search_cpu": round(search, 2),
                "overhead_cpu": round(process - search, 2),
            }
        )
    merge = re.search(r"table written from their journals in ([\d.]+) s CPU", log)
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "commit": commit[:12],
        "cell": " ".join(cell),
        "trees": args.trees,
        "shards": args.shards,
        "rows": len(a),
        "identical": bool(identical),
        "unsharded": {**unsharded, "search_cpu": round(float(a["cpu_seconds"].sum()), 2)},
        "sharded_driver": driver,
        "per_shard": shards,
        "overhead_median": round(statistics.median(s["overhead_cpu"] for s in shards), 2),
        "merge_cpu": float(merge.group(1)) if merge else None,
        "load": load,
    }
    return result


def markdown(r: dict) -> str:
    rows = "\n".join(
        f"| {s['shard']} | {s['rows']} | {s['process_cpu']:.2f} | {s['search_cpu']:.2f} | "
        f"{s['overhead_cpu']:.2f} |"
        for s in sorted(r["per_shard"], key=lambda s: s["shard"])
    )
    u, d = r["unsharded"], r["sharded_driver"]
    return (
        f"`{r['cell']}`, {r['shards']} shards on a one-node SLURM cluster against one process "
        f"(commit {r['commit']}, {r['date']}; `python scripts/shard_overhead.py`; load "
        f"{'/'.join(map(str, r['load']['before']))} -> "
        f"{'/'.join(map(str, r['load']['after']))}).  Tables identical in every non-timing "
        f"column: {'yes' if r['identical'] else '**no**'} ({r['rows']} rows).\n\n"
        f"Unsharded: {u['cpu']:.2f} s CPU in one process ({u['search_cpu']:.2f} s of it in "
        f"searches), {u['wall']:.1f} s of wall time.  Sharded: the driver (submission, "
        f"polling, summaries) {d['cpu']:.2f} s CPU, {d['wall']:.1f} s of wall time; the merge "
        f"(the last shard writing the table) {r['merge_cpu']} s CPU; per shard (CPU seconds; "
        f"overhead = the shard's process minus its searches; median {r['overhead_median']}):"
        "\n\n| shard | rows | process | searches | overhead |\n|---|---|---|---|---|\n"
        + rows
        + "\n"
    )


if __name__ == "__main__":
    sys.exit(main())
