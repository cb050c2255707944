"""The transposition-table studies' tables and figures (``experiments/transposition``,
``experiments/transposition-pig``, ``experiments/hauk2004-deepening``).

Every row's *table* is one of: no table; a table at every node (``tt``); a table at decision
nodes only (``tt_nodes=decision``, the table of alpha-beta programs); and either with
``tt_chance`` (a chance node's outcomes start from the table's bounds) and ``tt_probe`` (Star2's
probe phase uses those bounds as well: Veness and Blair's use of the table at chance nodes).
Random trees with transpositions (``results/transposition``): per pool size, each algorithm's
nodes under each table against the same algorithm without one on the same tree (paired per
instance), and against expectimax's under the same kind of table.  Pig by iterative deepening to
a fixed depth (``results/transposition-pig``): nodes and CPU time per search under each table.
Iterative deepening under a budget (``results/hauk2004-deepening``, ``...-pig``): the depth
completed with and without the table.  Veness and Blair's figures (J. Veness, A. Blair,
"Effective Use of Transposition Tables in Stochastic Game Tree Search", IEEE CIG 2007) are read
from ``experiments/published.csv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from starbench.analysis.data import PlotError, bootstrap_band, mean_se

POOL_ORDER_TREE = "tree"  # pool 0, shown last: no transposition
VB = "transposition"  # Veness and Blair's figures' study in experiments/published.csv
NO_TABLE, TABLE, DECISION = "no table", "table", "decision-node table"
#: The tables in the order they are shown.
VARIANTS = (
    NO_TABLE,
    DECISION,
    TABLE,
    f"{TABLE} + tt_chance",
    f"{TABLE} + tt_chance + tt_probe",
    f"{DECISION} + tt_chance",
    f"{DECISION} + tt_chance + tt_probe",
)
ALGORITHMS = ("expectimax", "star1", "star2", "star2.5-cyclic", "star2.5-sequential")


def _flag(d: pd.DataFrame, name: str) -> pd.Series:
    if name not in d.columns:
        return pd.Series(False, index=d.index)
    return d[name].fillna(False).astype(bool)


def variants(d: pd.DataFrame) -> pd.Series:
    """The table each row searched with (``VARIANTS``)."""
    tt = d["tt"].fillna(0).astype(int)
    nodes = (
        d["tt_nodes"].astype(object) if "tt_nodes" in d.columns else pd.Series("all", index=d.index)
    )
    decision = (nodes == "decision").fillna(False).to_numpy(bool)
    base = np.where(tt == 0, NO_TABLE, np.where(decision, DECISION, TABLE))
    out = pd.Series(base, index=d.index, dtype=object)
    out = out.where(~_flag(d, "tt_chance"), out + " + tt_chance")
    return out.where(~_flag(d, "tt_probe"), out + " + tt_probe")


def _finished(df: pd.DataFrame) -> pd.DataFrame:
    d = df[df["status"].isin(["ok", "unverified"])].copy()
    if not len(d):
        raise PlotError("no finished rows")
    d["tt"] = d["tt"].fillna(0).astype(int)
    d["variant"] = variants(d)
    return d


def _pool_name(p: int) -> str:
    return POOL_ORDER_TREE if int(p) == 0 else str(int(p))


def _pools(values: pd.Series) -> list[Any]:
    """The pool sizes present, ascending, the tree (pool 0) last."""
    return sorted(values.unique(), key=lambda p: (int(p) == 0, int(p)))


def _base(variant: str) -> str:
    """The plain table a variant adds to (its expectimax reference)."""
    return variant.split(" + ")[0]


def _paired(d: pd.DataFrame, variant: str, against: str, by: list[str]) -> pd.DataFrame:
    """Per ``by`` and instance: nodes and CPU seconds of ``variant`` and of ``against``."""
    cols = [*by, "instance", "nodes", "cpu_seconds"]
    a = d[d["variant"] == variant][cols]
    b = d[d["variant"] == against][cols]
    return a.merge(b, on=[*by, "instance"], suffixes=("", "_ref"))


def saving(d: pd.DataFrame, variant: str, against: str, by: list[str]) -> pd.DataFrame:
    """Per ``by`` and instance: percent of nodes (``saved``) and of CPU time (``time_saved``)
    ``variant`` saves over ``against`` on the same tree or position."""
    t = _paired(d, variant, against, by)
    t["saved"] = 100.0 * (1 - t["nodes"].astype(float) / t["nodes_ref"].astype(float))
    t["time_saved"] = 100.0 * (
        1 - t["cpu_seconds"].astype(float) / t["cpu_seconds_ref"].astype(float)
    )
    return t


def savings(df: pd.DataFrame) -> pd.DataFrame:
    """Per pool, algorithm and instance: percent of nodes the table at every node saves over
    no table (``saved``)."""
    d = _finished(df)
    if "pool" not in d.columns or (d["tt"] > 0).sum() == 0:
        raise PlotError("no rows with a transposition table")
    return saving(d, TABLE, NO_TABLE, ["pool", "algorithm"])


def relative_to_expectimax(d: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Every row with ``rel``: its nodes as a percent of expectimax's on the same instance
    under the same kind of table (no table, a table at every node, at decision nodes)."""
    ex = d[(d["algorithm"] == "expectimax") & (d["variant"].isin([NO_TABLE, TABLE, DECISION]))]
    ex = ex.set_index([*by, "variant", "instance"])["nodes"]
    out = d.copy()
    keys = list(zip(*(out[c] for c in by), out["variant"].map(_base), out["instance"], strict=True))
    ref = ex.reindex(keys).to_numpy(float)
    out["rel"] = 100.0 * out["nodes"].to_numpy(float) / ref
    return out


