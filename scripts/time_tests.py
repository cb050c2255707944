"""The README's test command, timed as the fast-loop budget states it: CPU minutes on a fresh clone.

Clones the current commit (``git clone``, so only what is committed) into a temporary folder and
runs there, with this environment's installed dependencies and the clone's own source
(``PYTHONPATH=CLONE/src``) and an empty numba cache (``NUMBA_CACHE_DIR``: every kernel is
compiled again, as on a fresh machine):

* ``pytest -m "not cluster"`` (the README's test command but for the tests marked ``cluster``,
  which start a SLURM cluster and are budgeted apart), then
* ``pytest -m "not slow and not cluster"`` (the quick loop; the cache is warm by then, as in a
  developer's loop), then
* ``pytest -m cluster`` (the cluster tests alone, whose budget is wall time; they skip where
  SLURM's packages or root are absent, and the record says so).

CPU = user + system time of the pytest process and its children; the machine's load average
before and after each.  Writes ``results/bench/tests.json`` and ``tests.md`` (the README quotes
them, and its claims test checks that it quotes them right).

    python scripts/time_tests.py [--out results/bench]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from starbench.commands.latency import timed_run
from starbench.experiment.timing import load_average

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """Run ``argv``; its CPU (user, system) and wall seconds, the load around it, and the
    summary line pytest printed."""
    load = load_average()
    p, user, system, wall = timed_run(argv, cwd, env)
    lines = [ln for ln in p.stdout.splitlines() if re.search(r"\d+ (passed|failed)", ln)]
    failed = [ln for ln in p.stdout.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    return {
        "command": " ".join(argv[2:]) if argv[1:2] == ["-m"] else " ".join(argv),
        "exit": p.returncode,
        "summary": lines[-1].strip("= ") if lines else p.stdout[-300:],
        "failed": failed,
        "user": round(user, 1),
        "system": round(system, 1),
        "cpu_minutes": round((user + system) / 60, 1),
        "wall_minutes": round(wall / 60, 1),
        "load": {"before": load, "after": load_average()},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="starbench-tests-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", commit], cwd=clone, check=True)
        env = {
            **os.environ,
            "PYTHONPATH": str(clone / "src"),
            "NUMBA_CACHE_DIR": str(Path(tmp) / "numba"),
        }
        env.pop("HYPOTHESIS_PROFILE", None)

        def pytest(marks: str) -> dict:
            argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", marks]
            return timed(argv, clone, env)

        full = pytest("not cluster")
        quick = pytest("not slow and not cluster")
        cluster = pytest("cluster")
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "commit": commit[:12],
        "cores": os.cpu_count(),
        "full": full,
        "quick": quick,
        "cluster": cluster,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tests.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "tests.md").write_text(markdown(result))
    print(markdown(result))
    for name in ("full", "quick", "cluster"):
        for line in result[name]["failed"]:
            print(f"{name}: {line}")
    return 0 if full["exit"] == quick["exit"] == cluster["exit"] == 0 else 1


def markdown(r: dict) -> str:
    rows = []
    commands = (
        ("full", '`pytest -m "not cluster"` (cold numba cache)'),
        ("quick", '`pytest -m "not slow and not cluster"`'),
        ("cluster", "`pytest -m cluster` (a one-node SLURM cluster)"),
    )
    for name, what in commands:
        m = r.get(name)
        if m is None:
            continue
        rows.append(
            f"| {what} | {m['summary']} | {m['cpu_minutes']} | {m['user']} + {m['system']} | "
            f"{m['wall_minutes']} | {'/'.join(map(str, m['load']['before']))} -> "
            f"{'/'.join(map(str, m['load']['after']))} |"
        )
    return (
        f"The README's test command on a fresh clone of commit {r['commit']} ({r['date']}, "
        f"{r['cores']} cores; `python scripts/time_tests.py`).\n\n"
        "| command | result | CPU minutes | user + system s | wall minutes | load (1/5/15) |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


if __name__ == "__main__":
    sys.exit(main())
