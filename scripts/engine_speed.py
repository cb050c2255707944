"""The compiled engine's speed per node the way a user measures it, before and after a change,
side by side, with its compile time and its cost per call.

    python scripts/engine_speed.py --before DIR [--rounds 5] [--repeats 3] [--out results/bench]

``DIR`` is a checkout of the older code (``git worktree add DIR COMMIT``); the newer code is
this checkout's.  Both run with the same installed libraries (``PYTHONPATH=<code>/src``) and the
same harness (this file): only ``starbench.search`` and what it calls differ.

Per node.  In a fresh process pinned to one core, on every shape of ``starbench bench``
(``bench.SHAPES``) under generator version 2, each algorithm of ``bench.ALGOS`` is timed the way
a user calls it, ``starbench.search(RegularTree(spec, seed=0, instance=i), name,
engine="compiled")`` with the tree built in the call, on instances 0..4 in turn, for
``BLOCK`` seconds of CPU right after the minimum-work kernel (``bench._anchor``, the reference
kernel's work per node) ran as long on roots 1, 2, ...; its share is its nodes per CPU second
over the kernel's just before.  A process makes ``--repeats`` such repeats (the algorithms in an
order rotated from repeat to repeat); ``--rounds`` rounds each start one process per code, the
codes in alternating order, so a burst of load hits both.  The report gives per code the median
share over every repeat (``rounds x repeats``, at least 15 by default) with its range.

Per call: the CPU time of a Star2 search through the same call on the 186-node tree of the
bench's per-call section (``bench.PER_CALL_TREE``), the least of 20 blocks of 500 calls, in each
measuring process; the median over processes.  Compile: the CPU time of the first search's
kernel (``engine.warm_up()``: without a table) in a fresh process with an empty numba cache,
``--compiles`` times per code, interleaved; the median and range.  The load average is recorded
before and after.  Writes ``engine.json`` and ``engine.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: CPU seconds of each timed block (the anchor's, then the search's).
BLOCK = 0.1
#: The speed each Star variant should reach (% of the anchor), by shape.
TARGETS = {"b5-c6-d4": 45, "b10-c10-d3": 45, "b20-c21dice-d2": 30}
STAR = ("star2", "star2.5-cyclic", "star2.5-sequential")


def _rate(fn: Any, seconds: float) -> float:
    """``timing.rate`` and, in ``_measure``, ``timing.paired``'s loop, written again on purpose:
    the harness is this file, the same for both codes, and an older checkout has neither."""
    nodes, j = 0, 0
    t0 = time.process_time()
    while True:
        nodes += fn(j)
        j += 1
        spent = time.process_time() - t0
        if spent >= seconds:
            return nodes / spent


def measure(repeats: int) -> dict[str, Any]:
    """One measuring process (``--measure``): the shares of every repeat, and the per-call
    time, of the starbench on ``sys.path``."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    with contextlib.suppress(AttributeError, OSError):  # one core, where the OS allows it
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    try:
        return _measure(repeats)
    finally:
        if cores is not None:
            os.sched_setaffinity(0, cores)


def _measure(repeats: int) -> dict[str, Any]:
    import numpy as np

    from starbench import RegularTree, search

    try:
        from starbench.commands import bench as B
    except ImportError:  # a checkout before 0.3 (starbench.bench)
        from starbench import bench as B
    from starbench.trees.regular import RegularTreeSpec

    shares: dict[str, dict[str, list[float]]] = {}
    for label, params in B.SHAPES:
        spec = RegularTreeSpec(**params, generator_version=2)
        plies, b, probs = B.anchor_args(spec)
        count = np.zeros(1, np.int64)

        def anchor(j: int, plies=plies, b=b, probs=probs, count=count) -> int:
            count[0] = 0
            B._anchor(np.uint64(j + 1), plies, True, b, probs, count)
            return int(count[0])

        calls = {}
        for algo, p in B.ALGOS:
            calls[algo] = lambda j, a=algo, p=p, s=spec: (
                search(
                    RegularTree(s, seed=0, instance=j % 5), a, engine="compiled", **p
                ).stats.nodes
            )
            calls[algo](0)  # loaded (or compiled) outside the timing
        anchor(0)
        names = list(calls)
        got: dict[str, list[float]] = {n: [] for n in names}
        for r in range(repeats):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                a = _rate(anchor, BLOCK)
                got[name].append(_rate(calls[name], BLOCK) / a)
        shares[label] = got
    tiny = RegularTreeSpec(**B.PER_CALL_TREE)
    best = float("inf")
    for _ in range(20):
        t0 = time.process_time()
        for _ in range(500):
            search(RegularTree(tiny, 0, 0), "star2", engine="compiled")
        best = min(best, (time.process_time() - t0) / 500)
    return {"shares": shares, "per_call_us": 1e6 * best}


