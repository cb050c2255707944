"""Study tables: published numbers beside ours, and the tables each study's question needs.

Published numbers (B. W. Ballard, "The *-minimax search procedure for trees containing chance
nodes", Artificial Intelligence 21(3), 1983: percent of leaves examined) are read from
``experiments/published.csv`` (``starbench.analysis.published``), cited there once.  Every
"ours" cell is the mean of per-tree percentages with its standard error and n.
"""

from __future__ import annotations

import pandas as pd

from starbench.analysis import backgammon, decisions, matches, transposition
from starbench.analysis.data import PlotError, percent_leaves, summarise
from starbench.analysis.figures import _prepare
from starbench.trees.regular import RegularTreeSpec


def _published(study: str, prefix: str, keys: tuple[int, ...], what: str) -> dict[int, tuple]:
    """key -> (Star1, Star2) published percent of leaves (None where not published), from
    ``experiments/published.csv`` (``starbench.analysis.published``): whole percents stay
    integers (Ballard's deeper-tree figures), the others keep their decimal."""
    from starbench.analysis import published

    def get(q: str):
        if not published.has(study, q):
            return None
        t = published.text(study, q)
        return int(t) if t.isdigit() else float(t)

    return {k: (get(f"{prefix}.star1.{what}{k}"), get(f"{prefix}.star2.{what}{k}")) for k in keys}


def ballard_average() -> dict[int, tuple]:
    """Ballard (1983), 2-ply (3 levels) trees, random ordering: N -> (Star1, Star2)."""
    return _published("ballard1983", "average", (4, 10, 20, 40), "N")


def ballard_best() -> dict[int, tuple]:
    """Ballard (1983), 2-ply (3 levels) trees, optimal ordering (best case): N -> (Star1, Star2)."""
    return _published("ballard1983", "best", (4, 10, 20, 40), "N")


def ballard_deeper() -> dict[int, tuple]:
    """Ballard (1983), deeper trees at N = 10, random ordering: levels -> (Star1, Star2), whole
    percents (Star1 at 6 levels not published)."""
    return _published("ballard1983", "deeper", (3, 4, 5, 6), "levels")


def ballard_probing() -> dict[str, dict[int, float]]:
    """Ballard (1983), Star2.5 at N = 20, "depth 3", average case: variant -> k -> percent."""
    from starbench.analysis import published

    return {
        v: {k: published.value("ballard1983-probing", f"{v}.k{k}") for k in (1, 2, 3, 4, 5, 10, 20)}
        for v in ("cyclic", "sequential")
    }


#: Star2's counting conventions, by the label of its row -> (short name, what it is): C1
#: resumes probed successors (each leaf counted once); ``research`` searches them again; C2 is
#: ``research`` and no probe phase where the window is the full [L, U]
#: (``probe_full_window=false``).
STAR2_COUNTINGS = {
    "star2": ("C1", "C1: resume"),
    "star2 research": ("research", "after_probe=research"),
    "star2 research no-full-probe": ("C2", "C2: research, no full-window probe"),
}


def _fmt(mean: float, se: float, n: int) -> str:
    return f"{mean:.1f} ± {se:.2f} (n={n})"


def _random_order_3_levels(df: pd.DataFrame) -> pd.DataFrame:
    m = percent_leaves(_prepare(df))
    return m[(m["levels"] == 3) & (m["order"] == "random (as generated)")]


def _beside(s: pd.DataFrame, key: str, published: dict, labels: tuple[str, ...], head: str) -> str:
    """Published Star1/Star2 figures by ``key`` beside ours (``summarise`` rows by ``key`` and
    ``label``); a label's published value is ``published[key][0]`` for star1, else ``[1]``."""
    lines = [head, f"|{'---:' if key == 'levels' else '---'}|---|---:|---:|---:|"]
    for value, pubs in published.items():
        for label in labels:
            row = s[(s[key] == value) & (s["label"] == label)]
            if not len(row):
                continue
            r = row.iloc[0]
            pub = pubs[0] if label == "star1" else pubs[1]
            shown = f"star2 ({STAR2_COUNTINGS[label][1]})" if label in STAR2_COUNTINGS else label
            text = "-" if pub is None else f"{pub:.1f}" if isinstance(pub, float) else str(pub)
            diff = "-" if pub is None else f"{r['mean'] - pub:+.1f}"
            lines.append(
                f"| {value} | {shown} | {text} | {_fmt(r['mean'], r['se'], r['n'])} | {diff} |"
            )
    return "\n".join(lines) + "\n"


