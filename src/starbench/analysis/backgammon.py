"""The backgammon study's tables and figure (``experiments/hauk2004-backgammon``).

Two results folders: ``results/hauk2004-backgammon`` (1 and 2 decision plies, every algorithm,
expectimax included) and ``results/hauk2004-backgammon-deep`` (3 decision plies, Star2 and
Star2.5 only, with ``full-tree.csv``: expectimax's nodes and leaves on each position, counted
without evaluation by ``scripts/count_backgammon_trees.py``).

Depth: ours counts decision plies, the root's roll fixed (a move decision).  Hauk et al. count
every level, chance levels included, so our depth D is their depth 2D - 1 (see the study's
README for how that was established).  Published figures (T. Hauk, M. Buro, J. Schaeffer,
"*-Minimax Performance in Backgammon", Computers and Games 2004, LNCS 3846) are read from
``experiments/published.csv``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from starbench.analysis.data import PlotError, bootstrap_band, mean_se, percent_leaves, summarise

#: Hauk et al. (2004)'s figures, in ``experiments/published.csv`` under this study.
HAUK_STUDY = "hauk2004-backgammon-deep"
FULL_TREE = "full-tree.csv"
ORDERS = {"none": "none (gnubg's)", "equity": "0-ply equity", "equity_inner": "0-ply, not last"}


def hauk_depth(depth: int) -> int:
    """Hauk et al.'s depth of our ``depth`` decision plies (chance levels counted)."""
    return 2 * int(depth) - 1


def _mean_se(v: pd.Series) -> str:
    return mean_se(v, 1, 2)


def _pooled(h: pd.DataFrame) -> str:
    """Percent of expectimax's leaves over all positions together (sum over sum): the share of
    the whole workload, which large (contact) trees dominate."""
    return f"{100 * h['leaves'].astype(float).sum() / h['ex_leaves'].astype(float).sum():.1f}"


def _evals(g: pd.DataFrame) -> str:
    v = g["order_evals"].astype(float)
    return "-" if v.isna().all() else f"{v.mean():.0f}"


def _probe_success(g: pd.DataFrame) -> str:
    probes = g["probes"].astype(float).sum()
    return f"{100 * g['probe_cutoffs'].astype(float).sum() / probes:.1f}" if probes else "-"


def _games(df: pd.DataFrame) -> pd.DataFrame:
    if "game" not in df.columns or not (df["game"] == "backgammon").any():
        raise PlotError("no backgammon rows")
    d = df[df["game"] == "backgammon"].copy()
    d["dice"] = d["dice"].fillna("")
    d["depth"] = d["depth"].astype(int)
    return d