_COMPILE = (
    "import time; import starbench.compiled.engine as e; t = time.process_time(); "
    "e.warm_up(); print(time.process_time() - t)"
)


def _env(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src), "STARBENCH_PROGRESS": "0"}


def _spawn(src: Path, *args: str) -> str:
    p = subprocess.run(
        [sys.executable, *args], env=_env(src), capture_output=True, text=True, cwd=ROOT
    )
    if p.returncode != 0:
        raise RuntimeError(f"{src}: {' '.join(args[:3])}: {p.stderr[-1500:]}")
    return p.stdout


def _commit(checkout: Path) -> str:
    p = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short=12", "HEAD"],
        capture_output=True,
        text=True,
    )
    return p.stdout.strip() or "unknown"


def _pct(v: list[float]) -> dict[str, float]:
    return {"median": 100 * statistics.median(v), "min": 100 * min(v), "max": 100 * max(v)}


def compare(
    before: Path, rounds: int, repeats: int, compiles: int, quiet: float = 0
) -> dict[str, Any]:
    from starbench.experiment.timing import machine, source_state, wait_for_quiet

    codes = {"before": Path(before).resolve() / "src", "after": ROOT / "src"}
    for src in codes.values():
        if not (src / "starbench" / "engines.py").is_file():
            raise SystemExit(f"--before {before}: no starbench source under {src}")
    load_before = wait_for_quiet(quiet)  # quiet = 0: read at once
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in codes}
    me = str(Path(__file__).resolve())
    for r in range(rounds):
        order = list(codes) if r % 2 == 0 else list(codes)[::-1]
        for name in order:
            out = _spawn(codes[name], me, "--measure", "--repeats", str(repeats))
            runs[name].append(json.loads(out.strip().splitlines()[-1]))
    compile_s: dict[str, list[float]] = {n: [] for n in codes}
    for r in range(compiles):
        for name in list(codes) if r % 2 == 0 else list(codes)[::-1]:
            with tempfile.TemporaryDirectory() as cache:
                env = {**_env(codes[name]), "NUMBA_CACHE_DIR": cache}
                p = subprocess.run(
                    [sys.executable, "-c", _COMPILE], env=env, capture_output=True, text=True
                )
                if p.returncode != 0:
                    raise RuntimeError(p.stderr[-1500:])
                compile_s[name].append(float(p.stdout.strip().splitlines()[-1]))
    after = wait_for_quiet(quiet)
    result: dict[str, Any] = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d"),
        "before": {"checkout": str(before), "commit": _commit(Path(before))},
        "after": {"source": source_state()},
        "load": {"before": load_before["load"], "after": after["load"]},
        "load_waited_s": {"before": load_before["waited_s"], "after": after["waited_s"]},
        "rounds": rounds,
        "repeats_per_process": repeats,
        "block_seconds": BLOCK,
        "targets": TARGETS,
        "shares": {},
        "per_call_us": {},
        "compile_s": {},
    }
    for name in codes:
        merged: dict[str, dict[str, list[float]]] = {}
        for run in runs[name]:
            for shape, by_algo in run["shares"].items():
                for algo, v in by_algo.items():
                    merged.setdefault(shape, {}).setdefault(algo, []).extend(v)
        result["shares"][name] = {
            shape: {algo: {**_pct(v), "n": len(v)} for algo, v in by_algo.items()}
            for shape, by_algo in merged.items()
        }
        per_call = [run["per_call_us"] for run in runs[name]]
        result["per_call_us"][name] = {
            "median": statistics.median(per_call),
            "min": min(per_call),
            "max": max(per_call),
        }
        result["compile_s"][name] = {
            "median": statistics.median(compile_s[name]),
            "min": min(compile_s[name]),
            "max": max(compile_s[name]),
        }
    return result


