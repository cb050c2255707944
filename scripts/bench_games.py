"""starbench's expectimax against OpenSpiel's own Python expectiminimax on the same game searches.

For each search (game, position, depth) three contenders run on the same root state with the same
heuristic and root player: starbench, OpenSpiel, and a *bare* expectimax on the state API (no
counting, no checks, no best move: ``bare_value``, the game's own cost, the least any adapter
must do).  They are interleaved in every repeat (each goes first in turn), timed in CPU time of
this process pinned to one core, each search right after a full garbage collection
(``timed``); the report gives each one's median time and the medians over
repeats of the ratios starbench / OpenSpiel and starbench / bare with their ranges, after checking
that all return the same value, starbench and OpenSpiel the same best action, and that
starbench's node count equals OpenSpiel's number of calls (counted in a separate, untimed run:
the counting wrapper would add a call per node to OpenSpiel's time).  The machine's load average
is recorded before and after; with ``--quiet SECONDS`` each reading waits (up to SECONDS) for a
1-minute average under 0.5, so the run starts on a quiet machine and its own core has left the
average when the after-reading is taken.  To compare with an older checkout, run this file
with ``PYTHONPATH=<checkout>/src`` (it then reads the load once at each end).

    python scripts/bench_games.py [--repeats 21] [--quiet SECONDS] [--out results/bench/games.md]

On a shared machine the CPU times of contenders this close move by more than their difference.
``--instructions`` counts instead, with valgrind's callgrind: for each search three fresh
processes (the same imports and set-up; then nothing, one OpenSpiel search, one starbench search),
each search's count being its process's total minus the first's (the first makes the same
collection before its no-search), with ``PYTHONHASHSEED=0`` so that dict and set layouts are
the same in every process.  About 50 times slower than the search itself; needs ``valgrind``
on the PATH.

    python scripts/bench_games.py --instructions [--out results/bench/games-instructions.md]

Needs the games extra (pip install -c constraints.txt -e ".[games]").
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from open_spiel.python.algorithms import minimax

try:
    from starbench.experiment.timing import pin_one_core, source_state, wait_for_quiet
except ImportError:  # an older checkout measured with this harness (PYTHONPATH=<old>/src)
    try:
        from starbench.commands.bench import _pin_one_core as pin_one_core
        from starbench.commands.bench import source_state
    except ImportError:  # a checkout before 0.3 (starbench.bench)
        from starbench.bench import _pin_one_core as pin_one_core
        from starbench.bench import source_state
    try:
        from starbench.commands.bench import wait_for_quiet
    except ImportError:
        wait_for_quiet = None
try:
    from starbench.ground.files import atomic_write_text
except ImportError:  # an older checkout (before starbench.ground.files)
    try:
        from starbench.files import atomic_write_text
    except ImportError:  # before starbench.files
        from starbench.experiment.storage import atomic_write_text
from starbench.games.source import game_source

try:
    from starbench.search import reference_search as search
except ImportError:  # an older checkout (before the Python engine's entry was renamed)
    from starbench.search import search

SEARCHES = (
    ("pig", None, 5),
    ("pig", None, 6),
    ("pig(winscore=10)", None, 7),
    ("einstein_wurfelt_nicht", "0,0", 3),
    ("einstein_wurfelt_nicht", "0,0", 4),
)

#: starbench's exact alternatives to expectimax, each timed against OpenSpiel too: Star2 with a
#: transposition table used at chance nodes (``tt_chance``, ``tt_probe``; the reference module),
#: and Star2 alone (the games' fused Star2, ``starbench.games.stars``; the table pays only where
#: the game's key finds transpositions: ``starbench.games.keys``).
FAST = (
    ("star2", {"tt": 16, "tt_chance": True, "tt_probe": True}),
    ("star2", {}),
)


def openspiel_calls(src, depth):
    """OpenSpiel's number of calls (one per node it visits), counted in an untimed run: the
    counting wrapper adds a Python call per node, so the timed runs go without it."""
    calls = [0]
    original = minimax.expectiminimax

    def counting(*args):
        calls[0] += 1
        return original(*args)

    minimax.expectiminimax = counting  # its recursion looks the name up in the module
    try:
        counting(src.tree.root[0].clone(), depth, src.tree.heuristic, src.tree.root_player)
        return calls[0]
    finally:
        minimax.expectiminimax = original


#: A search shorter than this (OpenSpiel's, timed once before the repeats) is timed as
#: ``BATCH`` searches in a row per repeat, each contender alike: one CPU-clock reading per
#: ~10 ms search would be mostly the clock's and the collector's noise.
SHORT = 0.05
BATCH = 10


def timed(search, batch=1):
    """(CPU seconds per search, result) of ``batch`` calls of ``search()`` in a row.  Every timed
    or counted run starts right after a full collection, so each contender starts from the same
    collector state: a full collection of the whole heap (tens of millions of instructions
    here) then falls where a search's own allocations put it, not where the previous search
    left the counters.  The collector stays on: collecting what a search allocates is part of
    its cost."""
    gc.collect()
    t = time.process_time()
    for _ in range(batch):
        result = search()
    return (time.process_time() - t) / batch, result


def openspiel_run(src, depth, calls, batch=1):
    state = src.tree.root[0].clone()  # expectiminimax clones before it applies an action
    tree = src.tree
    seconds, (value, action) = timed(
        lambda: minimax.expectiminimax(state, depth, tree.heuristic, tree.root_player), batch
    )
    return seconds, value, action, calls


def bare_value(state, left, heuristic, root_player):
    """The game's own cost: expectimax on the state API and nothing else (no counting, no
    checks, no best move), the least any adapter must do: make each child with
    ``state.child``, ask whether it is terminal, evaluate it at the horizon.  Same value as
    starbench's (same order of sums and float arithmetic)."""
    player = state.current_player()
    chance = player == -1  # pyspiel: is_chance_node()
    if chance:
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        nxt = left
    else:
        actions = state.legal_actions()
        nxt = left - 1
    values = []
    for a in actions:
        child = state.child(a)
        if child.is_terminal():
            values.append(float(child.returns()[root_player]))
        elif nxt <= 0:
            values.append(float(heuristic(child)))
        else:
            values.append(bare_value(child, nxt, heuristic, root_player))
    if chance:
        total = 0.0
        for (_, p), v in zip(outcomes, values, strict=True):
            total += float(p) * v
        return total
    return max(values) if player == root_player else min(values)


