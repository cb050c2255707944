"""The pig-decisions study's tables: decision quality by depth against pig's exact oracle, and
the match tables (``starbench match``) stored beside the cells.

``quality`` is the one place that summarises decision quality per condition: the positions
scored, the percent of optimal decisions with its 95 % Wilson interval, the mean regret with its
95 % bootstrap interval (``starbench.oracles.decisions``), and each algorithm's mean nodes.

Inexact search on random trees against expectimax (the chanceprobcut study's table,
``error_table``): per tree shape, depth and algorithm, the trees, the mean nodes searched and
their ratio to exact Star2's on the same trees, the mean |value error| against expectimax (95 %
bootstrap interval; an exact row's error is 0) and its mean as a percent of the tree's U - L, the
largest error, the percent of trees with any error, and the percent of moves among expectimax's
best (95 % Wilson interval; expectimax is the random trees' oracle, ``decision_optimal``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from starbench.ground.statistics import binomial_interval, mcnemar, mean_interval

CONDITION = ["game", "heuristic", "sampler", "depth"]


def scored_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The finished rows an oracle scored (exact and ``approx`` alike), with
    ``decision_optimal`` as bool and ``regret`` and ``nodes`` as floats."""
    ok = df["status"].isin(["ok", "unverified", "approx"])  # approx: inexact requests
    d = df[df["decision_optimal"].notna() & ok].copy()
    d["decision_optimal"] = d["decision_optimal"].astype(bool)
    d["regret"] = d["regret"].astype(float)
    d["nodes"] = d["nodes"].astype(float)
    return d


def quality(df: pd.DataFrame) -> pd.DataFrame:
    """Per condition and algorithm: positions, optimal decisions (count, %, Wilson interval),
    mean regret (bootstrap interval), mean nodes."""
    rows = []
    for key, g in scored_rows(df).groupby([*CONDITION, "label"], sort=True):
        k, n = int(g["decision_optimal"].sum()), len(g)
        lo, hi = binomial_interval(k, n)
        mean, rlo, rhi = mean_interval(g["regret"])
        rows.append(
            {
                **dict(zip([*CONDITION, "label"], key, strict=True)),
                "positions": n,
                "optimal": k,
                "pct_optimal": 100 * k / n,
                "pct_lo": 100 * lo,
                "pct_hi": 100 * hi,
                "regret": mean,
                "regret_lo": rlo,
                "regret_hi": rhi,
                "nodes": float(g["nodes"].mean()),
            }
        )
    return pd.DataFrame(rows)


def paired_p(
    df: pd.DataFrame, label: str, reference: str, condition: tuple[Any, ...]
) -> float | None:
    """The exact McNemar p-value (``ground.statistics.mcnemar``) of "``label`` and ``reference``
    choose optimally equally often", over the positions both scored in the same condition
    (``condition``: the values of ``CONDITION``; the rows of ``scored_rows``): a difference
    between two decision rates on the same positions is tested paired, never as two independent
    proportions.  None when no position was scored by both."""
    keys = [*CONDITION, "instance"]
    d = scored_rows(df)
    d = d[(d[CONDITION] == pd.Series(condition, index=CONDITION)).all(axis=1)]
    a = d[d["label"] == label].set_index(keys)["decision_optimal"]
    b = d[d["label"] == reference].set_index(keys)["decision_optimal"]
    both = a.index.intersection(b.index)
    if len(both) == 0:
        return None
    a, b = a.loc[both], b.loc[both]
    return mcnemar(int((a & ~b).sum()), int((~a & b).sum()))


def same_decisions(df: pd.DataFrame) -> bool:
    """Do all algorithms choose a move of the same exact value at every scored position?"""
    d = scored_rows(df)
    keys = ["cell", "instance"] if "cell" in d.columns else [*CONDITION, "instance"]
    return bool((d.groupby(keys)["chosen_oracle_value"].nunique() <= 1).all())


