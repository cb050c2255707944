"""How fast could a search of a game go in Python?  A search's own calls to the game, alone.

A starbench search of an OpenSpiel game makes calls to the game (``child``, ``is_terminal``,
``current_player``, ``legal_actions``, ``chance_outcomes``, ``returns``, ``is_chance_node``) and
to the heuristic; everything else is the search's own logic.  This script records, in an untimed
run, every such call a search makes, in order, on which state and with which argument, and writes
them out as one straight-line Python function (``s7 = s2.child(3)``, ``s7.is_terminal()``,
``h(s7)``, ..., each state a local deleted after its last use: no loop, no test, no recursion).
That function makes exactly the search's calls and nothing else around them, so its CPU time is
the game's own cost of that search: what a Python search making those calls pays before any
logic of its own.  It is timed interleaved with OpenSpiel's ``expectiminimax``
and the search itself, as ``bench_games.py`` times them (same pinning, collection, batches of
``BATCH`` for searches under ``SHORT``), and the report gives for each search the speed-up over
OpenSpiel that the search reaches and the one its calls alone would reach.

    python scripts/games_floor.py [--algorithm star2] [--repeats 21] [--quiet SECONDS]
                                  [--out results/bench/games-floor.md]

Needs the games extra (pip install -c constraints.txt -e ".[games]").
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import pyspiel

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_games as bg  # noqa: E402 - the same harness, next to this file

from starbench.experiment.timing import pin_one_core, source_state  # noqa: E402
from starbench.games.source import game_source  # noqa: E402
from starbench.ground.files import atomic_write_text  # noqa: E402
from starbench.search import reference_search as search  # noqa: E402

#: The state API a search calls (``starbench.games.adapter.GameState``).
GAME_CALLS = (
    "child",
    "is_terminal",
    "current_player",
    "is_chance_node",
    "legal_actions",
    "chance_outcomes",
    "returns",
)


def record(src: Any, algorithm: str, params: dict[str, Any]) -> tuple[list[str], list[Any], Any]:
    """(the lines of the straight-line function, the states it starts from, the search's
    result): every call the search makes to a game state or the heuristic, in order."""
    lines: list[str] = []
    index: dict[int, int] = {}
    keep: list[Any] = []  # every state seen, alive, so that no id is reused
    given: list[int] = []

    def ref(state: Any) -> int:
        k = id(state)
        if k not in index:  # a state no traced call made (the root): handed to the function
            index[k] = len(keep)
            keep.append(state)
            given.append(index[k])
            lines.append(f"S[{index[k]}] = K[{index[k]}]")
        return index[k]

    originals = {name: getattr(pyspiel.State, name) for name in GAME_CALLS}

    def traced(name: str, f: Any) -> Any:
        def call(self: Any, *args: Any) -> Any:
            i = ref(self)
            out = f(self, *args)
            if name == "child":
                index[id(out)] = len(keep)
                keep.append(out)
                lines.append(f"S[{len(keep) - 1}] = S[{i}].child({args[0]!r})")
            else:
                lines.append(f"S[{i}].{name}({', '.join(map(repr, args))})")
            return out

        return call

    tree = src.tree
    heuristic = tree.heuristic

    def traced_heuristic(state: Any) -> Any:
        lines.append(f"h(S[{ref(state)}])")
        return heuristic(state)

    for name, f in originals.items():
        setattr(pyspiel.State, name, traced(name, f))
    tree.heuristic = traced_heuristic
    try:
        result = search(tree, algorithm, **params)
    finally:
        for name, f in originals.items():
            setattr(pyspiel.State, name, f)
        tree.heuristic = heuristic
    return lines, [keep[i] if i in given else None for i in range(len(keep))], result


def compile_calls(lines: list[str]) -> Any:
    """The straight-line function ``calls(K, h)`` of the recorded lines: each state a local
    variable (``S[7]`` becomes ``s7``), deleted after its last use, as the search drops a state
    once its subtree is done (a state kept to the end would cost memory traffic the search does
    not pay)."""
    pattern = re.compile(r"S\[(\d+)\]")
    refs = [[int(i) for i in pattern.findall(line)] for line in lines]
    last = {}
    for n, used in enumerate(refs):
        for i in used:
            last[i] = n
    body = []
    for n, (line, used) in enumerate(zip(lines, refs, strict=True)):
        body.append("    " + pattern.sub(r"s\1", line))
        body.extend(f"    del s{i}" for i in sorted(set(used)) if last[i] == n)
    code = "def calls(K, h):\n" + "\n".join(body) + "\n"
    namespace: dict[str, Any] = {}
    exec(compile(code, "<recorded game calls>", "exec"), namespace)  # noqa: S102 - our own lines
    return namespace["calls"]


def report(algorithm: str, params: dict[str, Any], repeats: int, pin: str, quiet: float) -> str:
    load_before = bg._load(quiet)
    rows = []
    for spec, position, depth in bg.SEARCHES:
        src = game_source(spec, depth, position)
        lines, roots, result = record(src, algorithm, params)
        calls = compile_calls(lines)
        heuristic = src.tree.heuristic
        n_calls = sum(1 for line in lines if "= K[" not in line)  # one line per call
        batch = bg.BATCH if bg.openspiel_run(src, depth, 0)[0] < bg.SHORT else 1
        times: dict[str, list[float]] = {"openspiel": [], "search": [], "calls": []}
        for rep in range(repeats):
            order = list(times)[rep % 3 :] + list(times)[: rep % 3]
            for who in order if rep % 2 == 0 else order[::-1]:
                if who == "openspiel":
                    t = bg.openspiel_run(src, depth, 0, batch)[0]
                elif who == "search":
                    t = bg.starbench_run(src, algorithm, params, batch)[0]
                else:
                    t = bg.timed(lambda c=calls, r=roots, h=heuristic: c(r, h), batch)[0]
                times[who].append(t)
        speedup = [o / s for o, s in zip(times["openspiel"], times["search"], strict=True)]
        most = [o / c for o, c in zip(times["openspiel"], times["calls"], strict=True)]

        def rng(xs: list[float]) -> str:
            return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"

        rows.append(
            f"| {src.game} | {position or '(start)'} | {depth} | {result.stats.nodes} | "
            f"{n_calls} | {statistics.median(times['openspiel']):.4f} | "
            f"{statistics.median(times['search']):.4f} | "
            f"{statistics.median(times['calls']):.4f} | {rng(speedup)} | {rng(most)} |"
        )
    load_after = bg._load(quiet)
    label = bg._label(algorithm, params)
    return "\n".join(
        [
            f"`{label}` against OpenSpiel's Python `expectiminimax`, and the same search's own "
            "calls to the game alone (every call to a state and to the heuristic the search "
            "made, recorded in an untimed run and replayed as one straight-line function: "
            "`scripts/games_floor.py`): CPU seconds per search, median of "
            f"{repeats} interleaved repeats ({pin}; searches under "
            f"{bg.SHORT * 1000:.0f} ms timed as {bg.BATCH} in a row); speed-up = OpenSpiel's "
            "time over the search's, and over its calls' alone (what a Python search making "
            "those calls could reach with no logic of its own), median over repeats, range in "
            "brackets.  At "
            f"{source_state()}; load average (1/5/15 min) {load_before} before, "
            f"{load_after} after.",
            "",
            "| game | position | depth | nodes | game calls | OpenSpiel s | search s | "
            "calls alone s | speed-up | speed-up of the calls alone |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
        ]
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algorithm", default="star2")
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--quiet", type=float, default=0, metavar="SECONDS")
    ap.add_argument("--out", type=Path, default=Path("results/bench/games-floor.md"))
    args = ap.parse_args(argv)
    name, _, rest = args.algorithm.partition(":")
    params = dict(kv.split("=", 1) for kv in rest.split(",")) if rest else {}
    saved = bg.os.sched_getaffinity(0) if hasattr(bg.os, "sched_getaffinity") else None
    try:
        text = report(name, params, args.repeats, pin_one_core(), args.quiet)
    finally:
        if saved is not None:
            bg.os.sched_setaffinity(0, saved)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out, text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
