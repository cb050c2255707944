"""``starbench bench --latency``: the researcher's loop, timed (CPU seconds of fresh processes).

On the README's own study (its four cells, 800 rows, run once first by each code measured,
not timed), each
command below runs in a fresh process and is charged the user + system CPU of that process and
its children (``resource.getrusage(RUSAGE_CHILDREN)``), the measure the targets are stated in:
the machine is shared, so wall time would count other processes' load.  With ``--before DIR``
(a checkout of an older commit, ``git worktree add DIR COMMIT``) the same commands also run on
that code (``PYTHONPATH=DIR/src``, the same installed libraries), interleaved with the current
code's in every repeat; the table gives the median over the repeats of each, side by side, with
the load average before and after.

The commands and their targets (``TARGETS``): ``import starbench``; ``starbench run`` of one
complete cell (journal and table verification included); the same study's sweep run again
(every cell complete); ``collect``; ``starbench.load_results``; the printed summary of a cell
(CPU of the ``summary`` call alone, in a process that has read the table); ``plot`` of the
whole study (every file it writes by default) and of one figure as PNG (``--figure F --format
png``; code without ``--format`` runs ``--figure F`` and is marked so).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: The README's own study (``README.md``, "Your own study"; a test keeps the two equal).
STUDY = """\
# @package _global_
# my_configs/experiment/skew.yaml: Star1, Star2 and Star2.5 by outcome skew and move ordering
name: skew
trees: 40
tree:
  branching: 6
  chance_arity: 6
  depth: 2
  distribution: geometric
algorithms:
  - {name: expectimax}
  - {name: star1}
  - {name: star2}
  - {name: star2.5-cyclic, k: 3}
  - {name: star2.5-sequential, k: 3}
hydra:
  mode: MULTIRUN
  sweeper:
    params:
      tree.skew: 1/2,1/4
      order: random,optimal
