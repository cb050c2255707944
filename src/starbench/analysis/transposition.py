"""The transposition-table studies' tables and figure (``experiments/transposition``,
``experiments/hauk2004-deepening``).

Random trees with transpositions (``results/transposition``): per pool size, each algorithm's
nodes with a table against the same algorithm without one on the same tree (paired per
instance), and the Star algorithms' nodes against expectimax's with the same table status.
Iterative deepening on games (``results/hauk2004-deepening``, ``...-pig``): the depth completed
under the node budget with and without the table.  Veness and Blair's figure (a table used at
chance nodes cuts Star2's work by 37 %; J. Veness, A. Blair, "Effective Use of Transposition
Tables in Stochastic Game Tree Search", IEEE CIG 2007) is a constant here, set beside
``tt_chance``'s saving over the table alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from starbench.analysis.data import PlotError, mean_se

VB_CHANCE_SAVING = 37  # percent of Star2's work saved by using the table at chance nodes
POOL_ORDER_TREE = "tree"  # pool 0, shown last: no transposition


def _finished(df: pd.DataFrame) -> pd.DataFrame:
    d = df[df["status"].isin(["ok", "unverified"])].copy()
    if not len(d):
        raise PlotError("no finished rows")
    d["tt"] = d["tt"].fillna(0).astype(int)
    d["tt_chance"] = d["tt_chance"].fillna(False).astype(bool)
    d["variant"] = np.where(
        d["tt"] == 0, "no table", np.where(d["tt_chance"], "table + tt_chance", "table")
    )
    return d


def _pool_name(p: int) -> str:
    return POOL_ORDER_TREE if int(p) == 0 else str(int(p))


def _pools(values: pd.Series) -> list[Any]:
    """The pool sizes present, ascending, the tree (pool 0) last."""
    return sorted(values.unique(), key=lambda p: (int(p) == 0, int(p)))


def _paired(d: pd.DataFrame, variant: str, against: str) -> pd.DataFrame:
    """Per (pool, algorithm, instance): nodes of ``variant`` and of ``against``."""
    a = d[d["variant"] == variant][["pool", "algorithm", "instance", "nodes"]]
    b = d[d["variant"] == against][["pool", "algorithm", "instance", "nodes"]]
    return a.merge(b, on=["pool", "algorithm", "instance"], suffixes=("", "_ref"))


def savings(df: pd.DataFrame) -> pd.DataFrame:
    """Per pool, algorithm and instance: percent of nodes the table saves (``saved``), and
    what ``tt_chance`` saves over the table alone (``chance_saved``, Star algorithms)."""
    d = _finished(df)
    if "pool" not in d.columns or (d["tt"] > 0).sum() == 0:
        raise PlotError("no rows with a transposition table")
    t = _paired(d, "table", "no table")
    t["saved"] = 100.0 * (1 - t["nodes"].astype(float) / t["nodes_ref"].astype(float))
    c = _paired(d, "table + tt_chance", "table")
    c["chance_saved"] = 100.0 * (1 - c["nodes"].astype(float) / c["nodes_ref"].astype(float))
    return t.merge(
        c[["pool", "algorithm", "instance", "chance_saved"]],
        on=["pool", "algorithm", "instance"],
        how="left",
    )


def pool_table(df: pd.DataFrame) -> str:
    """Per pool and algorithm: mean nodes without and with a table, percent saved by the
    table (mean ± SE over trees, paired), and percent of expectimax's nodes (same table
    status) without and with it: how much of each Star algorithm's advantage survives."""
    d = _finished(df)
    s = savings(df)
    ex = d[d["algorithm"] == "expectimax"].set_index(["pool", "variant", "instance"])["nodes"]
    lines = [
        "| pool (distinct nodes per level) | algorithm | trees | nodes, no table | nodes, "
        "table | % saved by the table | % of expectimax's nodes, no table | with table |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in _pools(d["pool"]):
        for alg in ("expectimax", "star1", "star2", "star2.5-cyclic", "star2.5-sequential"):
            g = s[(s["pool"] == p) & (s["algorithm"] == alg)]
            if not len(g):
                continue
            rel = []
            for variant in ("no table", "table"):
                h = d[(d["pool"] == p) & (d["algorithm"] == alg) & (d["variant"] == variant)]
                ref = ex.reindex(
                    list(zip(h["pool"], h["variant"], h["instance"], strict=True))
                ).to_numpy(float)
                rel.append(mean_se(pd.Series(100.0 * h["nodes"].to_numpy(float) / ref)))
            lines.append(
                f"| {_pool_name(p)} | {alg} | {len(g)} | {g['nodes_ref'].astype(float).mean():.0f}"
                f" | {g['nodes'].astype(float).mean():.0f} | {mean_se(g['saved'])} | "
                f"{rel[0] if alg != 'expectimax' else '100'} | "
                f"{rel[1] if alg != 'expectimax' else '100'} |"
            )
    return "\n".join(lines) + "\n"


def chance_table(df: pd.DataFrame) -> str:
    """Veness and Blair's claim beside ours: percent of nodes ``tt_chance`` saves over the
    table alone, per pool and Star algorithm (mean ± SE over trees, paired)."""
    s = savings(df).dropna(subset=["chance_saved"])
    if not len(s):
        raise PlotError("no tt_chance rows")
    lines = [
        "| pool | algorithm | trees | % of nodes tt_chance saves over the table alone | "
        "Veness and Blair (Star2, a dice game) |",
        "|---|---|---:|---:|---:|",
    ]
    for p in _pools(s["pool"]):
        for alg, g in s[s["pool"] == p].groupby("algorithm", sort=True):
            vb = f"{VB_CHANCE_SAVING}" if alg == "star2" else ""
            lines.append(
                f"| {_pool_name(p)} | {alg} | {len(g)} | {mean_se(g['chance_saved'])} | {vb} |"
            )
    return "\n".join(lines) + "\n"


def pool_figure(df: pd.DataFrame, width: float):
    """Percent of nodes saved by the table against the pool size, one line per algorithm
    (mean over trees with its 95 % interval, seaborn)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    s = savings(df)
    s = s[s["pool"] > 0].copy()
    s["pool"] = s["pool"].astype(int)
    fig, ax = plt.subplots(figsize=(width, width * 0.62))
    sns.lineplot(
        data=s,
        x="pool",
        y="saved",
        hue="algorithm",
        style="algorithm",
        markers=True,
        ax=ax,
        errorbar=("ci", 95),
        seed=0,
    )
    ax.set_xscale("log")
    ax.set_xlabel("distinct nodes per level (tree.pool)")
    ax.set_ylabel("% of nodes saved by the table")
    ax.set_ylim(0, 100)
    fig.tight_layout()
    g = s.groupby(["pool", "algorithm"])["saved"]
    table = g.agg(["mean", "std", "count"]).reset_index()
    lines = ["| pool | algorithm | % saved: mean | SD | trees |", "|---:|---|---:|---:|---:|"]
    for r in table.itertuples():
        lines.append(f"| {r.pool} | {r.algorithm} | {r.mean:.1f} | {r.std:.1f} | {r.count} |")
    return fig, "\n".join(lines) + "\n"


def deepening_table(df: pd.DataFrame) -> str:
    """Per game, algorithm and table: searches, the depth completed under the node budget
    (mean ± SE), and per depth the share of searches that completed it with the median nodes
    they spent to get there (all iterations up to it, from ``iterations``)."""
    import json

    if "depth_completed" not in df.columns or df["depth_completed"].isna().all():
        raise PlotError("no iterative-deepening rows")
    d = df[df["status"].isin(["ok", "unverified", "budget_exceeded"])].copy()
    d["tt"] = d["tt"].fillna(0).astype(int)
    d["tt_chance"] = d["tt_chance"].fillna(False).astype(bool)
    # every depth up to one past the deepest any search completed
    top = min(int(d["depth"].max()), int(d["depth_completed"].max()) + 1)
    reach = list(range(1, top + 1))
    head = " | ".join(f"depth {x}: % (median nodes)" for x in reach)
    lines = [
        f"| game | algorithm | table | searches | depth completed: mean ± SE | {head} |",
        "|---|---|---|---:|---:|" + "---:|" * len(reach),
    ]
    for (game, alg, tt, chance), g in d.groupby(
        ["game", "algorithm", "tt", "tt_chance"], sort=True
    ):
        dc = g["depth_completed"].astype(float)
        spent: dict[int, list[int]] = {x: [] for x in reach}
        for text in g["iterations"]:
            total = 0
            for it in json.loads(text):
                total += it["nodes"]
                if it["completed"]:
                    spent[it["depth"]].append(total)
        cells = []
        for x in reach:
            share = 100 * len(spent[x]) / len(g)
            cells.append(
                f"{share:.0f} % ({float(np.median(spent[x])):,.0f})" if spent[x] else "0 %"
            )
        table = "none" if tt == 0 else f"2^{tt}" + (" + tt_chance" if chance else "")
        lines.append(
            f"| {game} | {alg} | {table} | {len(g)} | {mean_se(dc, 2)} | {' | '.join(cells)} |"
        )
    return "\n".join(lines) + "\n"


def deepening_figure(df: pd.DataFrame, width: float):
    """Mean depth completed under the budget per algorithm, one bar per table setting (95 %
    interval over the positions, seaborn)."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    if "depth_completed" not in df.columns or df["depth_completed"].isna().all():
        raise PlotError("no iterative-deepening rows")
    d = df[df["status"].isin(["ok", "unverified", "budget_exceeded"])].copy()
    d["tt"] = d["tt"].fillna(0).astype(int)
    d["tt_chance"] = d["tt_chance"].fillna(False).astype(bool)
    d["table"] = [
        "none" if t == 0 else f"2^{t}" + (" + tt_chance" if c else "")
        for t, c in zip(d["tt"], d["tt_chance"], strict=True)
    ]
    d["depth_completed"] = d["depth_completed"].astype(float)
    fig, ax = plt.subplots(figsize=(width, width * 0.62))
    sns.barplot(
        data=d,
        x="algorithm",
        y="depth_completed",
        hue="table",
        errorbar=("ci", 95),
        seed=0,
        ax=ax,
    )
    ax.set_ylabel("depth completed (decision plies)")
    ax.set_xlabel("")
    ax.legend(title="table", fontsize="small")
    fig.tight_layout()
    g = d.groupby(["algorithm", "table"])["depth_completed"].agg(["mean", "std", "count"])
    lines = [
        "| algorithm | table | depth completed: mean | SD | searches |",
        "|---|---|---:|---:|---:|",
    ]
    for (alg, table), r in g.iterrows():
        lines.append(f"| {alg} | {table} | {r['mean']:.2f} | {r['std']:.2f} | {int(r['count'])} |")
    return fig, "\n".join(lines) + "\n"