def backgammon_table(df: pd.DataFrame) -> str:
    """Per depth, move ordering and algorithm, on the positions where expectimax finished:
    percent of expectimax's leaves and nodes, ordering evaluations, CPU seconds per search
    against expectimax's, and the probe success rate (``probe_cutoffs / probes``)."""
    d = _games(df)
    m = percent_leaves(d)
    ex = d[(d["algorithm"] == "expectimax") & (d["status"] == "ok")]
    lines = [
        "| depth: ours (Hauk's) | move order | algorithm | positions | % of expectimax's "
        "leaves: mean ± SE | % saved | % pooled over positions | % of its nodes | "
        "ordering evals / search | "
        "CPU s / search | % of its CPU s | probe success % |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (depth, order), g in m.groupby(["depth", "move_order"], sort=True):
        e = ex[(ex["depth"] == depth) & (ex["move_order"] == order)]
        e_cpu = e["cpu_seconds"].astype(float).mean()
        lines.append(
            f"| {depth} ({hauk_depth(depth)}) | {ORDERS.get(order, order)} | expectimax | "
            f"{len(e)} | 100 | 0 | 100 | 100 | {_evals(e)} | "
            f"{e_cpu:.3g} | 100 | - |"
        )
        for label, h in g.groupby("label", sort=False):
            cpu = h["cpu_seconds"].astype(float).mean()
            pct = h["pct_leaves"].astype(float)
            lines.append(
                f"| {depth} ({hauk_depth(depth)}) | {ORDERS.get(order, order)} | {label} | "
                f"{len(h)} | {_mean_se(pct)} | {100 - pct.mean():.1f} | {_pooled(h)} | "
                f"{h['pct_nodes'].astype(float).mean():.1f} | "
                f"{_evals(h)} | {cpu:.3g} | "
                f"{100 * cpu / e_cpu:.0f} | {_probe_success(h)} |"
            )
    return "\n".join(lines) + "\n"


def _full_tree(df: pd.DataFrame) -> pd.DataFrame:
    path = df.attrs.get("path")
    csv = Path(path) / FULL_TREE if path else None
    if csv is None or not csv.exists():
        raise PlotError(f"no {FULL_TREE} beside the tables (scripts/count_backgammon_trees.py)")
    full = pd.read_csv(csv, keep_default_na=False, dtype={"dice": str, "position": str})
    return full.rename(columns={"nodes": "ex_nodes", "leaves": "ex_leaves"})


def deep_merged(df: pd.DataFrame) -> pd.DataFrame:
    """The deep study's finished rows with expectimax's counts from ``full-tree.csv``."""
    d = _games(df)
    full = _full_tree(df)
    done = d[d["status"].isin(["ok", "unverified"])]
    m = done.merge(full, on=["position", "dice", "depth"], how="left")
    if m["ex_leaves"].isna().any():
        raise PlotError(f"{FULL_TREE} lacks some positions: run scripts/count_backgammon_trees.py")
    m["pct_leaves"] = 100.0 * m["leaves"].astype(float) / m["ex_leaves"].astype(float)
    m["pct_nodes"] = 100.0 * m["nodes"].astype(float) / m["ex_nodes"].astype(float)
    return m


def deep_table(df: pd.DataFrame) -> str:
    """3 decision plies: Star2 and Star2.5 against expectimax's counted tree, per ordering."""
    d = _games(df)
    m = deep_merged(df)
    lines = [
        "| depth: ours (Hauk's) | move order | algorithm | positions (over budget) | "
        "expectimax's leaves: median | % of them: mean ± SE | % saved | % pooled over positions | "
        "% of its nodes | ordering evals / search | CPU s / search: mean (max) | "
        "probe success % |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (depth, order, label), h in m.groupby(["depth", "move_order", "label"], sort=True):
        over = d[
            (d["depth"] == depth)
            & (d["move_order"] == order)
            & (d["label"] == label)
            & (d["status"] == "budget_exceeded")
        ]
        pct = h["pct_leaves"].astype(float)
        cpu = h["cpu_seconds"].astype(float)
        lines.append(
            f"| {depth} ({hauk_depth(depth)}) | {ORDERS.get(order, order)} | {label} | "
            f"{len(h)} ({len(over)}) | {h['ex_leaves'].median():.0f} | {_mean_se(pct)} | "
            f"{100 - pct.mean():.1f} | {_pooled(h)} | {h['pct_nodes'].astype(float).mean():.1f} | "
            f"{_evals(h)} | {cpu.mean():.3g} ({cpu.max():.3g}) | "
            f"{_probe_success(h)} |"
        )
    return "\n".join(lines) + "\n"


def deep_class_table(df: pd.DataFrame) -> str:
    """Star2 at 3 decision plies by gnubg's position class (contact, crashed, race, bear-off)."""
    m = deep_merged(df)
    m = m[m["algorithm"] == "star2"]
    s = summarise(m, ["move_order", "class"])
    lines = [
        "| move order | position class | positions | Star2, % of expectimax's leaves: mean ± SE |",
        "|---|---|---:|---:|",
    ]
    for _, r in s.iterrows():
        lines.append(
            f"| {ORDERS.get(r['move_order'], r['move_order'])} | {r['class']} | {int(r['n'])} | "
            f"{r['mean']:.1f} ± {r['se']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def published_table(df: pd.DataFrame) -> str:
    """Hauk et al.'s figures beside ours at their depth 5 (our 3 decision plies), 0-ply
    ordering everywhere (``equity``)."""
    m = deep_merged(df)
    s2 = m[(m["algorithm"] == "star2") & (m["move_order"] == "equity") & (m["depth"] == 3)]
    if not len(s2):
        raise PlotError("no Star2 rows at 3 decision plies with equity ordering")
    saved_leaves = 100 - s2["pct_leaves"].astype(float).mean()
    saved_nodes = 100 - s2["pct_nodes"].astype(float).mean()
    pooled_nodes = 100 - 100 * s2["nodes"].astype(float).sum() / s2["ex_nodes"].sum()
    pooled_leaves = 100 - 100 * s2["leaves"].astype(float).sum() / s2["ex_leaves"].sum()
    from starbench.analysis.published import text

    lo, hi = (text(HAUK_STUDY, f"star2.saved.depth5.{end}") for end in ("low", "high"))
    rows = [
        (
            "Star2: nodes saved against expectimax",
            f"{lo}-{hi} %",
            f"{saved_nodes:.1f} % (mean over positions), {pooled_nodes:.1f} % (pooled)",
        ),
        (
            "Star2: leaves (evaluations) saved",
            "-",
            f"{saved_leaves:.1f} % (mean over positions), {pooled_leaves:.1f} % (pooled)",
        ),
        (
            "Star2: probe success",
            f"{text(HAUK_STUDY, 'star2.probe_success')} %",
            f"{_probe_success(s2)} %",
        ),
        (
            "Star2: seconds per move (search only)",
            f"about {text(HAUK_STUDY, 'star2.seconds.depth5')} s (1.8 GHz Athlon XP, 128 MB table)",
            f"{s2['cpu_seconds'].astype(float).mean():.2f} s CPU (mean), "
            f"{s2['cpu_seconds'].astype(float).median():.2f} s (median), no table",
        ),
        ("positions", text(HAUK_STUDY, "positions"), str(len(s2))),
    ]
    lines = [
        "| at Hauk's depth 5 (our 3 decision plies), 0-ply ordering | Hauk et al. (2004) | ours |",
        "|---|---|---|",
        *(f"| {a} | {b} | {c} |" for a, b, c in rows),
    ]
    return "\n".join(lines) + "\n"


MAIN_STUDY = "hauk2004-backgammon"


def depth_figure(df: pd.DataFrame, width: float) -> tuple[object, str]:
    """Percent of expectimax's leaves by depth (Hauk's unit on the axis), one panel per move
    ordering, one line per algorithm: depths 1-2 from the main study (expectimax run), depth 3
    from the deep study (expectimax's leaves counted).  Returns (figure, its table as
    Markdown)."""
    import seaborn as sns

    from starbench.analysis import load_results
    from starbench.analysis.style import HEIGHT_RATIO

    deep = deep_merged(df)
    main_path = Path(df.attrs["path"]).parent / MAIN_STUDY
    shallow = percent_leaves(_games(load_results(main_path)))
    keep = ["depth", "move_order", "label", "pct_leaves"]
    both = pd.concat([shallow[keep], deep[keep]], ignore_index=True)
    both = both[both["label"] != "star1"]  # not run deeper: lines would stop at depth 2
    both["Hauk's depth"] = both["depth"].map(hauk_depth)
    both["move order"] = both["move_order"].map(lambda o: ORDERS.get(o, o))
    s = summarise(both, ["move order", "Hauk's depth", "label"])
    grid = sns.relplot(
        data=both,
        x="Hauk's depth",
        y="pct_leaves",
        hue="label",
        col="move order",
        kind="line",
        marker="o",
        errorbar=bootstrap_band,  # seaborn's ("ci", 95), 1000 resamples, seed 0, at once
        height=width / 3 / 1.0,
        aspect=1 / HEIGHT_RATIO,
    )
    grid.set_axis_labels("Hauk's depth (our decision plies × 2 − 1)", "% of expectimax's leaves")
    grid.set(xticks=sorted(both["Hauk's depth"].unique()), ylim=(0, 105))
    grid.figure.suptitle(
        "95% bootstrap CI of the mean over positions (n per point in the table)", fontsize="small"
    )
    grid.figure.tight_layout()
    lines = [
        "| move order | Hauk's depth | algorithm | % of expectimax's leaves: mean | SE | n |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for _, r in s.iterrows():
        depth = int(r["Hauk's depth"])
        lines.append(
            f"| {r['move order']} | {depth} | {r['label']} | {r['mean']:.1f} | "
            f"{r['se']:.2f} | {int(r['n'])} |"
        )
    return grid.figure, "\n".join(lines) + "\n"