def decisions_table(df: pd.DataFrame) -> str:
    """Markdown: per game, heuristic, sampler and depth, each algorithm's percent of optimal
    decisions [95 % Wilson interval], mean regret and mean nodes."""
    q = quality(df)
    labels = list(dict.fromkeys(q["label"]))
    head = "| game | heuristic | positions from | depth | positions | "
    head += " | ".join(f"{lab}: % optimal [95% CI] / mean regret / nodes" for lab in labels)
    lines = [head + " |", "|---|---|---|---:|---:|" + "---:|" * len(labels)]
    for key, g in q.groupby(CONDITION, sort=True):
        game, heuristic, sampler, depth = key
        by = {r["label"]: r for _, r in g.iterrows()}
        cells = [
            f"{r['pct_optimal']:.1f} [{r['pct_lo']:.1f}, {r['pct_hi']:.1f}] / "
            f"{r['regret']:.4f} / {r['nodes']:.0f}"
            if (r := by.get(lab)) is not None
            else "-"
            for lab in labels
        ]
        shown = "pig (to 100)" if game == "pig" else game
        lines.append(
            f"| {shown} | {heuristic} | {sampler} | {int(depth)} | {int(g['positions'].iloc[0])} | "
            + " | ".join(cells)
            + " |"
        )
    note = (
        "Every algorithm chose a move of the same exact value at every position."
        if same_decisions(df)
        else "At some positions the algorithms chose moves of different exact value (moves "
        "their searches tie on: each algorithm keeps the first best it proves)."
    )
    return "\n".join(lines) + f"\n\n{note}\n"


def match_table(df: pd.DataFrame) -> str:
    """Markdown: each match stored beside a study's cells (the folder ``df`` was loaded from;
    ``starbench.analysis.matches.matches_table``)."""
    from starbench.analysis.matches import matches_table

    return matches_table(Path(df.attrs["path"]))


def inexact_table(df: pd.DataFrame) -> str:
    """Markdown, one row per depth and algorithm: the positions scored, the percent of optimal
    decisions [95 % Wilson interval], the mean regret [95 % bootstrap interval], the mean nodes,
    and for an inexact algorithm its mean absolute value error against expectimax at the same
    depth (the column ``value_error``) and how often its move is one of expectimax's best
    (``decision_agrees``), with the exact McNemar p-value of its percent of optimal decisions
    against expectimax's on the same positions (``paired_p``)."""
    q = quality(df)
    d = scored_rows(df)
    err = d.assign(abs_error=d["value_error"].astype(float).abs()).groupby([*CONDITION, "label"])
    extra = err.agg(
        abs_error=("abs_error", "mean"),
        agrees=("decision_agrees", lambda x: x.astype(float).mean()),
    ).reset_index()
    q = q.merge(extra, on=[*CONDITION, "label"], how="left")
    lines = [
        "| depth | algorithm | positions | % optimal [95% CI] | mean regret [95% CI] | mean nodes "
        "| mean abs. value error vs expectimax | % same move as expectimax | p, % optimal vs "
        "expectimax (exact McNemar) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for _, r in q.sort_values(["depth", "nodes"]).iterrows():
        e = "-" if pd.isna(r["abs_error"]) else f"{r['abs_error']:.4f}"
        a = "-" if pd.isna(r["agrees"]) else f"{100 * r['agrees']:.1f}"
        condition = tuple(r[c] for c in CONDITION)
        p = None if r["label"] == REFERENCE else paired_p(df, r["label"], REFERENCE, condition)
        lines.append(
            f"| {int(r['depth'])} | {r['label']} | {int(r['positions'])} | "
            f"{r['pct_optimal']:.1f} [{r['pct_lo']:.1f}, {r['pct_hi']:.1f}] | "
            f"{r['regret']:.4f} [{r['regret_lo']:.4f}, {r['regret_hi']:.4f}] | "
            f"{r['nodes']:.0f} | {e} | {a} | {'-' if p is None else f'{p:.2g}'} |"
        )
    return "\n".join(lines) + "\n"


#: The search an inexact one is compared with, at the same depth on the same positions.
REFERENCE = "expectimax"


# ------------------------------------------------- inexact search on random trees
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
