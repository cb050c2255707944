"""Games at native speed: warm ``starbench.search`` calls over a game's model against a minimal
native expectimax and against the Python engine, on fresh positions.

For each round, fresh positions are drawn by seeded random playouts (``--seed``; pig under a
rule setting of its own, ``--pig``), and every contender searches every position of the round:
first the native contenders (the compiled engine and the minimal search), position after
position, the two of a position one after the other in an order rotated from round to round;
then the Python engine on the same positions (its searches, thousands of times longer, leave the
processor's caches cold for whatever runs next: after one of them, a depth-5 pig call of the
compiled engine took about 0.45 ms instead of 0.3 here).
What is timed is one whole call in CPU time of this process pinned to one core: for starbench
the public ``starbench.search(tree, algorithm)`` (its fixed cost included: the request, the
engine choice, the model's state read from the position, the kernel's bundles), with the game
source built before the timing (``game_source``, as a user does once per position).  The
contenders:

* ``floor``: a minimal native pig model with a plain expectimax: one recursive numba function
  over the state's six numbers as scalars (no arrays, no counters beyond the nodes, no best
  move), pig's rules written out in it, the heuristics pig's model computes: the least a native
  search of the same tree does (about 50 M nodes/s on the development machine; an earlier floor,
  a recursion over the model's own functions and arrays, ran at 12-33 M nodes/s and flattered
  the compiled engine);
* ``compiled``: ``starbench.search`` with ``engine="auto"`` (the compiled kernel over the model);
* ``python``: the same with ``engine="python"`` (the reference engine, its fused game path).

Every contender's value (and the two engines' node counts, best moves and every counter) are
checked equal on every position.  The report gives per (game, depth, heuristic, algorithm) the
median nodes per search, each contender's median CPU time per search, and the medians over the
positions of the time ratios (compiled / floor, python / compiled), with their ranges, and the
machine's load average before and after.

    python scripts/bench_native.py [--rounds 4] [--positions 6] [--out results/bench/native.md]

Needs the games extra (pip install -c constraints.txt -e ".[games]").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import starbench  # noqa: F401 - before numba: it points numba's cache at starbench's folder

# isort: split
from numba import njit

from starbench import search
from starbench.experiment.timing import load_average, machine, pin_one_core, source_state
from starbench.games.models import CHANCE, model_of
from starbench.games.source import game_source, random_history
from starbench.ground.files import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]


@njit  # not cached: numba 0.68 can crash reloading a cached recursive function
def floor_expectimax(win, faces, horizon, s0, s1, tt, cur, chance, turns, left, root, code, count):  # noqa: ANN001, ANN201, E501
    """The minimal native pig expectimax: the value, for player ``root``, of the state (scores
    ``s0`` and ``s1``, turn total ``tt``, turn player ``cur``, rolling or not, ``turns``
    decisions made) with ``left`` decision plies; ``count[0]`` the nodes entered."""
    count[0] += 1
    if s0 >= win or s1 >= win or turns >= horizon:  # over: the winner's return, or a draw
        if s0 >= win:
            return 1.0 if root == 0 else -1.0
        if s1 >= win:
            return 1.0 if root == 1 else -1.0
        return 0.0
    if left == 0:  # pig_heuristic's codes: zero, score difference, score share
        diff = s0 - s1 if root == 0 else s1 - s0
        return 0.0 if code == 0 or code == 3 else (float(diff) if code == 1 else diff / win)
    if chance:  # a one passes the turn and loses the turn total; face f adds f
        q = 1.0 / faces  # summed as the model's probabilities are, in the same order
        v = q * floor_expectimax(win, faces, horizon, s0, s1, 0, 1 - cur, False, turns, left,
                                 root, code, count)  # fmt: skip
        for f in range(2, faces + 1):
            v += q * floor_expectimax(win, faces, horizon, s0, s1, tt + f, cur, False, turns,
                                      left, root, code, count)  # fmt: skip
        return v
    # stop: bank the turn total, the turn passes
    if cur == 0:
        stop = floor_expectimax(win, faces, horizon, s0 + tt, s1, 0, 1, False, turns + 1,
                                left - 1, root, code, count)  # fmt: skip
    else:
        stop = floor_expectimax(win, faces, horizon, s0, s1 + tt, 0, 0, False, turns + 1,
                                left - 1, root, code, count)  # fmt: skip
    if (s0 if cur == 0 else s1) + tt >= win:  # at the win score: stop only
        return stop
    roll = floor_expectimax(win, faces, horizon, s0, s1, tt, cur, True, turns + 1, left - 1,
                            root, code, count)  # fmt: skip
    return max(roll, stop) if cur == root else min(roll, stop)


def floor_args(m: Any, state: Any, depth: int, root: int, heuristic: str, count: Any) -> tuple:
    """``floor_expectimax``'s arguments for a pig model's state (``games.models``' layout)."""
    p, s = [int(x) for x in m.params], [int(x) for x in state]
    chance = s[4] == CHANCE
    return (*p, s[0], s[1], s[2], s[3], chance, s[5], depth, root, m.heuristic_code(heuristic),
            count)  # fmt: skip


def positions(game: Any, rng: Any, n: int, least: int) -> list[str | None]:
    """``n`` positions of random playouts (``least`` or more actions, never terminal)."""
    return [random_history(game, rng, least, least + 25) for _ in range(n)]


def cpu(fn: Any) -> tuple[float, Any]:
    t0 = time.process_time()
    got = fn()
    return time.process_time() - t0, got


#: (game, depth, heuristic, algorithms, least actions before a position, with the floor)
CASES = (
    ("PIG", 5, "zero", ("expectimax",), 0, False),
    ("PIG", 6, "zero", ("expectimax",), 0, False),
    ("PIG", 5, "score_share", ("expectimax", "star1", "star2", "star2.5-cyclic"), 0, True),
    ("PIG", 6, "score_share", ("expectimax", "star1", "star2", "star2.5-cyclic"), 0, True),
    ("einstein_wurfelt_nicht", 4, "einstein_progress", ("expectimax", "star2"), 3, False),
)


def time_one(
    who: str, game: Any, name: str, depth: int, position: Any, heuristic: str, algorithm: str
) -> tuple[float, Any]:
    """One contender's search of one position: (CPU seconds, its result; the floor's is (value,
    nodes)), the game source built outside the timing."""
    src = game_source(name, depth, position, heuristic)
    if who == "floor":
        m = model_of(game)
        s = m.from_state(src.tree.root[0])
        counter = np.zeros(1, np.int64)
        args = floor_args(m, s, depth, src.tree.root_player, heuristic, counter)
        secs, value = cpu(lambda: floor_expectimax(*args))
        return secs, (value, int(counter[0]))
    return cpu(lambda: search(src.tree, algorithm, engine=who))


def measure(pig: str, rounds: int, n: int, seed: int, einstein_positions: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows: dict[tuple, dict[str, list[float]]] = {}
    for r in range(rounds):
        for game_name, depth, heuristic, algorithms, least, with_floor in CASES:
            name = pig if game_name == "PIG" else game_name
            game = pyspiel.load_game(name)
            count = einstein_positions if "einstein" in name else n
            drawn = positions(game, rng, count, least)
            results: dict[tuple[int, str], dict[str, Any]] = {}

            # the native contenders first, position after position, in an order rotated from
            # round to round; then the Python engine on the same positions (its long searches
            # would otherwise leave the processor's caches cold for the contender after it)
            for i in range(len(drawn)):
                for algorithm in algorithms:
                    native = ["compiled"] + (
                        ["floor"] if with_floor and algorithm == "expectimax" else []
                    )
                    k = r % len(native)
                    for who in native[k:] + native[:k]:
                        case = (game, name, depth, drawn[i], heuristic, algorithm)
                        results.setdefault((i, algorithm), {})[who] = time_one(who, *case)
            for i in range(len(drawn)):
                for algorithm in algorithms:
                    case = (game, name, depth, drawn[i], heuristic, algorithm)
                    results[(i, algorithm)]["python"] = time_one("python", *case)
            for (i, algorithm), got in sorted(results.items()):
                key = (name, depth, heuristic, algorithm)
                row = rows.setdefault(key, {"nodes": [], "compiled": [], "python": [],
                                            "floor": []})  # fmt: skip
                for who, (secs, _) in got.items():
                    row[who].append(secs)
                a, b = got["compiled"][1], got["python"][1]
                same = (a.value, a.best_move, a.stats) == (b.value, b.best_move, b.stats)
                if not same:
                    raise SystemExit(f"engines differ: {key} at {drawn[i]}")
                if "floor" in got and got["floor"][1] != (a.value, a.stats.nodes):
                    raise SystemExit(f"the floor differs: {key} at {drawn[i]}")
                row["nodes"].append(a.stats.nodes)
    out = []
    for (name, depth, heuristic, algorithm), row in rows.items():
        comp, py, fl = row["compiled"], row["python"], row["floor"]
        ratio = [p / c for p, c in zip(py, comp, strict=True)]
        entry = {
            "game": name,
            "depth": depth,
            "heuristic": heuristic,
            "algorithm": algorithm,
            "searches": len(comp),
            "nodes": statistics.median(row["nodes"]),
            "compiled_ms": 1e3 * statistics.median(comp),
            "python_ms": 1e3 * statistics.median(py),
            "compiled_mnps": statistics.median(
                [n / c / 1e6 for n, c in zip(row["nodes"], comp, strict=True)]
            ),
            "speedup": (statistics.median(ratio), min(ratio), max(ratio)),
        }
        if fl:
            vs = [c / f for c, f in zip(comp, fl, strict=True)]
            entry["floor_ms"] = 1e3 * statistics.median(fl)
            entry["vs_floor"] = (statistics.median(vs), min(vs), max(vs))
        out.append(entry)
    return out


def report(rows: list[dict], args: Any, before: Any, after: Any, pinned: str) -> str:
    lines = [
        "| game | depth | heuristic | algorithm | searches | median nodes | compiled: median ms "
        "per call | M nodes/s (whole call) | Python engine: median ms | Python / compiled: "
        "median (range) | minimal native expectimax: median ms | compiled / minimal: median "
        "(range) |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        s = r["speedup"]
        floor = vs = ""
        if "vs_floor" in r:
            f = r["vs_floor"]
            floor, vs = f"{r['floor_ms']:.2f}", f"{f[0]:.2f} ({f[1]:.2f}-{f[2]:.2f})"
        lines.append(
            f"| {r['game']} | {r['depth']} | {r['heuristic']} | {r['algorithm']} | "
            f"{r['searches']} | {r['nodes']:,.0f} | {r['compiled_ms']:.2f} | "
            f"{r['compiled_mnps']:.1f} | {r['python_ms']:.1f} | {s[0]:.0f} ({s[1]:.0f}-{s[2]:.0f})"
            f" | {floor} | {vs} |"
        )
    m = machine()
    lines += [
        "",
        f"Warm `starbench.search` calls, whole call in CPU time (its fixed cost included; the "
        f"game source built before the timing), on fresh positions of seeded random playouts "
        f"(seed {args.seed}; {args.rounds} rounds of {args.positions} pig positions and "
        f"{args.einstein} Einstein positions per case), the native contenders interleaved, "
        f"then the Python engine on the same positions (`python scripts/bench_native.py`); "
        f"every search's value, best move and counters equal on both "
        f"engines.  At {source_state()}; {m['cpu_model']}, {pinned}; numba {m['numba']}; load "
        f"average (1/5/15 min) {before} before, {after} after.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--positions", type=int, default=6)
    ap.add_argument("--einstein", type=int, default=1, help="Einstein positions per round")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--pig", default="pig(winscore=60)", help="the pig rule setting")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "bench" / "native.md")
    args = ap.parse_args(argv)
    pinned = pin_one_core()
    src = game_source(args.pig, 1)
    search(src.tree, "star2")  # the kernels loaded (or compiled) before any timing
    search(game_source("einstein_wurfelt_nicht", 1, "0,0").tree, "star2")
    m = model_of(pyspiel.load_game(args.pig))
    floor_expectimax(*floor_args(m, m.initial(), 1, 0, "score_share", np.zeros(1, np.int64)))
    before = load_average()
    rows = measure(args.pig, args.rounds, args.positions, args.seed, args.einstein)
    text = report(rows, args, before, load_average(), pinned)
    atomic_write_text(args.out, text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