def ballard_table(df: pd.DataFrame) -> str:
    """Star1 and Star2, percent of leaves, random ordering, 3 levels: published vs ours."""
    m = _random_order_3_levels(df)
    if not len(m):
        raise PlotError("no 3-level rows with random ordering")
    return _beside(
        summarise(m, ["branching", "label"]),
        "branching",
        ballard_average(),
        ("star1", *STAR2_COUNTINGS),
        "| N | algorithm | published | ours: mean ± SE (n) | ours − published |",
    )


def best_case_table(df: pd.DataFrame) -> str:
    """Star1 and Star2, percent of leaves, optimal ordering, 3 levels: published vs ours."""
    m = percent_leaves(_prepare(df))
    m = m[(m["levels"] == 3) & (m["order"] == "optimal")]
    if not len(m):
        raise PlotError("no 3-level rows with optimal ordering")
    return _beside(
        summarise(m, ["branching", "label"]),
        "branching",
        ballard_best(),
        ("star1", *STAR2_COUNTINGS),
        "| N | algorithm | published (best case) | ours, optimal ordering: mean ± SE (n) | "
        "ours − published |",
    )


def deeper_table(df: pd.DataFrame) -> str:
    """Star1 and Star2 at N = 10 by levels (3-6), random ordering: published vs ours."""
    m = percent_leaves(_prepare(df))
    m = m[(m["branching"] == 10) & (m["order"] == "random (as generated)")]
    if not len(m) or m["levels"].nunique() < 2:
        raise PlotError("no deeper N = 10 rows with random ordering")
    return _beside(
        summarise(m, ["levels", "label"]),
        "levels",
        ballard_deeper(),
        ("star1", *STAR2_COUNTINGS),
        "| levels | algorithm | published | ours: mean ± SE (n) | ours − published |",
    )


def _deeper_rows(df: pd.DataFrame, levels_needed: bool = False) -> pd.DataFrame:
    """The deeper trees' rows (N = 10, random ordering), prepared; with ``levels_needed``,
    refused (``PlotError``) unless they hold the counters per level (``levels_detail=true``)."""
    d = _prepare(df)
    d = d[(d["branching"] == 10) & (d["order"] == "random (as generated)")]
    if levels_needed and ("nodes_by_level" not in d.columns or d["nodes_by_level"].isna().all()):
        raise PlotError("no N = 10 rows with counters per level (levels_detail=true)")
    return d


#: The kind of each level of Ballard's deeper trees (MAX, chance, MIN, chance, ...; leaves last).
_LEVEL_KINDS = ("MAX", "chance", "MIN", "chance")


