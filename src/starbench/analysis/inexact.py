"""Inexact search on random trees, against expectimax: the chanceprobcut study's table.

Per tree shape, depth and algorithm: the trees, the mean nodes searched and their ratio to exact
Star2's on the same trees, the mean |value error| against expectimax (95 % bootstrap interval;
an exact row's error is 0) and its mean as a percent of the tree's U - L, the largest error, the
percent of trees with any error, and the percent of moves among expectimax's best (95 % Wilson
interval; expectimax is the random trees' oracle, ``decision_optimal``).  Only stored tables
are read.
"""

from __future__ import annotations

import pandas as pd

from starbench.analysis.decisions import scored_rows
from starbench.oracles.decisions import binomial_interval, mean_interval

#: The columns that tell the study's cells apart.
SHAPE = ("branching", "chance_arity", "distribution", "depth")


def abs_error(d: pd.DataFrame) -> pd.Series:
    """|value_error| of the inexact (``approx``) rows; an exact row's error is 0."""
    return d["value_error"].astype(float).abs().where(d["status"] == "approx", 0.0)


def error_table(df: pd.DataFrame) -> str:
    """Markdown, one row per shape, depth and algorithm (see the module docstring)."""
    d = scored_rows(df)
    d = d.assign(abs_error=abs_error(d))
    d = d.assign(rel_error=100 * d["abs_error"] / (d["U"].astype(float) - d["L"].astype(float)))
    star2 = d[d["label"] == "star2"].groupby([*SHAPE])["nodes"].mean()
    lines = [
        "| moves x outcomes | outcomes | depth | algorithm | trees | mean nodes | % of Star2's "
        "nodes | mean abs. value error [95% CI] | as % of U - L | largest error | % trees with "
        "an error | % moves among expectimax's best [95% CI] |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    groups = d.groupby([*SHAPE, "label"], sort=True)
    order = sorted(groups, key=lambda kv: (kv[0][:4], kv[1]["nodes"].mean()))
    for (b, c, dist, depth, label), g in order:
        n = len(g)
        mean, lo, hi = mean_interval(g["abs_error"])
        k = int(g["decision_optimal"].sum())
        plo, phi = binomial_interval(k, n)
        ratio = 100 * g["nodes"].mean() / star2.get((b, c, dist, depth), float("nan"))
        lines.append(
            f"| {b} x {c} | {dist} | {depth} | {label} | {n} | {g['nodes'].mean():.0f} | "
            f"{ratio:.1f} | {mean:.4g} [{lo:.4g}, {hi:.4g}] | {g['rel_error'].mean():.3g} | "
            f"{g['abs_error'].max():.4g} | "
            f"{100 * (g['abs_error'] > 0).mean():.1f} | {100 * k / n:.1f} [{100 * plo:.1f}, "
            f"{100 * phi:.1f}] |"
        )
    return "\n".join(lines) + "\n"
