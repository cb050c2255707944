#!/usr/bin/env python3
"""Recompute committed studies under results/ from scratch, each at one clean commit.

A study is regenerated when its own code changed (``tests/test_provenance.py`` replays a sample
of every committed study at the current code and fails when the results would differ); studies
may then come from different commits, each from its own clean one.  ``--only STUDY`` regenerates
one study whole, never a top-up of its tables.

Each study's command (the list below, the same commands as the study READMEs) runs from scratch
into a staging folder ``results/.regen/<study>`` (ignored by git), so the tracked results stay
untouched and the tree clean while every study runs: each row's ``git_dirty`` is then false.
Only when every study has finished are the new folders swapped in (an existing
``results/<study>`` is moved aside to ``results/<study>.old-<time>``, never mixed with new rows)
and the row journals (``rows.jsonl``, ``run.log``) removed, as the committed results keep only
the tables; then each study's ``experiments/<study>/runtime.md`` is written (the command, its
wall and CPU time, the machine, its load and the commit; kept in the staging folder until then,
since a tracked file rewritten earlier would make the tree dirty for the studies after it).  It
refuses to start on a tree with uncommitted changes (``--allow-dirty`` to override, for trials).

    python scripts/regenerate_results.py [--only STUDY ...] [--skip STUDY ...] [--n-jobs 2]

Then ``python scripts/make_figures.py`` rebuilds the figures and tables from the new results.
The benchmark (``results/bench/``) is not a study: ``starbench bench`` and the two
``scripts/bench_*.py`` rewrite it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: study folder -> the command's arguments after ``starbench`` (n_jobs and the output folder are
#: added), in run order (the longest first); ``{out}`` is the study's output folder,
#: ``{out:STUDY}`` another study's.
STUDIES: dict[str, list[list[str]]] = {
    "hauk2004-backgammon": [["run", "experiment=hauk2004-backgammon"]],
    "hauk2004-backgammon-deep": [
        ["run", "experiment=hauk2004-backgammon-deep"],
        [
            "script",
            "scripts/count_backgammon_trees.py",
            "{out}",
            "--check",
            "{out:hauk2004-backgammon}",
        ],
    ],
    "ballard1983": [["run", "experiment=ballard1983"]],
    "ballard1983-uniform": [
        ["run", "experiment=ballard1983", "tree.value_model=uniform", "name=ballard1983-uniform"]
    ],
    "ballard1983-hypotheses": [["run", "experiment=ballard1983-hypotheses"]],
    "ballard1983-readings": [["run", "experiment=ballard1983-readings"]],
    "ballard1983-probing": [["run", "experiment=ballard1983-probing"]],
    "heyden2009": [["run", "experiment=heyden2009"]],
    "hauk2004": [["run", "experiment=hauk2004"]],
    "transposition": [["run", "experiment=transposition"]],
    "transposition-pig": [["run", "experiment=transposition-pig"]],
    "hauk2004-deepening": [["run", "experiment=hauk2004-deepening"]],
    "hauk2004-deepening-pig": [
        [
            "run",
            "experiment=hauk2004-deepening",
            "tree.game=pig",
            "tree.heuristic=score_difference",  # pig's default when it was computed, named
            "tree.move_order=none",
            "tree.depth=12",
            "name=hauk2004-deepening-pig",
            "trees=100",
        ]
    ],
    "pig-decisions": [
        ["run", "experiment=pig-decisions"],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=3,heuristic=score_share",
            "--player",
            "oracle",
            "--games",
            "1000",
            "--out",
            "{out}/match-star2-d3-vs-oracle",
        ],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=3,heuristic=score_difference",
            "--player",
            "oracle",
            "--games",
            "1000",
            "--out",
            "{out}/match-star2-d3-score_difference-vs-oracle",
        ],
    ],
    "chanceprobcut": [
        # each shape's calibration again, beside the results: a test checks it is the one in
        # conf/calibrations that the study's algorithm files name
        [
            "calibrate",
            "tree=ballard",
            "tree.depth=3",
            "--positions",
            "30",
            "--out",
            "{out}/calibrations",
        ],
        [
            "calibrate",
            "tree=backgammon",
            "tree.depth=3",
            "--positions",
            "30",
            "--out",
            "{out}/calibrations",
        ],
        ["run", "experiment=chanceprobcut"],
    ],
    "chanceprobcut-pig": [
        [
            "calibrate",
            "tree=game",
            "tree.game='pig(winscore=50)'",
            "tree.heuristic=score_share",
            "tree.sampler=optimal",
            "tree.depth=5",
            "--positions",
            "100",
            "--out",
            "{out}/calibrations",
        ],
        ["run", "experiment=chanceprobcut-pig"],
    ],
    "chanceprobcut-matches": [
        # Einstein wurfelt nicht's calibration, beside the results (a test checks it is the one
        # in conf/calibrations the matches name); pig's is chanceprobcut-pig's
        [
            "calibrate",
            "tree=game",
            "tree.game=einstein_wurfelt_nicht",
            "tree.heuristic=einstein_progress",
            "tree.depth=4",
            "--positions",
            "100",
            "--out",
            "{out}/calibrations",
        ],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=4,heuristic=score_share",
            "--player",
            "chanceprobcut:depth=4,heuristic=score_share,cal=a50b33088004,t=0",
            "--games",
            "1000",
            "--out",
            "{out}/pig-depth4",
        ],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=5,heuristic=score_share",
            "--player",
            "chanceprobcut:depth=5,heuristic=score_share,cal=a50b33088004,t=0",
            "--games",
            "500",
            "--out",
            "{out}/pig-depth5",
        ],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=5,node_budget=10000,heuristic=score_share",
            "--player",
            "chanceprobcut:depth=5,node_budget=10000,heuristic=score_share,cal=a50b33088004,t=0",
            "--games",
            "500",
            "--out",
            "{out}/pig-budget10000",
        ],
        [
            "match",
            "einstein_wurfelt_nicht",
            "--player",
            "star2:depth=3,heuristic=einstein_progress",
            "--player",
            "chanceprobcut:depth=3,heuristic=einstein_progress,cal=446655854f4c,t=0",
            "--games",
            "1000",
            "--out",
            "{out}/einstein-depth3",
        ],
        [
            "match",
            "einstein_wurfelt_nicht",
            "--player",
            "star2:depth=3,heuristic=einstein_progress",
            "--player",
            "chanceprobcut:depth=3,heuristic=einstein_progress,cal=446655854f4c,t=1",
            "--games",
            "1000",
            "--out",
            "{out}/einstein-depth3-t1",
        ],
        [
            "match",
            "einstein_wurfelt_nicht",
            "--player",
            "star2:depth=4,heuristic=einstein_progress",
            "--player",
            "chanceprobcut:depth=4,heuristic=einstein_progress,cal=446655854f4c,t=0",
            "--games",
            "500",
            "--out",
            "{out}/einstein-depth4",
        ],
        [
            "match",
            "einstein_wurfelt_nicht",
            "--player",
            "star2:depth=4,node_budget=10000,heuristic=einstein_progress",
            "--player",
            "chanceprobcut:depth=4,node_budget=10000,heuristic=einstein_progress,cal=446655854f4c,t=0",
            "--games",
            "500",
            "--out",
            "{out}/einstein-budget10000",
        ],
        # the same matches again, paired (the same dice for both seatings), where a verdict of
        # the unpaired ones was weaker than the README's words: ChanceProbCut at 5 plies on pig
        # against a margin of 5 points, and t = 1 at 3 plies on Einstein
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=5,heuristic=score_share",
            "--player",
            "chanceprobcut:depth=5,heuristic=score_share,cal=a50b33088004,t=0",
            "--games",
            "4000",
            "--paired",
            "--margin",
            "0.05",
            "--out",
            "{out}/pig-depth5-paired",
        ],
        [
            "match",
            "einstein_wurfelt_nicht",
            "--player",
            "star2:depth=3,heuristic=einstein_progress",
            "--player",
            "chanceprobcut:depth=3,heuristic=einstein_progress,cal=446655854f4c,t=1",
            "--games",
            "2000",
            "--paired",
            "--margin",
            "0.05",
            "--out",
            "{out}/einstein-depth3-t1-paired",
        ],
    ],
    "pig-inexact": [
        ["run", "experiment=pig-inexact"],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=3,heuristic=score_share",
            "--player",
            "mcts:depth=3,heuristic=score_share,mcts_iterations=50",
            "--games",
            "400",
            "--out",
            "{out}/match-star2-vs-mcts",
        ],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=3,heuristic=score_share",
            "--player",
            "star2-ss:depth=4,heuristic=score_share,samples=3",
            "--games",
            "400",
            "--out",
            "{out}/match-star2-vs-star2-ss",
        ],
    ],
    # the matches docs/guide/matches.md quotes (its printed commands, pig to 50, seed 0)
    "docs-matches": [
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "star2:depth=3",
            "--player",
            "star2-ss:depth=3,samples=2",
            "--games",
            "400",
            "--paired",
            "--out",
            "{out}/star2-sampled-paired",
        ],
        [
            "match",
            "pig(winscore=50)",
            "--player",
            "expectimax:depth=3",
            "--player",
            "star2:depth=3",
            "--games",
            "2000",
            "--paired",
            "--margin",
            "0.05",
            "--sequential",
            "--out",
            "{out}/expectimax-star2-sequential",
        ],
    ],
}


def _staged(study: str) -> Path:
    return ROOT / "results" / ".regen" / study


def _argv(step: list[str], n_jobs: int, study: str) -> tuple[list[str], str]:
    """The process to run and the command as a reader types it (with the final folders)."""

    def place(arg: str, staged: bool) -> str:
        if arg == "{out}" or arg.startswith("{out}/"):
            rest = arg[len("{out}") :]
            return (str(_staged(study)) if staged else f"results/{study}") + rest
        if arg.startswith("{out:"):
            other = arg[5:-1]
            fresh = staged and _staged(other).exists()  # regenerated in this run too
            return str(_staged(other)) if fresh else f"results/{other}"
        return arg

    if step[0] == "script":
        shown = "python " + " ".join(place(a, False) for a in step[1:])
        return [sys.executable, *(place(a, True) for a in step[1:])], shown
    exe = str(Path(sys.executable).parent / "starbench")
    if step[0] in ("match", "calibrate"):  # their own --out, no Hydra keys
        if step[0] == "match":  # its games in n_jobs processes
            step = [*step, "--n-jobs", str(n_jobs)]
        shown = "starbench " + " ".join(shlex.quote(place(a, False)) for a in step)
        return [exe, *(place(a, True) for a in step)], shown
    args = [*step, f"n_jobs={n_jobs}"]
    out = _staged(study)
    where = [f"hydra.sweep.dir={out}", f"hydra.run.dir={out}/${{sb_cell:}}", "progress=false"]
    return [str(Path(sys.executable).parent / "starbench"), *args, *where], "starbench " + " ".join(
        args
    )


def _clock(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min {s:02d} s" if m else f"{s} s"


def regenerate(study: str, n_jobs: int) -> int:
    """Run one study into its staging folder; keep its run time beside it for the swap."""
    from starbench.ground.files import atomic_write_text
    from starbench.record.metadata import cpu_model, git_state

    staged = _staged(study)
    if staged.exists():
        shutil.rmtree(staged)
    shown, cpu0 = [], resource.getrusage(resource.RUSAGE_CHILDREN)
    load0, t0 = os.getloadavg(), time.perf_counter()
    for step in STUDIES[study]:
        argv, text = _argv(step, n_jobs, study)
        shown.append(text)
        print(f"{study}: {text}", flush=True)
        p = subprocess.run(argv, cwd=ROOT)
        if p.returncode != 0:
            print(f"{study}: exit {p.returncode} from {text}", file=sys.stderr)
            return p.returncode
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    commands = " then ".join(f"`{c}`" for c in shown)
    commit = (git_state()[0] or "unknown")[:12]
    text = (
        f"{commands} produced the committed results from scratch in **{_clock(wall)}** of wall "
        f"time ({_clock(cpu)} of CPU) on {os.cpu_count()} cores ({cpu_model()}), load average "
        f"{load0[0]:.2f} at the start and {os.getloadavg()[0]:.2f} at the end, at commit {commit} "
        f"on {time.strftime('%Y-%m-%d')} "
        f"(`python scripts/regenerate_results.py --only {study}`).\n"
    )
    # kept beside the staged results until the swap: a tracked runtime.md rewritten now would
    # make the tree dirty for the studies that run after this one
    atomic_write_text(staged.with_name(f"{study}.runtime.md"), text)
    print(text, end="", flush=True)
    return 0


def swap_in(study: str) -> None:
    """Move the staged results into results/<study> (the old folder aside), journals removed,
    and its run time into experiments/<study>/runtime.md."""
    from starbench.ground.files import atomic_write_text

    staged, folder = _staged(study), ROOT / "results" / study
    runtime = staged.with_name(f"{study}.runtime.md")
    atomic_write_text(ROOT / "experiments" / study / "runtime.md", runtime.read_text())
    runtime.unlink()
    for journal in [
        *staged.rglob("rows.jsonl"),
        *staged.rglob("run.log"),
        *staged.rglob(".lock"),
        *staged.rglob("games.jsonl"),
    ]:
        journal.unlink()
    if folder.exists():
        aside = folder.with_name(f"{study}.old-{time.strftime('%Y%m%d-%H%M%S')}")
        folder.rename(aside)
        print(f"{study}: previous results moved to {aside.name}", flush=True)
    staged.rename(folder)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=list(STUDIES), metavar="STUDY")
    ap.add_argument("--skip", nargs="+", choices=list(STUDIES), default=[], metavar="STUDY")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    from starbench.record.metadata import git_state  # the state every row records

    commit, dirty = git_state()
    if (commit is None or dirty) and not args.allow_dirty:
        why = "not a git checkout" if commit is None else "uncommitted changes"
        print(f"regenerate_results: refusing to run: {why}", file=sys.stderr)
        return 2
    studies = [s for s in args.only or list(STUDIES) if s not in args.skip]
    for study in studies:  # every study runs while the tracked results are untouched
        code = regenerate(study, args.n_jobs)
        if code:
            return code
    for study in studies:
        swap_in(study)
    return 0


if __name__ == "__main__":
    sys.exit(main())