def markdown(result: dict[str, Any]) -> str:
    m, load = result["machine"], result["load"]
    waited = result.get("load_waited_s", {})
    shown = {
        k: "/".join(f"{x:.2f}" for x in v)
        + (f" (read after waiting {waited[k]:.0f} s)" if waited.get(k) else "")
        for k, v in load.items()
        if v
    }
    sh = result["shares"]
    n = next(iter(next(iter(sh["after"].values())).values()))["n"]
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores, Python {m['python']}, numba "
        f"{m['numba']}; {result['date']}; before: commit {result['before']['commit']}, after: "
        f"{result['after']['source']}; load average (1/5/15 min) {shown.get('before', '?')} "
        f"before, {shown.get('after', '?')} after.",
        "",
        "Per node, the way a user calls it (`scripts/engine_speed.py`): each search through "
        '`starbench.search(RegularTree(spec, seed=0, instance=i), name, engine="compiled")` '
        f"(generator version 2, the tree built in the call) for {result['block_seconds']:g} s "
        "of CPU right after the minimum-work kernel ran as long; % of the kernel's nodes per "
        f"CPU second, the median of {n} repeats ({result['rounds']} rounds of one process per "
        f"code, {result['repeats_per_process']} repeats each, the codes alternating), range "
        "in brackets; target: the Star variants' least share asked.",
        "",
        "| tree | algorithm | before | after | target |",
        "|---|---|---:|---:|---:|",
    ]
    fmt = lambda v: f"{v['median']:.0f} ({v['min']:.0f}-{v['max']:.0f})"  # noqa: E731
    for shape, by_algo in sh["after"].items():
        for algo, v in by_algo.items():
            target = f"{result['targets'][shape]}" if algo in STAR else ""
            lines.append(
                f"| {shape} | {algo} | {fmt(sh['before'][shape][algo])} | {fmt(v)} | {target} |"
            )
    pc, cs = result["per_call_us"], result["compile_s"]
    lines += [
        "",
        f"Per call (a Star2 search of a 186-node tree through the same call, the least of 20 "
        f"blocks of 500 calls, median over the processes): before {pc['before']['median']:.1f} "
        f"us, after {pc['after']['median']:.1f} us.  Compile (the kernel without a table, a "
        f"fresh process with an empty numba cache, median of {result.get('compiles', 3)}"
        f" interleaved): before {cs['before']['median']:.1f} s ({cs['before']['min']:.1f}-"
        f"{cs['before']['max']:.1f}), after {cs['after']['median']:.1f} s "
        f"({cs['after']['min']:.1f}-{cs['after']['max']:.1f}).",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="a checkout of the older code (git worktree add DIR COMMIT)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compiles", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    ap.add_argument(
        "--quiet",
        type=float,
        default=0,
        metavar="SECONDS",
        help="wait up to SECONDS for a 1-minute load average under 0.5 before the run and "
        "after it (the run's own core leaves the average about a minute after it ends)",
    )
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.repeats)))
        return 0
    if not args.before:
        ap.error("--before DIR is required")
    result = compare(Path(args.before), args.rounds, args.repeats, args.compiles, args.quiet)
    result["compiles"] = args.compiles
    sys.path.insert(0, str(ROOT / "src"))
    from starbench.ground.files import atomic_write_text

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "engine.json", json.dumps(result, indent=1))
    atomic_write_text(out / "engine.md", markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
