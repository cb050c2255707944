#!/usr/bin/env python3
"""Recompute every committed study under results/ from scratch, at one clean commit.

Each study's command (the list below, the same commands as the study READMEs) runs into a
fresh ``results/<study>/`` (an existing folder is moved aside to ``results/<study>.old-<time>``
first, never mixed with new rows); the row journals (``rows.jsonl``, ``run.log``) are then
removed, as the committed results keep only the tables.  For each study it writes
``experiments/<study>/runtime.md``: the command, its wall and CPU time, the machine, its load
and the commit.  Every row records ``git_commit`` and ``git_dirty`` itself; the script refuses
to start on a tree with uncommitted changes (``--allow-dirty`` to override, for trials).

    python scripts/regenerate_results.py [--only STUDY ...] [--skip STUDY ...] [--n-jobs 2]

Then ``python scripts/make_figures.py`` rebuilds the figures and tables from the new results.
The benchmark (``results/bench/``) is not a study: ``starbench bench`` and the two
``scripts/bench_*.py`` rewrite it.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: study folder -> the command's arguments after ``starbench`` (n_jobs is added), in run order.
STUDIES: dict[str, list[list[str]]] = {
    "ballard1983": [["run", "experiment=ballard1983"]],
    "ballard1983-uniform": [
        ["run", "experiment=ballard1983", "tree.value_model=uniform", "name=ballard1983-uniform"]
    ],
    "ballard1983-hypotheses": [["run", "experiment=ballard1983-hypotheses"]],
    "ballard1983-probing": [["run", "experiment=ballard1983-probing"]],
    "heyden2009": [["run", "experiment=heyden2009"]],
    "hauk2004": [["run", "experiment=hauk2004"]],
    "transposition": [["run", "experiment=transposition"]],
    "hauk2004-deepening": [["run", "experiment=hauk2004-deepening"]],
    "hauk2004-deepening-pig": [
        [
            "run",
            "experiment=hauk2004-deepening",
            "tree.game=pig",
            "tree.move_order=none",
            "tree.depth=12",
            "name=hauk2004-deepening-pig",
            "trees=100",
        ]
    ],
    "hauk2004-backgammon": [["run", "experiment=hauk2004-backgammon"]],
    "hauk2004-backgammon-deep": [
        ["run", "experiment=hauk2004-backgammon-deep"],
        [
            "script",
            "scripts/count_backgammon_trees.py",
            "results/hauk2004-backgammon-deep",
            "--check",
            "results/hauk2004-backgammon",
        ],
    ],
}


def _clean() -> str | None:
    """The reason the working tree is not clean, or None."""
    p = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        return "not a git checkout"
    return f"uncommitted changes:\n{p.stdout}" if p.stdout.strip() else None


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip()[:12] or "unknown"


def _argv(step: list[str], n_jobs: int) -> tuple[list[str], str]:
    """The process to run and the command as a reader types it."""
    bindir = Path(sys.executable).parent
    if step[0] == "script":
        return [sys.executable, *step[1:]], "python " + " ".join(step[1:])
    args = [*step, f"n_jobs={n_jobs}"]
    return [str(bindir / "starbench"), *args, "progress=false"], "starbench " + " ".join(args)


def _clock(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min {s:02d} s" if m else f"{s} s"


def regenerate(study: str, n_jobs: int) -> int:
    from starbench.experiment.metadata import cpu_model
    from starbench.experiment.storage import atomic_write_text

    folder = ROOT / "results" / study
    if folder.exists():
        aside = folder.with_name(f"{study}.old-{time.strftime('%Y%m%d-%H%M%S')}")
        folder.rename(aside)
        print(f"{study}: previous results moved to {aside.name}", flush=True)
    shown, cpu0 = [], resource.getrusage(resource.RUSAGE_CHILDREN)
    load0, t0 = os.getloadavg(), time.perf_counter()
    for step in STUDIES[study]:
        argv, text = _argv(step, n_jobs)
        shown.append(text)
        print(f"{study}: {text}", flush=True)
        p = subprocess.run(argv, cwd=ROOT)
        if p.returncode != 0:
            print(f"{study}: exit {p.returncode} from {text}", file=sys.stderr)
            return p.returncode
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    for journal in [*folder.rglob("rows.jsonl"), *folder.rglob("run.log")]:
        journal.unlink()
    commands = " then ".join(f"`{c}`" for c in shown)
    text = (
        f"{commands} produced the committed results from scratch in **{_clock(wall)}** of wall "
        f"time ({_clock(cpu)} of CPU) on {os.cpu_count()} cores ({cpu_model()}), load average "
        f"{load0[0]:.2f} at the start, at commit {_commit()} on {time.strftime('%Y-%m-%d')} "
        f"(`python scripts/regenerate_results.py --only {study}`).\n"
    )
    atomic_write_text(ROOT / "experiments" / study / "runtime.md", text)
    print(text, end="", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=list(STUDIES), metavar="STUDY")
    ap.add_argument("--skip", nargs="+", choices=list(STUDIES), default=[], metavar="STUDY")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    reason = _clean()
    if reason and not args.allow_dirty:
        print(f"regenerate_results: refusing to run: {reason.splitlines()[0]}", file=sys.stderr)
        return 2
    for study in args.only or list(STUDIES):
        if study in args.skip:
            continue
        code = regenerate(study, args.n_jobs)
        if code:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