def deeper_by_level_table(df: pd.DataFrame) -> str:
    """Where Star1 and Star2 (C1) spend their nodes at N = 10, random ordering, 3-6 levels:
    per level, expectimax's nodes per tree, each algorithm's nodes there as a percent of
    expectimax's on the same tree (mean ± SE), and Star2's cut-offs and probe phases per tree
    at that level (``nodes_by_level`` .. ``probes_by_level``; rows stored without them are
    refused)."""
    from starbench.analysis.data import by_level, percent_by_level

    d = _deeper_rows(df, levels_needed=True)
    m = percent_by_level(d)
    m = m[m["label"].isin(["star1", "star2"])]
    ok = d[d["status"].isin(["ok", "unverified"])]
    long = by_level(ok)
    ex = long[long["algorithm"] == "expectimax"].groupby(["levels", "level"])["nodes"].mean()
    star2 = long[long["label"] == "star2"].groupby(["levels", "level"])[["cutoffs", "probes"]]
    per_tree = star2.mean()
    s = {
        label: summarise(m[m["label"] == label], ["levels", "level"], value="pct_nodes")
        for label in ("star1", "star2")
    }
    lines = [
        "| levels | level | kind | expectimax nodes per tree | star1 % of expectimax's nodes | "
        "star2 (C1) % of expectimax's nodes | star2 cut-offs per tree | star2 probe phases "
        "per tree |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for (levels, level), nodes in ex.items():
        kind = "leaf" if level == levels else _LEVEL_KINDS[int(level) % 4]
        cells = []
        for label in ("star1", "star2"):
            r = s[label][(s[label]["levels"] == levels) & (s[label]["level"] == level)]
            cells.append("-" if not len(r) else f"{r.iloc[0]['mean']:.1f} ± {r.iloc[0]['se']:.2f}")
        cut, probes = (
            per_tree.loc[(levels, level)] if (levels, level) in per_tree.index else (0.0, 0.0)
        )
        lines.append(
            f"| {int(levels)} | {int(level)} | {kind} | {nodes:,.0f} | {cells[0]} | {cells[1]} | "
            f"{cut:,.1f} | {probes:,.1f} |"
        )
    return "\n".join(lines) + "\n"


#: The readings of Ballard's deeper-tree Star2 (``ballard1983-readings``), by label -> shown name.
READINGS = {
    "star2": "star2 (C1: resume)",
    "star2-first-chance": "star2-first-chance (probing at the first chance level only)",
    "star2-recursive-probe": "star2-recursive-probe (probes all the way down)",
    "star2-probe-level": "star2-probe-level (a probe counted at its level)",
}


def readings_table(df: pd.DataFrame) -> str:
    """Ballard's deeper-tree Star2 (N = 10, random ordering) beside Star2 and the two readings:
    percent of expectimax's leaves (mean ± SE, n), the difference from Ballard's figure, and
    for the inexact reading its mean |value error| as a percent of U - L, the percent of trees
    with any error and the percent of root moves among expectimax's best."""
    d = _deeper_rows(df)
    # the inexact reading's rows are approx: their leaves count as any row's
    m = percent_leaves(d.assign(status=d["status"].replace("approx", "ok")))
    m = m[m["label"].isin(list(READINGS))]
    if not len(m):
        raise PlotError("no N = 10 rows of Star2 or its readings")
    s = summarise(m, ["levels", "label"])
    published = ballard_deeper()
    lines = [
        "| levels | algorithm | published Star2 | ours: mean ± SE (n) | ours − published | "
        "mean abs. value error, % of U − L | % trees with an error | % moves among "
        "expectimax's best |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for levels in sorted(s["levels"].unique()):
        pub = published.get(int(levels), (None, None))[1]
        for label, shown in READINGS.items():
            row = s[(s["levels"] == levels) & (s["label"] == label)]
            if not len(row):
                continue
            r = row.iloc[0]
            diff = "-" if pub is None else f"{r['mean'] - pub:+.1f}"
            g = m[(m["levels"] == levels) & (m["label"] == label)]
            err = g["value_error"].astype(float).abs().fillna(0.0)
            rel = 100 * err / (g["U"].astype(float) - g["L"].astype(float))
            best = g["decision_optimal"].dropna().astype(bool) if "decision_optimal" in g else None
            moves = "-" if best is None or not len(best) else f"{100 * best.mean():.1f}"
            lines.append(
                f"| {int(levels)} | {shown} | {'-' if pub is None else pub} | "
                f"{_fmt(r['mean'], r['se'], int(r['n']))} | "
                f"{diff} | {rel.mean():.3g} | "
                f"{100 * (err > 0).mean():.1f} | {moves} |"
            )
    return "\n".join(lines) + "\n"


def readings_by_level_table(df: pd.DataFrame) -> str:
    """Per level at N = 10 (3-6 levels, random ordering): Star2's and each reading's nodes
    there as a percent of expectimax's on the same tree (mean ± SE; a reading's probes are
    counted at their levels as it defines them)."""
    from starbench.analysis.data import percent_by_level

    d = _deeper_rows(df, levels_needed=True)
    ok = d[d["status"].isin(["ok", "unverified", "approx"])]
    m = percent_by_level(ok.assign(status=ok["status"].replace("approx", "ok")))
    m = m[m["label"].isin(list(READINGS))]
    s = summarise(m, ["levels", "level", "label"], value="pct_nodes")
    head = " | ".join(f"{shown}: % of expectimax's nodes" for shown in READINGS.values())
    lines = [f"| levels | level | kind | {head} |", "|---:|---:|---|" + "---:|" * len(READINGS)]
    for (levels, level), g in s.groupby(["levels", "level"], sort=True):
        kind = "leaf" if level == levels else _LEVEL_KINDS[int(level) % 4]
        cells = []
        for label in READINGS:
            r = g[g["label"] == label]
            cells.append("-" if not len(r) else f"{r.iloc[0]['mean']:.1f} ± {r.iloc[0]['se']:.2f}")
        lines.append(f"| {int(levels)} | {int(level)} | {kind} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


#: Hypotheses for the discrepancies (the ``ballard1983-hypotheses`` experiment) in the order
#: they are listed: name, what changes from the study's model, and which rows it made (a
#: prepared table -> boolean mask; the baseline is every row no other hypothesis claims).
HYPOTHESES = (
    ("baseline", "the study's model", None),
    ("declared bounds", "L, U = 0 and R x levels", lambda m: m["bounds"] == "declared"),
    (
        "static ordering",
        "moves by path sum at every decision level, the one above the leaves included",
        lambda m: m["order"] == "static (path sum)",
    ),
    (
        "static-interior",
        "moves by path sum where the children are not leaves, the root included",
        lambda m: m["order"] == "static, interior levels",
    ),
    (
        "static-middle",
        "static-interior with the root in the generated order",
        lambda m: m["order"] == "static, interior levels but the root",
    ),
    (
        "coarse values",
        "increments in 0..10, many ties",
        lambda m: m["resolution"] < RegularTreeSpec().resolution,  # below the default
    ),
    ("uniform values", "independent uniform leaves", lambda m: m["value_model"] == "uniform"),
)


def _hypothesis(m: pd.DataFrame) -> pd.Series:
    """The hypothesis a row's tree belongs to (each changes exactly one thing)."""
    out = pd.Series("baseline", index=m.index)
    for name, _, made in HYPOTHESES[1:]:
        out[made(m)] = name
    return out


def hypotheses_table(df: pd.DataFrame) -> str:
    """Per hypothesis and Star2 counting convention: the discrepant cells (Star2 at N = 4 and
    at 5 and 6 levels) and the largest deviation from each of Ballard's three tables (Star1
    and that Star2), so a change that mends one table and breaks another shows at once."""
    m = percent_leaves(_prepare(df))
    m = m[m["label"].isin(["star1", *STAR2_COUNTINGS])].copy()
    if not len(m):
        raise PlotError("no Star1 or Star2 rows")
    m["hypothesis"] = _hypothesis(m)
    s = summarise(m, ["hypothesis", "order", "levels", "branching", "label"])
    rand = s["order"].isin(
        [
            "random (as generated)",
            "static (path sum)",
            "static, interior levels",
            "static, interior levels but the root",
        ]
    )
    best = s["order"] == "optimal"

    def cell(h: str, where: pd.Series, label: str) -> pd.Series | None:
        row = s[(s["hypothesis"] == h) & where & (s["label"] == label)]
        return row.iloc[0] if len(row) else None

    def worst(h: str, where: pd.Series, key: str, published: dict, label: str) -> str:
        devs = []
        for value, (p1, p2) in published.items():
            for lab, pub in (("star1", p1), (label, p2)):
                r = cell(h, where & (s[key] == value), lab)
                if r is not None and pub is not None:
                    devs.append(abs(r["mean"] - pub))
        return f"{max(devs):.1f}" if devs else "-"

    def shown(r: pd.Series | None) -> str:
        return "-" if r is None else f"{r['mean']:.1f} ± {r['se']:.2f}"

    lines = [
        "| hypothesis | Star2 counting | Star2, N = 4 (published 75.4) | Star2, 5 levels (22) | "
        "Star2, 6 levels (12) | average table: max abs. deviation | "
        "best case: max abs. deviation | deeper: max abs. deviation |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    three, ten = s["levels"] == 3, s["branching"] == 10
    for h, what, _ in HYPOTHESES:
        if not (s["hypothesis"] == h).any():
            continue
        for label, (counting, _) in STAR2_COUNTINGS.items():
            if cell(h, three, label) is None:
                continue
            best_dev = worst(h, best & three, "branching", ballard_best(), label)
            lines.append(
                f"| {h} ({what}) | {counting} | "
                f"{shown(cell(h, rand & three & (s['branching'] == 4), label))} | "
                f"{shown(cell(h, rand & ten & (s['levels'] == 5), label))} | "
                f"{shown(cell(h, rand & ten & (s['levels'] == 6), label))} | "
                f"{worst(h, rand & three, 'branching', ballard_average(), label)} | "
                f"{best_dev if best_dev != '-' else 'unchanged'} | "
                f"{worst(h, rand & ten, 'levels', ballard_deeper(), label)} |"
            )
    return "\n".join(lines) + "\n"


def hypotheses_deeper_table(df: pd.DataFrame) -> str:
    """Per hypothesis and Star2 counting convention: Star2 at N = 10, random (or static) order,
    at every level count, beside Ballard's deeper-tree figures."""
    m = percent_leaves(_prepare(df))
    m = m[m["label"].isin(list(STAR2_COUNTINGS)) & (m["branching"] == 10)].copy()
    if not len(m):
        raise PlotError("no Star2 rows at N = 10")
    m["hypothesis"] = _hypothesis(m)
    m = m[m["order"] != "optimal"]
    s = summarise(m, ["hypothesis", "levels", "label"])
    levels = sorted(int(x) for x in s["levels"].unique())
    pub = ballard_deeper()
    lines = [
        "| hypothesis | Star2 counting | "
        + " | ".join(f"{lv} levels (published {pub[lv][1]})" for lv in levels if lv in pub)
        + " |",
        "|---|---|" + "---:|" * len([lv for lv in levels if lv in pub]),
    ]
    for h, what, _ in HYPOTHESES:
        for label, (counting, _) in STAR2_COUNTINGS.items():
            cells = []
            for lv in levels:
                if lv not in pub:
                    continue
                r = s[(s["hypothesis"] == h) & (s["levels"] == lv) & (s["label"] == label)]
                cells.append(
                    "-" if not len(r) else f"{r.iloc[0]['mean']:.1f} ± {r.iloc[0]['se']:.2f}"
                )
            if all(c == "-" for c in cells):
                continue
            lines.append(f"| {h} ({what}) | {counting} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def probing_table(df: pd.DataFrame) -> str:
    """Star2.5 by probing factor, N = 20, 3 levels: published vs ours."""
    m = _random_order_3_levels(df)
    m = m[m["algorithm"].str.startswith("star2.5") & (m["branching"] == 20)]
    if not len(m):
        raise PlotError("no Star2.5 rows at N = 20, 3 levels, random ordering")
    s = summarise(m, ["algorithm", "k"])
    lines = [
        "| variant | k | published | ours: mean ± SE (n) | ours − published |",
        "|---|---:|---:|---:|---:|",
    ]
    for variant, table in ballard_probing().items():
        for k, pub in table.items():
            row = s[(s["algorithm"] == f"star2.5-{variant}") & (s["k"] == k)]
            if not len(row):
                continue
            r = row.iloc[0]
            lines.append(
                f"| {variant} | {k} | {pub:.1f} | {_fmt(r['mean'], r['se'], r['n'])} | "
                f"{r['mean'] - pub:+.1f} |"
            )
    return "\n".join(lines) + "\n"


def budget_table(df: pd.DataFrame) -> str:
    """Per ordering, algorithm and depth: searches finished within the node budget, their mean
    nodes; and the deepest depth at which every search finished."""
    d = _prepare(df)
    rows = []
    for (order, label), g in d.groupby(["order", "label"], sort=True):
        deepest, contiguous = None, True
        for depth, h in g.groupby("depth", sort=True):
            done = h[h["status"].isin(["ok", "unverified"])]
            frac = len(done) / len(h)
            nodes = done["nodes"].astype(float)
            se = nodes.std(ddof=1) / len(nodes) ** 0.5 if len(nodes) > 1 else float("nan")
            rows.append(
                (
                    order,
                    label,
                    int(depth),
                    len(done),
                    len(h),
                    f"{nodes.mean():.3g} ± {se:.2g}" if len(nodes) else "-",
                )
            )
            if frac == 1.0 and contiguous:
                deepest = int(depth)
            else:
                contiguous = False
        rows.append((order, label, "deepest", deepest, None, ""))
    lines = [
        "| ordering | algorithm | depth (plies) | finished / searches | nodes: mean ± SE |",
        "|---|---|---:|---:|---:|",
    ]
    for order, label, depth, done, total, nodes in rows:
        if depth == "deepest":
            lines.append(f"| {order} | **{label}** | **deepest full search** | **{done}** | |")
        else:
            lines.append(f"| {order} | {label} | {depth} | {done} / {total} | {nodes} |")
    return "\n".join(lines) + "\n"


def best_k_table(df: pd.DataFrame) -> str:
    """Star2.5 by k per distribution and depth: percent of expectimax's leaves and nodes, and
    the k with the fewest nodes (the work measure: probes that re-enter nodes count)."""
    m = percent_leaves(_prepare(df))
    m = m[m["algorithm"].str.startswith("star2.5") & m["k"].notna()].copy()
    if not len(m):
        raise PlotError("no Star2.5 rows")
    m["k"] = m["k"].astype(int)
    leaves = summarise(m, ["distribution", "depth", "algorithm", "k"])
    nodes = summarise(m, ["distribution", "depth", "algorithm", "k"], value="pct_nodes")
    both = leaves.merge(
        nodes, on=["distribution", "depth", "algorithm", "k"], suffixes=("_l", "_n")
    )
    lines = [
        "| outcomes | depth (plies) | variant | k | % leaves: mean ± SE (n) | "
        "% nodes: mean ± SE | best k (fewest nodes) |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for (dist, depth, algo), g in both.groupby(["distribution", "depth", "algorithm"], sort=True):
        best = int(g.loc[g["mean_n"].idxmin(), "k"])
        for _, r in g.sort_values("k").iterrows():
            mark = "**best**" if int(r["k"]) == best else ""
            lines.append(
                f"| {dist} | {depth} | {algo.removeprefix('star2.5-')} | {int(r['k'])} | "
                f"{_fmt(r['mean_l'], r['se_l'], int(r['n_l']))} | "
                f"{r['mean_n']:.1f} ± {r['se_n']:.2f} | {mark} |"
            )
    return "\n".join(lines) + "\n"


#: study folder -> [(table file name, function)]
STUDY_TABLES = {
    "ballard1983": [
        ("published-vs-ours.md", ballard_table),
        ("best-case-vs-ours.md", best_case_table),
        ("deeper-vs-ours.md", deeper_table),
        ("deeper-by-level.md", deeper_by_level_table),
    ],
    "ballard1983-uniform": [("published-vs-ours.md", ballard_table)],
    "ballard1983-hypotheses": [
        ("hypotheses.md", hypotheses_table),
        ("deeper.md", hypotheses_deeper_table),
    ],
    "ballard1983-probing": [("published-vs-ours.md", probing_table)],
    "ballard1983-readings": [
        ("readings.md", readings_table),
        ("by-level.md", readings_by_level_table),
        ("star2-by-level.md", deeper_by_level_table),
    ],
    "hauk2004": [("depth-under-budget.md", budget_table)],
    "heyden2009": [("best-k.md", best_k_table)],
    "hauk2004-backgammon": [("by-depth.md", backgammon.backgammon_table)],
    "hauk2004-backgammon-deep": [
        ("deep.md", backgammon.deep_table),
        ("deep-by-class.md", backgammon.deep_class_table),
        ("published-vs-ours.md", backgammon.published_table),
    ],
    "transposition": [
        ("by-pool.md", transposition.pool_table),
        ("chance-nodes.md", transposition.chance_table),
    ],
    "transposition-pig": [("by-table.md", transposition.game_table)],
    "hauk2004-deepening": [("depth-completed.md", transposition.deepening_table)],
    "hauk2004-deepening-pig": [("depth-completed.md", transposition.deepening_table)],
    "pig-decisions": [
        ("by-depth.md", decisions.decisions_table),
        ("matches.md", decisions.match_table),
    ],
    "chanceprobcut": [("by-shape.md", decisions.error_table)],
    "chanceprobcut-pig": [("by-depth.md", decisions.inexact_table)],
    "pig-inexact": [
        ("by-depth.md", decisions.inexact_table),
        ("matches.md", decisions.match_table),
    ],
}

#: study folder -> [(figure name, function(df, width) -> (figure, Markdown table))]: figures
#: of one study beyond the generic ones (written to experiments/<folder>/figures/).
STUDY_FIGURES = {
    "hauk2004-backgammon-deep": [("pct-leaves-by-depth", backgammon.depth_figure)],
    "transposition": [("saved-by-pool", transposition.pool_figure)],
    "hauk2004-deepening": [("depth-completed", transposition.deepening_figure)],
    "hauk2004-deepening-pig": [("depth-completed", transposition.deepening_figure)],
}


#: study folder -> [(table file name, function(folder))]: a study of matches only (no cells;
#: ``starbench.analysis.matches``), its tables written to experiments/<folder>/.
MATCH_TABLES = {
    "chanceprobcut-matches": [
        ("matches.md", lambda folder: matches.matches_table(folder, name_column=True))
    ],
}

#: study folder -> [(figure name, function(folder, width) -> (figure, Markdown table))]
MATCH_FIGURES = {"chanceprobcut-matches": [("win-rates", matches.win_rate_figure)]}