"""
FIGURE = "leaves_by_algorithm"

#: What each command may cost (CPU seconds), from the fast-loop issue.
TARGETS = {
    "import starbench": 0.25,
    "run, one complete cell": 1.0,
    "run, the whole study again": None,
    "collect": 0.8,
    "load_results": 0.8,
    "printed summary": 0.1,
    "plot, every file": 5.0,
    f"plot --figure {FIGURE} --format png": 2.0,
}

_SUMMARY = """\
import sys, time
import pyarrow.parquet as pq
from starbench.record.rows import SUMMARY_COLUMNS, summary
table = pq.read_table(sys.argv[1]).to_pydict()
table = {c: table[c] for c in SUMMARY_COLUMNS if c in table}
t = time.process_time()
summary(table)
print(time.process_time() - t)
"""


def _commands(study: Path, out: Path, i: int, has_format: bool) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "starbench"]
    cell = next(iter(sorted((study / "results" / "skew").glob("*/table.parquet"))))
    one = ["--figure", FIGURE, *(["--format", "png"] if has_format else [])]
    return {
        "import starbench": [sys.executable, "-c", "import starbench"],
        "run, one complete cell": [
            *cli,
            "run",
            "-cd",
            "my_configs",
            "experiment=skew",
            "tree.skew=1/2",
            "order=random",
            "hydra.mode=RUN",
            "progress=false",
        ],  # fmt: skip
        "run, the whole study again": [
            *cli,
            "run",
            "-cd",
            "my_configs",
            "experiment=skew",
            "n_jobs=2",
            "progress=false",
        ],  # fmt: skip
        "collect": [*cli, "collect", "results/skew"],
        "load_results": [
            sys.executable,
            "-c",
            "import starbench; starbench.load_results('results/skew')",
        ],  # fmt: skip
        "printed summary": [sys.executable, "-c", _SUMMARY, str(cell)],
        "plot, every file": [*cli, "plot", "results/skew", "--out", str(out / f"all-{i}")],
        f"plot --figure {FIGURE} --format png": [
            *cli,
            "plot",
            "results/skew",
            "--out",
            str(out / f"one-{i}"),
            *one,
        ],  # fmt: skip
    }


def timed_run(
    argv: list[str], cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess, float, float, float]:
    """Run ``argv`` to its end in a fresh process: (the process, its user and system CPU seconds
    with its children's, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, wall


def _cpu(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``argv``; for the summary probe, the CPU it reports for
    the call alone."""
    p, user, system, wall = timed_run(argv, cwd, env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:6])} ...: exit {p.returncode}: {p.stderr[-500:]}")
    if argv[1:2] == ["-c"] and argv[2] == _SUMMARY:
        return float(p.stdout.strip()), wall
    return user + system, wall


def _env(src: Path | None) -> dict[str, str]:
    env = {**os.environ, "STARBENCH_PROGRESS": "0"}
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _cli(src: Path) -> Path | None:
    """The command line's module of a source tree (``commands/cli.py`` since 0.3)."""
    for where in (src / "starbench" / "commands" / "cli.py", src / "starbench" / "cli.py"):
        if where.is_file():
            return where
    return None


def measure(out: Path, repeats: int = 5, before: Path | None = None) -> dict[str, Any]:
    """Time every command ``repeats`` times (interleaved with ``before``'s code when given) and
    write ``latency.json`` and ``latency.md`` into ``out``."""
    from starbench.experiment.timing import load_average, machine, source_state

    contenders: dict[str, Path | None] = {"after": None}
    if before is not None:
        src = Path(before).resolve() / "src"
        if _cli(src) is None:
            raise ValueError(f"--before {before}: no starbench source under {src}")
        contenders = {"before": src, "after": None}
    work = Path(tempfile.mkdtemp(prefix="starbench-latency-"))
    try:
        for name, src in contenders.items():  # each code on the study it ran itself (not timed)
            (work / name / "my_configs" / "experiment").mkdir(parents=True)
            (work / name / "my_configs" / "experiment" / "skew.yaml").write_text(STUDY)
            setup = [sys.executable, "-m", "starbench", "run", "-cd", "my_configs",
                     "experiment=skew", "n_jobs=2", "progress=false"]  # fmt: skip
            _cpu(setup, work / name, _env(src))
            _cpu([sys.executable, "-m", "starbench", "collect", "results/skew"], work / name,
                 _env(src))  # fmt: skip
        flags = {
            name: src is None or "--format" in _cli(src).read_text()  # type: ignore[union-attr]
            for name, src in contenders.items()
        }
        cpu: dict[str, dict[str, list[float]]] = {}
        wall: dict[str, dict[str, list[float]]] = {}
        load_before = load_average()
        for i in range(repeats):
            for name, src in contenders.items():
                at = work / name
                for command, argv in _commands(at, at / "figures", i, flags[name]).items():
                    c, w = _cpu(argv, at, _env(src))
                    cpu.setdefault(command, {}).setdefault(name, []).append(c)
                    wall.setdefault(command, {}).setdefault(name, []).append(w)
        result = {
            "machine": machine(),
            "date": time.strftime("%Y-%m-%d"),
            "source": source_state(),
            "before": str(before) if before is not None else None,
            "load": {"before": load_before, "after": load_average()},
            "repeats": repeats,
            "format_flag": flags,
            "targets": TARGETS,
            "cpu": cpu,
            "wall": wall,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    from starbench.ground.files import atomic_write_text

    atomic_write_text(out / "latency.json", json.dumps(result, indent=1))
    atomic_write_text(out / "latency.md", markdown(result))
    return result


def markdown(result: dict[str, Any]) -> str:
    """The latency table: per command, its target and the median CPU seconds (range) of each
    contender, and whether the current code meets the target."""
    load = result["load"]
    shown = {k: "/".join(f"{x:.2f}" for x in v) if v else "?" for k, v in load.items()}
    names = ["before", "after"] if result.get("before") else ["after"]
    m = result["machine"]
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores, Python {m['python']}; "
        f"{result['date']}; {result['source']}"
        + (f"; before: the code of {result['before']}" if result.get("before") else "")
        + f"; load average (1/5/15 min) {shown['before']} before, {shown['after']} after.",
        f"CPU seconds (user + system) of a fresh process and its children, median of "
        f"{result['repeats']} repeats (range), contenders interleaved in every repeat, on the "
        f"README's own study (4 cells, 800 rows); the printed summary: the CPU of the summary "
        f"call alone.",
        "",
        "| command | target | " + " | ".join(names) + " | meets the target |",
        "|---|---|" + "---|" * len(names) + "---|",
    ]
    for command, target in result["targets"].items():
        by = result["cpu"][command]
        cells = []
        for name in names:
            v = by[name]
            mark = "" if result["format_flag"][name] or "--format" not in command else " (a)"
            cells.append(f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f}){mark}")
        after = statistics.median(by["after"])
        meets = "-" if target is None else ("yes" if after <= target else "**no**")
        shown_target = "-" if target is None else f"{target:g}"
        lines.append(f"| {command} | {shown_target} | " + " | ".join(cells) + f" | {meets} |")
    if any(not ok for ok in result["format_flag"].values()):
        lines += ["", "(a) code without `--format`: `--figure` alone (PDF and PNG)."]
    return "\n".join(lines) + "\n"