def bare_run(src, depth, batch=1):
    tree = src.tree
    return timed(lambda: bare_value(tree.root[0], depth, tree.heuristic, tree.root_player), batch)


def starbench_run(src, algorithm="expectimax", params=None, batch=1):
    seconds, r = timed(lambda: search(src.tree, algorithm, **(params or {})), batch)
    return seconds, r.value, src.action(r.best_move), r.stats.nodes


def _label(algorithm, params):
    from starbench.search.registry import resolve

    return resolve(algorithm, params).label


def one_search(spec: str, position: str, depth: int, who: str) -> None:
    """The body of an ``--instructions`` process: set up (a depth-1 search by each contender
    first, so that no one-time import or cache is counted to either), then one search of
    ``who`` (``none``, ``openspiel`` or ``starbench``)."""
    warm = game_source(spec, 1, position or None)
    openspiel_run(warm, 1, 0)
    starbench_run(warm)
    src = game_source(spec, depth, position or None)
    if who == "openspiel":
        openspiel_run(src, depth, 0)
    elif who == "starbench":
        starbench_run(src)
    else:  # the same collection as the others, and no search
        gc.collect()


def instructions(spec: str, position: str | None, depth: int, who: str) -> int:
    """The instructions callgrind counts in a fresh process that runs ``one_search``."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    cmd += [sys.executable, __file__, "--one", spec, position or "", str(depth), who]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same dict and set layouts every time
    p = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if m is None:
        raise RuntimeError(f"no callgrind count in: {p.stderr[-500:]}")
    return int(m.group(1))


def instructions_report() -> str:
    lines = []
    for spec, position, depth in SEARCHES:
        base, theirs, ours = (instructions(spec, position, depth, w) for w in WHO)
        a, b = theirs - base, ours - base
        lines.append(
            f"| {game_source(spec, depth, position).game} | {position or '(start)'} | {depth} | "
            f"{a / 1e6:.1f} | {b / 1e6:.1f} | {b / a:.3f} |"
        )
    return "\n".join(
        [
            "starbench expectimax vs OpenSpiel's Python `expectiminimax` on the same searches: "
            "instructions per search counted by valgrind's callgrind (a fresh process per "
            "contender and search, minus a process with the same set-up and no search; the "
            "set-up runs a depth-1 search of each, so one-time imports count to neither; each "
            "search right after a full garbage collection; PYTHONHASHSEED=0, so a re-run "
            f"counts alike); ratio = starbench / OpenSpiel.  At {source_state()}.",
            "",
            "| game | position | depth | OpenSpiel M instructions | starbench M instructions "
            "| ratio |",
            "|---|---|---:|---:|---:|---:|",
            *lines,
        ]
    )


WHO = ("none", "openspiel", "starbench")


def _batched(batches: list[int]) -> str:
    """Which searches were timed in batches, for the report."""
    names = [
        f"{spec} depth {depth}"
        for (spec, _, depth), b in zip(SEARCHES, batches, strict=True)
        if b > 1
    ]
    return "here " + ", ".join(names) if names else "none here"


def _load(quiet: float) -> str:
    """The load average for the report: read at once, or (``--quiet``) once the 1-minute
    average is under 0.5 or ``quiet`` seconds have passed (``bench.wait_for_quiet``)."""
    if wait_for_quiet is None or quiet <= 0:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    r = wait_for_quiet(quiet)
    return "/".join(f"{x:.2f}" for x in r["load"]) + f" (read after waiting {r['waited_s']:.0f} s)"


def timing_report(repeats: int, pin: str, quiet: float = 0) -> str | None:
    """The CPU-time tables (None when the contenders disagree, said on stderr)."""
    load_before = _load(quiet)
    lines, fast_lines, batches = [], [], []
    for spec, position, depth in SEARCHES:
        src = game_source(spec, depth, position)
        calls = openspiel_calls(src, depth)
        batch = BATCH if openspiel_run(src, depth, calls)[0] < SHORT else 1
        batches.append(batch)
        names = ["openspiel", "bare", "starbench", *(f"fast{i}" for i in range(len(FAST)))]
        times: dict[str, list[float]] = {n: [] for n in names}
        ratios: dict[str, list[float]] = {n: [] for n in names}
        nodes: dict[str, int] = {}
        for rep in range(repeats):
            order = names[rep % len(names) :] + names[: rep % len(names)]  # each first in turn
            if rep % 2:
                order = order[::-1]
            got = {}
            for who in order:
                if who == "openspiel":
                    got[who] = openspiel_run(src, depth, calls, batch)
                elif who == "bare":
                    got[who] = bare_run(src, depth, batch)
                elif who == "starbench":
                    got[who] = starbench_run(src, batch=batch)
                else:
                    got[who] = starbench_run(src, *FAST[int(who[4:])], batch=batch)
            a, b, c = got["starbench"], got["openspiel"], got["bare"]
            if (a[1], a[2], a[3]) != (b[1], b[2], b[3]) or c[1] != a[1]:
                sys.stderr.write(
                    f"{spec} depth {depth}: results differ: {a[1:]} vs {b[1:]} vs {c[1:]}\n"
                )
                return None
            for i in range(len(FAST)):  # the same root value and best action as OpenSpiel
                f = got[f"fast{i}"]
                if (f[1], f[2]) != (b[1], b[2]):
                    sys.stderr.write(
                        f"{spec} depth {depth}: {_label(*FAST[i])} gives {f[1:3]}, OpenSpiel "
                        f"{b[1:3]}\n"
                    )
                    return None
                nodes[f"fast{i}"] = f[3]
            for n in names:
                times[n].append(got[n][0])
                ratios[n].append(got[n][0] / b[0])
        over_bare = [x / y for x, y in zip(times["starbench"], times["bare"], strict=True)]

        def med(n, times=times):
            return statistics.median(times[n])

        def rng(xs):
            return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

        lines.append(
            f"| {src.game} | {position or '(start)'} | {depth} | {a[3]} | "
            f"{med('openspiel'):.3f} | {med('bare'):.3f} | {med('starbench'):.3f} | "
            f"{rng(ratios['starbench'])} | {rng(over_bare)} |"
        )
        for i, (algo, params) in enumerate(FAST):
            n = f"fast{i}"
            speedup = [1 / r for r in ratios[n]]
            fast_lines.append(
                f"| {src.game} | {position or '(start)'} | {depth} | {calls} | "
                f"`{_label(algo, params)}` | {nodes[n]} | {med(n):.3f} | {rng(ratios[n])} | "
                f"{statistics.median(speedup):.2f} |"
            )
    load_after = _load(quiet)
    text = "\n".join(
        [
            f"starbench expectimax (Python engine) vs OpenSpiel's Python `expectiminimax` on the "
            f"same searches, and a bare expectimax on the state API (no counting, no checks: the "
            f"game's own cost): CPU seconds per search, median of {repeats} interleaved "
            f"repeats ({pin}; a search whose OpenSpiel search took under {SHORT * 1000:.0f} ms "
            f"once, before the repeats, timed as {BATCH} in a row per repeat, every contender "
            f"alike: {_batched(batches)}); ratio = starbench / OpenSpiel and starbench / bare "
            f"(median over "
            f"repeats, range in brackets); same value, best action and node count checked in "
            f"every repeat.  At {source_state()}; "
            f"load average (1/5/15 min) "
            f"{load_before} before, {load_after} after.",
            "",
            "| game | position | depth | nodes | OpenSpiel s | bare s | starbench s | ratio | "
            "vs bare |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
            *lines,
            "",
            "starbench's exact alternatives in the same repeats: OpenSpiel's side is always "
            "`expectiminimax` without a table (its node count in the fourth column), starbench's "
            "the algorithm named with its table (`tt`: 2^tt slots; the keys: "
            "`starbench.games.keys`; without a table Star2 runs the games' fused path, "
            "`starbench.games.stars`, with one the reference module); each gives OpenSpiel's root "
            "value and best action in every "
            "repeat (checked); ratio = starbench / OpenSpiel CPU time, speed-up = its inverse "
            "(median).",
            "",
            "| game | position | depth | OpenSpiel nodes | starbench algorithm | starbench nodes "
            "| starbench s | ratio | speed-up |",
            "|---|---|---:|---:|---|---:|---:|---:|---:|",
            *fast_lines,
        ]
    )
    return text


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--one"]:  # an --instructions process
        one_search(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--instructions", action="store_true", help="count instructions (callgrind)")
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--quiet",
        type=float,
        default=0,
        metavar="SECONDS",
        help="wait up to SECONDS for a 1-minute load average under 0.5 before the run and "
        "after it (the run's own core leaves the average about a minute after it ends)",
    )
    args = ap.parse_args(argv)
    if args.instructions:
        if shutil.which("valgrind") is None:
            sys.stderr.write("bench_games: --instructions needs valgrind on the PATH\n")
            return 2
        write(args.out or Path("results/bench/games-instructions.md"), instructions_report())
        return 0
    args.out = args.out or Path("results/bench/games.md")
    saved = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        text = timing_report(args.repeats, pin_one_core(), args.quiet)
    finally:  # a caller (a test) keeps its cores
        if saved is not None:
            os.sched_setaffinity(0, saved)
    if text is None:
        return 1
    write(args.out, text)
    return 0


def write(out: Path, text: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, text + "\n")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