def pool_table(df: pd.DataFrame) -> str:
    """Per pool, algorithm and table: the trees, mean nodes, percent of nodes saved over no
    table (paired per tree), and percent of expectimax's nodes under the same kind of table (how
    much of each Star algorithm's advantage survives a table)."""
    d = _finished(df)
    if "pool" not in d.columns or (d["tt"] > 0).sum() == 0:
        raise PlotError("no rows with a transposition table")
    rel = relative_to_expectimax(d, ["pool"])
    lines = [
        "| pool (distinct nodes per level) | algorithm | table | trees | nodes: mean | "
        "% saved over no table | % of expectimax's nodes (same kind of table) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for p in _pools(d["pool"]):
        for alg in ALGORITHMS:
            for v in VARIANTS:
                g = rel[(rel["pool"] == p) & (rel["algorithm"] == alg) & (rel["variant"] == v)]
                if not len(g):
                    continue
                saved = "-"
                if v != NO_TABLE:
                    s = saving(d[d["pool"] == p], v, NO_TABLE, ["algorithm"])
                    saved = mean_se(s[s["algorithm"] == alg]["saved"])
                share = "100" if alg == "expectimax" and v == _base(v) else mean_se(g["rel"])
                lines.append(
                    f"| {_pool_name(p)} | {alg} | {v} | {len(g)} | "
                    f"{g['nodes'].astype(float).mean():.0f} | {saved} | {share} |"
                )
    return "\n".join(lines) + "\n"


#: (variant, the table it is compared with) in the Veness and Blair table, in order.
CHANCE_COMPARISONS = (
    (f"{TABLE} + tt_chance", TABLE),
    (f"{TABLE} + tt_chance + tt_probe", TABLE),
    (f"{DECISION} + tt_chance + tt_probe", DECISION),
)


def chance_table(df: pd.DataFrame) -> str:
    """Veness and Blair's claim beside ours: per pool and Star algorithm, percent of nodes the
    table's use at chance nodes saves over the same table alone (mean ± SE over trees,
    paired): ``tt_chance``, ``tt_chance`` with ``tt_probe``, and both over a table at decision
    nodes only."""
    from starbench.analysis.published import text

    d = _finished(df)
    if not d["variant"].str.contains("tt_chance").any():
        raise PlotError("no tt_chance rows")
    vb = text(VB, "star2.chance_saving")
    heads = [f"{v} over the {a} alone" for v, a in CHANCE_COMPARISONS]
    lines = [
        "| pool | algorithm | trees | "
        + " | ".join(f"% saved: {h}" for h in heads)
        + " | Veness and Blair (Star2, a dice game) |",
        "|---|---|---:|" + "---:|" * len(heads) + "---:|",
    ]
    for p in _pools(d["pool"]):
        at = d[d["pool"] == p]
        for alg in ALGORITHMS[1:]:
            cells, trees = [], 0
            for v, against in CHANCE_COMPARISONS:
                s = saving(at, v, against, ["algorithm"])
                s = s[s["algorithm"] == alg]
                trees = max(trees, len(s))
                cells.append(mean_se(s["saved"]) if len(s) else "-")
            if trees == 0:
                continue
            lines.append(
                f"| {_pool_name(p)} | {alg} | {trees} | {' | '.join(cells)} | "
                f"{vb if alg == 'star2' else ''} |"
            )
    return "\n".join(lines) + "\n"


def pool_figure(df: pd.DataFrame, width: float):
    """Percent of nodes saved over no table against the pool size, one panel per algorithm and
    one line per table (mean over trees with its 95 % interval, seaborn)."""
    import seaborn as sns

    d = _finished(df)
    d = d[(d["pool"] > 0) & (d["algorithm"].isin(ALGORITHMS))].copy()
    frames = [
        saving(d, v, NO_TABLE, ["pool", "algorithm"]).assign(table=v)
        for v in VARIANTS[1:]
        if (d["variant"] == v).any()
    ]
    if not frames:
        raise PlotError("no rows with a transposition table")
    s = pd.concat(frames, ignore_index=True)
    s["pool"] = s["pool"].astype(int)
    order = [v for v in VARIANTS if v in set(s["table"])]
    cols = [a for a in ALGORITHMS if a in set(s["algorithm"])]
    grid = sns.relplot(
        data=s,
        x="pool",
        y="saved",
        hue="table",
        hue_order=order,
        style="table",
        style_order=order,
        col="algorithm",
        col_order=cols,
        kind="line",
        markers=True,
        errorbar=bootstrap_band,  # seaborn's ("ci", 95), 1000 resamples, seed 0, at once
        height=width / max(len(cols), 1) * 1.1,
        aspect=0.9,
        facet_kws={"sharey": True},
    )
    grid.set(xscale="log", ylim=(0, 100))
    grid.set_axis_labels("distinct nodes per level (tree.pool)", "% of nodes saved over no table")
    grid.set_titles("{col_name}")
    fig = grid.figure
    fig.set_size_inches(width, width * 0.55)
    table = s.groupby(["pool", "algorithm", "table"])["saved"].agg(["mean", "std", "count"])
    lines = [
        "| pool | algorithm | table | % saved: mean | SD | trees |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for (pool, alg, tab), r in table.iterrows():
        lines.append(
            f"| {pool} | {alg} | {tab} | {r['mean']:.1f} | {r['std']:.1f} | {int(r['count'])} |"
        )
    return fig, "\n".join(lines) + "\n"


def game_table(df: pd.DataFrame) -> str:
    """Iterative deepening to a fixed depth (one table across the iterations): per algorithm
    and table, the searches, the mean nodes and CPU seconds per search, and what the table's use
    at chance nodes saves over Star2 with the same table alone (nodes and CPU time, paired per
    position), beside Veness and Blair's figures."""
    from starbench.analysis.published import text

    d = _finished(df)
    if "game" not in d.columns or d["game"].isna().all():
        raise PlotError("no game rows")
    d["cpu_seconds"] = d["cpu_seconds"].astype(float)
    lines = [
        "| game | depth | algorithm | table | searches | nodes: mean ± SE | CPU s: mean ± SE | "
        "% nodes saved over the same table alone | % CPU time saved over it |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for (game, depth), at in d.groupby(["game", "depth"], sort=True):
        for alg in ALGORITHMS:
            for v in VARIANTS:
                g = at[(at["algorithm"] == alg) & (at["variant"] == v)]
                if not len(g):
                    continue
                saved = time = "-"
                if v != _base(v):
                    s = saving(at, v, _base(v), ["algorithm"])
                    s = s[s["algorithm"] == alg]
                    saved, time = mean_se(s["saved"]), mean_se(s["time_saved"])
                lines.append(
                    f"| {game} | {int(depth)} | {alg} | {v} | {len(g)} | "
                    f"{mean_se(g['nodes'], 0)} | {mean_se(g['cpu_seconds'], 3)} | {saved} | "
                    f"{time} |"
                )
    lines.append(
        f"| Veness and Blair (a dice game, {text(VB, 'positions')} positions) | "
        f"{text(VB, 'depth')} | star2 | table at chance nodes | | | | "
        f"{text(VB, 'star2.chance_saving')} | {text(VB, 'star2.time_saving')} |"
    )
    return "\n".join(lines) + "\n"


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
    d["table"] = _deepening_tables(d)
    # every depth up to one past the deepest any search completed
    top = min(int(d["depth"].max()), int(d["depth_completed"].max()) + 1)
    reach = list(range(1, top + 1))
    head = " | ".join(f"depth {x}: % (median nodes)" for x in reach)
    lines = [
        f"| game | algorithm | table | searches | depth completed: mean ± SE | {head} |",
        "|---|---|---|---:|---:|" + "---:|" * len(reach),
    ]
    for (game, alg, _tt, _chance, table), g in d.groupby(
        ["game", "algorithm", "tt", "tt_chance", "table"], sort=True
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
    d["table"] = _deepening_tables(d)
    d["depth_completed"] = d["depth_completed"].astype(float)
    fig, ax = plt.subplots(figsize=(width, width * 0.62))
    sns.barplot(
        data=d,
        x="algorithm",
        y="depth_completed",
        hue="table",
        errorbar=bootstrap_band,  # seaborn's ("ci", 95), 1000 resamples, seed 0, at once
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


def _deepening_tables(d: pd.DataFrame) -> list[str]:
    """``none``, ``2^20``, ``2^20 + tt_chance``, ...: a row's table as the deepening tables
    name it (its size, and what it adds)."""
    out = []
    for v, t in zip(variants(d), d["tt"], strict=True):
        if t == 0:
            out.append("none")
            continue
        where = " (decision nodes)" if _base(v) == DECISION else ""
        out.append(f"2^{t}{where}{v.removeprefix(_base(v))}")
    return out
