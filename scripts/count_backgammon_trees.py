#!/usr/bin/env python3
"""Count the full backgammon trees of a study's positions: expectimax's nodes and leaves there,
without evaluating a leaf (``starbench.games.adapter.full_tree_counts``).

The deeper searches of the backgammon study run Star2 and Star2.5 only; their percent of
expectimax's leaves divides by these counts.  Reads every game table below RESULTS, counts each
distinct (position, dice, depth) once and writes ``RESULTS/full-tree.csv`` (position, dice,
depth, nodes, leaves, class, gnubg_nn_version), atomically.  ``--check`` also counts the
positions where expectimax did run and fails unless the counts equal its rows.

    python scripts/count_backgammon_trees.py results/hauk2004-backgammon-deep [--check DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from starbench.analysis import load_results
from starbench.games.adapter import full_tree_counts
from starbench.games.backgammon import position_class, version
from starbench.games.source import game_source
from starbench.ground.files import atomic_write_text


def count(positions: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (position, dice, depth), _ in positions.groupby(["position", "dice", "depth"]):
        src = game_source("backgammon", int(depth), position, dice=dice or None)
        nodes, leaves = full_tree_counts(src.tree)
        rows.append((position, dice, int(depth), nodes, leaves, position_class(position)))
    out = pd.DataFrame(rows, columns=["position", "dice", "depth", "nodes", "leaves", "class"])
    out["gnubg_nn_version"] = version()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--check", type=Path, help="a study folder with expectimax rows to check")
    args = ap.parse_args(argv)
    df = load_results(args.results)
    games = df[df["game"] == "backgammon"].fillna({"dice": ""})
    counts = count(games)
    atomic_write_text(args.results / "full-tree.csv", counts.to_csv(index=False))
    print(f"{args.results / 'full-tree.csv'}: {len(counts)} positions")
    if args.check:
        ex = load_results(args.check)
        ex = ex[(ex["algorithm"] == "expectimax") & (ex["status"] == "ok")].fillna({"dice": ""})
        ex = ex.drop_duplicates(["position", "dice", "depth"])
        keys = ["position", "dice", "depth"]
        got = count(ex).set_index(keys)[["nodes", "leaves"]]
        want = ex.set_index(keys)[["nodes", "leaves"]].astype(int).loc[got.index]
        bad = (got.to_numpy() != want.to_numpy()).any(axis=1)
        print(f"check: {len(got)} positions counted, {int(bad.sum())} differ from expectimax")
        if bad.any():
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
