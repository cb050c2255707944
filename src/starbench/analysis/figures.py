"""The figures: each a function of a results table that draws one figure at a given width and
returns the summarised numbers it shows (written beside it as Markdown and LaTeX).

A figure that the data cannot support raises ``PlotError`` with the reason; ``plot`` skips it
with a warning and writes the others.  Panels are the combinations of the tree parameters that
vary in the data (besides the figure's own x axis), so one function serves every study.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from unittest import mock

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from starbench.analysis.data import (
    PlotError,
    bootstrap_band,
    percent_leaves,
    require,
    summarise,
)
from starbench.analysis.decisions import scored_rows
from starbench.analysis.inexact import abs_error
from starbench.analysis.style import HEIGHT_RATIO, distinct, style_of

#: The columns that define a condition, in the order they become panels.  ``levels`` stands
#: for depth and trailing_chance, ``order`` for ordering and outcome_order.  Every one that varies
#: in the data is on the figure's axis or a panel, or pooled only when asked (``--pool``).
CONDITIONS = (
    "game",
    "heuristic",
    "sampler",
    "levels",
    "branching",
    "chance_arity",
    "distribution",
    "skew",
    "weight_max",
    "order",
    "value_model",
    "noise_sd",
    "pattern",
    "resolution",
    "bounds",
    "full_pass_limit",
    "seed",
    "exact",
)
FACETS = CONDITIONS
MAX_PANELS = 12
#: The tallest figure, in inches, legend included: a page of a two-column paper has about 9 in
#: of text height.  Grids wrap into columns and, where still taller, shrink their panels' height.
MAX_HEIGHT = 9.0
#: A single-column ``nodes_by_depth`` with more conditions than this draws the nodes only (the
#: effective branching factor stays in its table and in the double-column figure).
EBF_PANELS = 3
#: A categorical figure whose algorithms come in more values of k than this draws k on the x
#: axis instead (one hue per variant, the category as panels), never a legend entry per k.
MAX_K_HUES = 3
#: Searches shorter than this are timer noise, not data: timing figures leave them out.
MIN_TIMED = 1e-4
#: What the shaded bands and error bars are (said on every figure).
BAND = "bands and bars: 95% bootstrap CI of the mean over trees (n per point in the table)"
#: Display names of orderings (decision / outcome order).
ORDERS = {
    "generated/generated": "random (as generated)",
    "perfect/refuting": "optimal",
    "static/generated": "static (path sum)",
    "static-interior/generated": "static, interior levels",
    "static-middle/generated": "static, interior levels but the root",
}
NAMES = {
    "levels": "levels",
    "branching": "N",
    "distribution": "outcomes",
    "order": "ordering",
    "value_model": "values",
    "noise_sd": "noise",
}


#: seaborn's error bars on the figures: the 95% bootstrap interval (``data.bootstrap_band``,
#: seaborn's own ``("ci", 95)`` computed at once), or None while ``plot`` writes only the tables
#: (``images=False``: the tables' intervals come from ``data.summarise``, so the bands would be
#: computed for nothing)
ERRORBAR: ContextVar[Callable[[Any], tuple[float, float]] | None] = ContextVar(
    "errorbar", default=bootstrap_band
)
#: Panels that show one measure share their y range (an effect across panels is read from the
#: axes, not from tick labels); ``starbench plot --free-y`` gives each panel its own.
SHARE_Y: ContextVar[bool] = ContextVar("share_y", default=True)


@dataclass(frozen=True)
class Drawn:
    figure: plt.Figure
    table: pd.DataFrame  # group columns, mean, se, n, ci_lo, ci_hi
    value: str  # what "mean" is


def _prepare(df: pd.DataFrame) -> pd.DataFrame:
    """Derived condition columns: ``order`` (decision/outcome ordering; a game's move order),
    and for game rows ``levels`` = the depth in decision plies (a game has no generator
    levels)."""
    df = df.copy()
    if "ordering" in df.columns and "outcome_order" in df.columns:
        order = df["ordering"].fillna("").astype(str) + "/" + df["outcome_order"].fillna("")
        names = {o: ORDERS.get(o, o.split("/")[0] if "pooled" in o else o) for o in order.unique()}
        df["order"] = order.map(names)
    if "game" in df.columns and df["game"].notna().any():
        game = df["game"].notna()
        df["levels"] = df["levels"].astype("Float64")
        df.loc[game, "levels"] = df.loc[game, "depth"].astype(float)
        if "move_order" in df.columns:
            df.loc[game, "order"] = "moves: " + df.loc[game, "move_order"].fillna("none")
    return df


def conditions(df: pd.DataFrame) -> list[str]:
    """The condition columns present in a (prepared) table (a column empty in every row, such as
    ``game`` for random trees, is not a condition of it)."""
    return [c for c in CONDITIONS if c in df.columns and df[c].notna().any()]


def _facets(df: pd.DataFrame, exclude: tuple[str, ...]) -> list[str]:
    """The conditions that vary and are not on the axis.  A condition that is a function of
    the axis variable (``chance_arity`` when N moves = N outcomes) is on the axis with it."""
    axis = [x for x in exclude if x in df.columns]
    out = []
    for c in conditions(df):
        if c in exclude or df[c].nunique(dropna=False) <= 1:
            continue
        if axis and (df.groupby(axis, dropna=False)[c].nunique(dropna=False) <= 1).all():
            continue
        out.append(c)
    return out


def _with_conditions(s: pd.DataFrame, m: pd.DataFrame, x: str | None = None) -> pd.DataFrame:
    """Every condition's parameters as columns of a figure table: constant ones, and those
    that are functions of the axis variable ``x`` (mapped from it)."""
    conds = conditions(m)
    for c in conds:
        if c in s.columns:
            continue
        if m[c].nunique(dropna=False) <= 1:
            s[c] = m[c].iloc[0]
        elif x is not None:
            s[c] = s[x].map(m.groupby(x)[c].first())
        else:
            raise AssertionError(f"condition {c} varies but is neither a panel nor on the axis")
    stats = [c for c in ("mean", "se", "n", "ci_lo", "ci_hi") if c in s.columns]
    rest = [c for c in s.columns if c not in conds and c not in stats]
    return s[[*conds, *rest, *stats]]


def _informative(df: pd.DataFrame, x: str) -> tuple[pd.DataFrame, list[str]]:
    """Keep the panels in which ``x`` takes at least two values; return them and the facets
    that still vary."""
    facets = _facets(df, (x,))
    if facets:
        df = df[df.groupby(facets, sort=True)[x].transform("nunique") >= 2]
    if not len(df):
        raise PlotError(f"no condition in which {x!r} takes two values")
    return df, _facets(df, (x,))


def _panels(df: pd.DataFrame, facets: list[str]) -> list[tuple[str, pd.DataFrame]]:
    if not facets:
        return [("", df)]
    out = []
    for key, g in df.groupby(facets, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        out.append(
            (", ".join(f"{NAMES.get(f, f)} {v}" for f, v in zip(facets, key, strict=True)), g)
        )
    if len(out) > MAX_PANELS:
        raise PlotError(
            f"the data varies in {', '.join(facets)} ({len(out)} panels, at most {MAX_PANELS}): "
            f"plot fewer conditions, or average over one with --pool COLUMN"
        )
    return out


def columns(n: int, width: float) -> int:
    """Panels per row: up to 3 in a double-column figure; in a single-column one, 1 or 2
    panels stacked, 3 to 8 in two columns, more in three (a grid that fits a page)."""
    if width > 5:
        return min(n, 3)
    return 1 if n <= 2 else 2 if n <= 8 else 3


#: Characters of a narrow panel's title line per inch of the panel's width (the titles' 7 pt
#: font is about 4.7 pt a character; the axes are about two thirds of their panel).
TITLE_CHARS_PER_INCH = 10


def narrow_title(title: str, panel: float) -> str:
    """A narrow panel's title: one condition per line, and a condition too long for the panel
    (``panel`` inches wide) wrapped at its spaces (``ordering random`` / ``(as generated)``)."""
    import textwrap

    chars = max(12, int(TITLE_CHARS_PER_INCH * panel))
    return "\n".join(
        "\n".join(textwrap.wrap(part, chars, break_long_words=False)) or part
        for part in title.split(", ")
    )


def title_lines(titles: list[str], width: float, cols: int) -> int:
    """Lines of the longest panel title (``narrow_title`` in a narrow panel)."""
    if not titles or not any(titles):
        return 0
    if width / cols >= 3:
        return 1
    return max(narrow_title(t, width / cols).count("\n") + 1 for t in titles)


def panel_height(rows: int, cols: int, width: float, lines: int = 1) -> float:
    """One panel's height: the paper ratio and its title's ``lines``, shrunk where ``rows`` of
    them would be taller than ``MAX_HEIGHT`` less room for the legend."""
    nominal = width / cols * HEIGHT_RATIO * (1.0 if cols > 1 else 0.9) + 0.14 * lines
    return min(nominal, (MAX_HEIGHT - 1.4) / rows)


def _grid(
    n: int, width: float, cols: int | None = None, titles: list[str] | None = None
) -> tuple[plt.Figure, list[plt.Axes]]:
    cols = cols or columns(n, width)
    rows = -(-n // cols)
    lines = title_lines(titles or [], width, cols)
    fig, axes = plt.subplots(
        rows,
        cols,
        figsize=(width, panel_height(rows, cols, width, lines) * rows),
        squeeze=False,
        layout="constrained",
    )
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _styles(labels: list[str]) -> dict[str, tuple[str, str]]:
    return distinct(labels)


def _hue_style(column: str, labels: list[str]) -> dict[str, Any]:
    """Seaborn's arguments for one colour and marker per label (``style.STYLES``), solid
    lines."""
    styles = _styles(labels)
    return dict(
        hue=column,
        hue_order=labels,
        style=column,
        style_order=labels,
        palette={lab: c for lab, (c, _) in styles.items()},
        markers={lab: mk for lab, (_, mk) in styles.items()},
    )


def _point_style(labels: list[str]) -> dict[str, Any]:
    """Seaborn's ``catplot(kind="point")`` arguments for one colour and marker per label, the
    means as points with error bars and no joining lines."""
    styles = _styles(labels)
    return dict(
        hue="label",
        hue_order=labels,
        palette={lab: c for lab, (c, _) in styles.items()},
        markers=[styles[lab][1] for lab in labels],
        linestyles="none",
        err_kws={"linewidth": 1},
        markersize=4,
    )


def _legend_entries(ax: plt.Axes, labels: list[str]) -> None:
    """Entries for the figure-level legend (seaborn's own legends are turned off)."""
    for lab, (color, marker) in _styles(labels).items():
        ax.plot([], [], color=color, marker=marker, label=lab)


def _panel_column(m: pd.DataFrame, facets: list[str]) -> pd.Series:
    """Each row's panel title (the facet values it shares with its panel)."""
    if not facets:
        return pd.Series("", index=m.index)
    parts = [m[f].astype(str).radd(f"{NAMES.get(f, f)} ") for f in facets]
    title = parts[0]
    for p in parts[1:]:
        title = title + ", " + p
    return title


def _facet(
    kind: str, raw: pd.DataFrame, facets: list[str], titles: list[str], width: float, **kws
) -> tuple[plt.Figure, list[plt.Axes]]:
    """Seaborn draws every panel: ``relplot`` (lines) or ``catplot`` (points), one panel per
    combination of the facets (column ``_panel``), the mean of the per-tree rows with its 95%
    bootstrap interval (``N_BOOT`` resamples, seed ``BOOTSTRAP_SEED``).  Paper sizes: the
    width is fixed, panels wrap at 3 columns (stacked in a single-column figure)."""
    import seaborn as sns

    n = len(titles)
    cols = columns(n, width)
    height = panel_height(-(-n // cols), cols, width, title_lines(titles, width, cols))
    share = SHARE_Y.get()
    common = dict(
        data=raw.assign(_panel=_panel_column(raw, facets)),
        col="_panel",
        col_order=titles,
        col_wrap=cols,
        height=height,
        aspect=width / cols / height,
        errorbar=ERRORBAR.get(),
        legend=False,
        facet_kws={"sharex": False, "sharey": share},
    )
    # seaborn lays the grid out tightly twice; constrained layout (below) replaces that layout
    # when the figure is saved, so seaborn's is skipped: the same files, in less time
    with mock.patch.object(sns.axisgrid.Grid, "tight_layout", _no_tight_layout):
        if kind == "line":
            grid = sns.relplot(kind="line", **common, **kws)
        else:
            common.pop("facet_kws")
            grid = sns.catplot(kind="point", sharex=False, sharey=share, **common, **kws)
    fig = grid.figure
    fig.set_layout_engine("constrained")
    axes = list(grid.axes.flat)
    for ax, title in zip(axes, titles, strict=True):
        _set_title(ax, title, width / cols < 3, width / cols)
        if share:  # seaborn hides shared tick labels inside the grid; a wrapped grid keeps them
            ax.tick_params(labelleft=True)
    return fig, axes


def _no_tight_layout(grid: Any, *args: Any, **kwargs: Any) -> Any:
    return grid


def _set_title(ax: plt.Axes, title: str, narrow: bool, panel: float) -> None:
    """A panel's title, ``narrow_title`` in a narrow panel (under 3 in) ``panel`` inches wide."""
    ax.set_title(narrow_title(title, panel) if narrow else title, fontsize="small")


def panel_title(ax: plt.Axes, title: str) -> None:
    """A panel's title on a hand-built grid (narrow: from the axes' own width)."""
    width = ax.figure.get_figwidth()
    spec = ax.get_subplotspec()
    panel = width / spec.get_gridspec().ncols if spec is not None else width
    _set_title(ax, title, ax.get_position().width * width < 3, panel)


def share_y(axes: list[plt.Axes]) -> None:
    """One y range for ``axes`` (panels of one measure), unless ``--free-y`` was asked."""
    if SHARE_Y.get() and len(axes) > 1:
        limits = [ax.get_ylim() for ax in axes]
        lo, hi = min(a for a, _ in limits), max(b for _, b in limits)
        for ax in axes[1:]:
            ax.sharey(axes[0])
        axes[0].set_ylim(lo, hi)


def _lines(ax: plt.Axes, raw: pd.DataFrame, x: str, y: str) -> None:
    """One line per label through the mean of ``y`` at each ``x`` with its 95% bootstrap band
    (seaborn's ``lineplot`` on the per-tree rows), on one axis of a hand-built grid."""
    import seaborn as sns

    labels = sorted(raw["label"].astype(str).unique())
    sns.lineplot(
        data=raw.assign(label=raw["label"].astype(str), _y=raw[y].astype(float)),
        x=x,
        y="_y",
        **_hue_style("label", labels),
        dashes=False,
        errorbar=ERRORBAR.get(),
        err_kws={"alpha": 0.18, "linewidth": 0},
        legend=False,
        ax=ax,
    )
    ax.set_ylabel(y)
    _legend_entries(ax, labels)


def _raw(m: pd.DataFrame, panel: pd.DataFrame, facets: list[str]) -> pd.DataFrame:
    """The per-tree rows of one panel (the summary rows ``panel`` share its facet values)."""
    mask = pd.Series(True, index=m.index)
    for f in facets:
        mask &= m[f].astype(str) == str(panel[f].iloc[0])
    return m[mask]


def _legend(fig: plt.Figure, axes: list[plt.Axes], band: bool | str = True) -> None:
    """The figure's one legend, below the axes; its title says what the bands are (``band``
    True), or is the text ``band``, or none."""
    handles, labels = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    width, height = fig.get_size_inches()
    ncols = min(len(labels), 4 if width > 5 else 2)
    rows = -(-len(labels) // ncols)
    fig.set_size_inches(width, height + 0.16 * rows)  # room for the legend below the axes
    fig.legend(
        [handles[lab] for lab in labels],
        labels,
        loc="outside lower center",
        ncols=ncols,
        title=band
        if isinstance(band, str)
        else (BAND if width > 5 else BAND.replace(" of the mean", "\nof the mean"))
        if band
        else None,
        title_fontsize="small",
        frameon=False,
    )


def _pct_figure(
    df: pd.DataFrame,
    width: float,
    x: str,
    xlabel: str,
    *,
    logx: bool = False,
    min_x: int = 2,
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    reference: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> Drawn:
    """Percent of expectimax's leaves against ``x``, one line per label; ``reference`` picks
    the rows drawn as horizontal reference lines instead (algorithms without ``x``, such as
    Star1 in a figure by k: their mean per panel, dashed, and in the table with ``x`` empty)."""
    df = _prepare(df)
    require(df, x)
    everything = percent_leaves(df)
    m = everything
    if select is not None:
        m = select(m)
    if m[x].nunique() < min_x:
        raise PlotError(f"needs at least {min_x} values of {x!r}, the data has {m[x].nunique()}")
    m, facets = _informative(m, x)
    s = _with_conditions(summarise(m, [*facets, "label", x]), m, x)
    panels = _panels(s, facets)
    labels = sorted(m["label"].astype(str).unique())
    refs = pd.DataFrame()
    if reference is not None:
        r = reference(everything)
        if facets and len(r):  # only the panels drawn
            drawn = set(map(tuple, m[facets].astype(str).to_numpy()))
            r = r[[tuple(v) in drawn for v in r[facets].astype(str).to_numpy()]]
        if len(r):
            refs = _with_conditions(summarise(r, [*facets, "label"]), r)
            refs[x] = pd.NA
    fig, axes = _facet(
        "line",
        m.assign(label=m["label"].astype(str), pct_leaves=m["pct_leaves"].astype(float)),
        facets,
        [t for t, _ in panels],
        width,
        x=x,
        y="pct_leaves",
        **_hue_style("label", labels),
        dashes=False,
        err_kws={"alpha": 0.18, "linewidth": 0},
    )
    for ax, (_title, g) in zip(axes, panels, strict=True):
        ax.set_xlabel(xlabel)
        ax.set_ylabel("% of expectimax's leaves")
        if logx:
            ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(g[x].unique()))
        ax.set_xticklabels([str(v) for v in sorted(g[x].unique())])
        ax.set_ylim(bottom=0)
    if len(refs):
        for ax, (_title, g) in zip(axes, panels, strict=True):
            here = refs
            for f in facets:
                here = here[here[f].astype(str) == str(g[f].iloc[0])]
            for _, row in here.iterrows():
                ax.axhline(
                    row["mean"], color=style_of(str(row["label"]))[0], linestyle="--", linewidth=1
                )
        for lab in sorted(refs["label"].astype(str).unique()):
            axes[0].plot([], [], color=style_of(lab)[0], linestyle="--", label=f"{lab} (no {x})")
        s = pd.concat([s, refs[s.columns.intersection(refs.columns)]], ignore_index=True)
    _legend_entries(axes[0], labels)
    _legend(fig, axes)
    return Drawn(fig, s, "percent of expectimax's leaves")


def leaves_by_branching(df: pd.DataFrame, width: float) -> Drawn:
    """Percent of expectimax's leaves against the branching factor N."""
    return _pct_figure(df, width, "branching", "branching factor N (moves = outcomes)", logx=True)


def leaves_by_k(df: pd.DataFrame, width: float) -> Drawn:
    """Percent of expectimax's leaves against the probing factor k, cyclic vs sequential."""
    require(df, "k")

    def star25(m: pd.DataFrame) -> pd.DataFrame:
        m = m[m["algorithm"].str.startswith("star2.5") & m["k"].notna()].copy()
        m["k"] = m["k"].astype(int)
        m["label"] = m["algorithm"] + np.where(m["after_probe"] == "research", " research", "")
        if "probe_full_window" in m.columns:
            skip = m["probe_full_window"].eq(False).fillna(False).to_numpy(bool)
            m["label"] = m["label"] + np.where(skip, " no-full-probe", "")
        return m

    def without_k(m: pd.DataFrame) -> pd.DataFrame:
        # the listed algorithms without a probing factor (Star1, Star2, sampled searches, ...)
        return m[~m["algorithm"].str.startswith("star2.5") | m["k"].isna()]

    return _pct_figure(df, width, "k", "probing factor k", select=star25, reference=without_k)


def _categorical(df: pd.DataFrame, width: float, x: str, xlabel: str) -> Drawn:
    df = _prepare(df)
    require(df, x)
    m = percent_leaves(df)
    if m[x].nunique() < 2:
        raise PlotError(f"needs at least 2 values of {x!r}, the data has {m[x].nunique()}")
    if "k" in m.columns and (m.groupby("algorithm")["k"].nunique() > MAX_K_HUES).any():
        # many k per variant: k on the x axis, one hue per variant, x's values as panels
        return leaves_by_k(df, width)
    m, facets = _informative(m, x)
    s = _with_conditions(summarise(m, [*facets, "label", x]), m, x)
    panels = _panels(s, facets)
    cats = sorted(m[x].astype(str).unique())
    labels = sorted(m["label"].astype(str).unique())
    fig, axes = _facet(
        "point",
        m.assign(
            **{x: m[x].astype(str)},
            label=m["label"].astype(str),
            pct_leaves=m["pct_leaves"].astype(float),
        ),
        facets,
        [t for t, _ in panels],
        width,
        x=x,
        y="pct_leaves",
        order=cats,
        **_point_style(labels),
        dodge=0.8 - 0.8 / max(len(labels), 1),
        capsize=0.08,
    )
    for ax in axes:
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, rotation=20 if len(cats) > 3 else 0)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("% of expectimax's leaves")
        ax.set_ylim(bottom=0)
    _legend_entries(axes[0], labels)
    _legend(fig, axes)
    return Drawn(fig, s, "percent of expectimax's leaves")


def leaves_by_algorithm(df: pd.DataFrame, width: float) -> Drawn:
    """Every listed algorithm's percent of expectimax's leaves (the mean with its 95% bootstrap
    interval), one panel per condition that varies: the figure every run and sweep gets,
    whatever its design; expectimax is the dashed line at 100."""
    df = _prepare(df)
    m = percent_leaves(df)
    if not len(m):
        raise PlotError("needs expectimax and another algorithm on the same trees")
    facets = _facets(m, ())
    s = _with_conditions(summarise(m, [*facets, "label"]), m)
    panels = _panels(s, facets)
    labels = sorted(m["label"].astype(str).unique())
    fig, axes = _facet(
        "point",
        m.assign(label=m["label"].astype(str), pct_leaves=m["pct_leaves"].astype(float)),
        facets,
        [t for t, _ in panels],
        width,
        x="label",
        y="pct_leaves",
        order=labels,
        **_point_style(labels),
        capsize=0.15,
    )
    for ax in axes:  # the algorithms are told by colour and marker (the legend), not by tick
        ax.axhline(100, color=style_of("expectimax")[0], linestyle="--", linewidth=0.8)
        ax.set_xticks([])
        ax.set_xlabel("algorithm")
        ax.set_ylabel("% of expectimax's leaves")
        ax.set_ylim(bottom=0)
    axes[0].plot([], [], color=style_of("expectimax")[0], linestyle="--", label="expectimax (100)")
    _legend_entries(axes[0], labels)
    _legend(fig, axes)
    return Drawn(fig, s, "percent of expectimax's leaves")


def ordering_effect(df: pd.DataFrame, width: float) -> Drawn:
    """Percent of expectimax's leaves by move ordering (decision / outcome order)."""
    return _categorical(df, width, "order", "move ordering (decisions / outcomes)")


def distribution_effect(df: pd.DataFrame, width: float) -> Drawn:
    """Percent of expectimax's leaves by outcome probability distribution."""
    return _categorical(df, width, "distribution", "outcome distribution")


def nodes_panel(ax: plt.Axes, raw: pd.DataFrame, title: str, g: pd.DataFrame) -> None:
    """One condition's nodes against depth (log scale): the per-tree rows ``raw``, its
    summary rows ``g``."""
    _lines(ax, raw, "levels", "nodes_f")
    ax.set_yscale("log")
    panel_title(ax, title)
    ax.set_xlabel("depth (levels)")
    ax.set_ylabel("nodes (mean)")
    ax.set_xticks(sorted(g["levels"].unique()))


def nodes_by_depth(df: pd.DataFrame, width: float) -> Drawn:
    """Nodes against depth (levels, log scale), with the effective branching factor."""
    df = _prepare(df)
    require(df, "levels", "nodes")
    ok = df[df["status"].isin(["ok", "unverified"])].copy()
    if ok["levels"].nunique() < 2:
        raise PlotError(f"needs at least 2 depths (levels), the data has {ok['levels'].nunique()}")
    ok, facets = _informative(ok, "levels")
    ok["nodes_f"] = ok["nodes"].astype(float)
    s = _with_conditions(summarise(ok, [*facets, "label", "levels"], value="nodes_f"), ok, "levels")
    s["ebf"] = s["mean"] ** (1.0 / s["levels"].astype(float))
    panels = _panels(s, facets)
    titles = [t for t, _ in panels]
    if width < 5 and len(panels) > EBF_PANELS:  # a page: nodes only (the ebf is in the table)
        fig, axes = _grid(len(panels), width, titles=titles)
        for ax, (title, g) in zip(axes, panels, strict=True):
            nodes_panel(ax, _raw(ok, g, facets), title, g)
        share_y(axes)
        _legend(fig, axes)
        return Drawn(fig, s, "nodes")
    pairs = 2 if width > 5 and len(panels) > EBF_PANELS else 1  # condition pairs per row
    fig, axes = _grid(
        2 * len(panels), width, cols=2 * pairs, titles=[t for t in titles for _ in "ab"]
    )
    for i, (title, g) in enumerate(panels):
        ax, bx = axes[2 * i], axes[2 * i + 1]
        nodes_panel(ax, _raw(ok, g, facets), title, g)
        import seaborn as sns

        labels = sorted(g["label"].astype(str).unique())
        sns.lineplot(  # the effective branching factor of each mean: no estimate, no band
            data=g.assign(label=g["label"].astype(str)),
            x="levels",
            y="ebf",
            **_hue_style("label", labels),
            dashes=False,
            estimator=None,
            legend=False,
            ax=bx,
        )
        bx.set_xlabel("depth (levels)")
        bx.set_ylabel("eff. branching factor")
        panel_title(bx, title)
        bx.set_xticks(sorted(g["levels"].unique()))
    share_y(axes[0::2])
    share_y(axes[1::2])
    _legend(fig, axes)
    return Drawn(fig, s, "nodes")


def seconds_vs_nodes(df: pd.DataFrame, width: float) -> Drawn:
    """CPU seconds of a search against its nodes, per algorithm (log-log), one panel per
    condition that varies.  CPU time, not wall time: on a shared machine the wall clock counts
    other processes' load; the table gives the mean microseconds of CPU per node."""
    import seaborn as sns

    require(df, "cpu_seconds", "nodes")
    ok = df[df["status"].isin(["ok", "unverified", "approx"]) & df["cpu_seconds"].notna()].copy()
    ok = ok[ok["cpu_seconds"].astype(float) >= MIN_TIMED]
    if len(ok) < 2:
        raise PlotError(
            f"needs searches of at least {MIN_TIMED * 1e6:.0f} us of CPU (shorter ones are timer "
            f"noise; time small trees with starbench bench)"
        )
    ok = _prepare(ok)
    ok["us_per_node"] = 1e6 * ok["cpu_seconds"].astype(float) / ok["nodes"].astype(float)
    # depth is on the nodes axis (the points of one panel span the depths), in the table a row
    facets = _facets(ok, ("levels",))
    depth = ["levels"] if "levels" in ok.columns and ok["levels"].nunique() > 1 else []
    by = [*facets, *depth, "label", *(["engine"] if "engine" in ok.columns else [])]
    s = _with_conditions(summarise(ok, by, value="us_per_node"), ok, "levels" if depth else None)
    panels = _panels(s, facets)
    fig, axes = _grid(len(panels), width, titles=[t for t, _ in panels])
    names = sorted(ok["algorithm"].astype(str).unique())  # one colour per algorithm, not per k
    for ax, (title, g) in zip(axes, panels, strict=True):
        raw = _raw(ok, g, facets)
        shown = pd.concat(
            h.sample(400, random_state=0) if len(h) > 400 else h
            for _, h in raw.groupby("algorithm", sort=True)
        )
        sns.scatterplot(
            data=shown.assign(
                algorithm=shown["algorithm"].astype(str),
                nodes=shown["nodes"].astype(float),
                cpu_seconds=shown["cpu_seconds"].astype(float),
            ),
            x="nodes",
            y="cpu_seconds",
            **_hue_style("algorithm", names),
            s=6,
            alpha=0.6,
            linewidth=0,
            legend=False,
            ax=ax,
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("nodes")
        ax.set_ylabel("CPU seconds")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        panel_title(ax, title)
    share_y(axes)
    _legend_entries(axes[0], names)
    _legend(fig, axes, band=f"one point per search of at least {MIN_TIMED * 1e6:.0f} us of CPU")
    return Drawn(fig, s, "CPU microseconds per node")


def decisions_by_depth(df: pd.DataFrame, width: float) -> Drawn:
    """Decision quality against an exact oracle (``starbench.oracles.decisions``): per panel,
    the percent of optimal decisions and the mean regret against the search depth, and the
    percent of optimal decisions against the mean nodes searched (one point per depth)."""
    import seaborn as sns

    df = _prepare(df)
    require(df, "decision_optimal", "regret", "levels", "nodes")
    d = scored_rows(df)
    if not len(d):
        raise PlotError("no row has decision-quality columns (an oracle scores pig and trees)")
    if d["levels"].nunique() < 2:
        raise PlotError(f"needs at least 2 depths, the data has {d['levels'].nunique()}")
    d["optimal_pct"] = 100.0 * d["decision_optimal"].astype(float)
    d["regret_f"] = d["regret"].astype(float)
    d["nodes_f"] = d["nodes"].astype(float)
    d, facets = _informative(d, "levels")
    by = [*facets, "label", "levels"]
    s = _with_conditions(summarise(d, by, value="optimal_pct"), d, "levels")
    r = summarise(d, by, value="regret_f").rename(
        columns={c: f"regret_{c}" for c in ("mean", "se", "ci_lo", "ci_hi")}
    )
    s = s.merge(r[[*by, "regret_mean", "regret_se", "regret_ci_lo", "regret_ci_hi"]], on=by)
    s = s.merge(d.groupby(by, dropna=False)["nodes_f"].mean().rename("mean_nodes").reset_index())
    panels = _panels(s, facets)
    fig, axes = _grid(3 * len(panels), width, cols=3, titles=[t for t, _ in panels for _ in "abc"])
    for i, (title, g) in enumerate(panels):
        a, b, c = axes[3 * i : 3 * i + 3]
        raw = _raw(d, g, facets)
        _lines(a, raw, "levels", "optimal_pct")
        a.set_ylabel("% optimal decisions")
        _lines(b, raw, "levels", "regret_f")
        b.set_ylabel("mean regret (oracle units)")
        labels = sorted(g["label"].astype(str).unique())
        sns.lineplot(  # one point per depth: the means, no band
            data=g.assign(label=g["label"].astype(str)),
            x="mean_nodes",
            y="mean",
            **_hue_style("label", labels),
            dashes=False,
            estimator=None,
            sort=True,
            legend=False,
            ax=c,
        )
        c.set_xscale("log")
        c.set_xlabel("mean nodes searched")
        c.set_ylabel("% optimal decisions")
        for ax in (a, b):
            ax.set_xlabel("depth (decision plies)")
            ax.set_xticks(sorted(g["levels"].unique()))
        panel_title(b, title)  # one title per row of panels, centred
        b.set_ylim(bottom=0)
    share_y(axes[0::3])
    share_y(axes[1::3])
    share_y(axes[2::3])
    _legend(fig, axes)
    return Drawn(fig, s, "percent of optimal decisions")


MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]


def _per_label(labels: list[str], palette: str) -> dict[str, Any]:
    """seaborn's keyword arguments for one colour and one marker per label (variants of one
    algorithm, such as its sample sizes, would share the style registry's colour)."""
    import seaborn as sns

    return {
        "hue": "label",
        "hue_order": labels,
        "style": "label",
        "style_order": labels,
        "palette": dict(zip(labels, sns.color_palette(palette, len(labels)), strict=True)),
        "markers": dict(zip(labels, MARKERS * 3, strict=False)),
        "legend": False,
    }


def _per_label_legend(fig: plt.Figure, axes: list[plt.Axes], kw: dict[str, Any], line: str) -> None:
    """The figure's legend of ``_per_label``'s styles (``line``: the entries' line style)."""
    for lab in kw["hue_order"]:
        axes[0].plot(
            [], [], color=kw["palette"][lab], marker=kw["markers"][lab], linestyle=line, label=lab
        )
    _legend(fig, axes, band=False)


def regret_vs_nodes(df: pd.DataFrame, width: float) -> Drawn:
    """The trade of inexact search against an exact oracle: per panel, each algorithm's mean
    regret against its mean nodes searched, one point per depth (exact and inexact rows
    alike; the lower left is better)."""
    import seaborn as sns

    df = _prepare(df)
    require(df, "decision_optimal", "regret", "levels", "nodes")
    d = scored_rows(df)
    if not len(d) or d["label"].nunique() < 2:
        raise PlotError("needs decision-quality rows of at least two algorithms")
    d = d.assign(regret_f=d["regret"].astype(float), nodes_f=d["nodes"].astype(float))
    facets = _facets(d, ("levels",))
    by = [*facets, "label", "levels"]
    s = _with_conditions(summarise(d, by, value="regret_f"), d, "levels")
    s = s.merge(d.groupby(by, dropna=False)["nodes_f"].mean().rename("mean_nodes").reset_index())
    panels = _panels(s, facets)
    fig, axes = _grid(len(panels), width, titles=[t for t, _ in panels])
    kw = _per_label(sorted(s["label"].astype(str).unique()), "tab10")
    for ax, (title, g) in zip(axes, panels, strict=True):
        sns.lineplot(
            data=g.assign(label=g["label"].astype(str)),
            x="mean_nodes",
            y="mean",
            dashes=False,
            estimator=None,
            sort=True,
            ax=ax,
            **kw,
        )
        ax.set_xscale("log")
        ax.set_xlabel("mean nodes searched (one point per depth)")
        ax.set_ylabel("mean regret (oracle units)")
        ax.set_ylim(bottom=0)
        panel_title(ax, title)
    share_y(axes)
    _per_label_legend(fig, axes, kw, "-")
    return Drawn(fig, s, "mean regret")


def error_vs_nodes(df: pd.DataFrame, width: float) -> Drawn:
    """What inexact search trades on random trees (expectimax is the oracle): per panel, each
    algorithm's mean |value error| (left) and percent of moves among expectimax's best (right)
    against its mean nodes searched, one point per algorithm and parameter; exact rows sit at
    error 0 (the lower left, and the upper left, is better)."""
    import seaborn as sns

    df = _prepare(df)
    require(df, "value_error", "decision_optimal", "nodes", "levels")
    d = scored_rows(df)
    if not (d["status"] == "approx").any():
        raise PlotError("no inexact (approx) rows: nothing is traded")
    if "game" in d.columns and d["game"].notna().any():
        raise PlotError("value errors are against a random tree's expectimax (games: regret)")
    d["abs_error"] = abs_error(d)
    d["same_move_pct"] = 100.0 * d["decision_optimal"].astype(float)
    facets = _facets(d, ())
    by = [*facets, "label"]
    s = _with_conditions(summarise(d, by, value="abs_error"), d)
    same = d.groupby(by, dropna=False)["same_move_pct"].mean().rename("same_move_pct")
    s = s.merge(same.reset_index(), on=by)
    s = s.merge(d.groupby(by, dropna=False)["nodes"].mean().rename("mean_nodes").reset_index())
    panels = _panels(s, facets)
    fig, axes = _grid(2 * len(panels), width, cols=2, titles=[t for t, _ in panels for _ in "ab"])
    kw = _per_label(sorted(s["label"].astype(str).unique()), "tab20")
    positive = s.loc[s["mean"] > 0, "mean"]
    threshold = float(positive.min()) if len(positive) else 1.0
    for i, (title, g) in enumerate(panels):
        a, b = axes[2 * i : 2 * i + 2]
        g = g.assign(label=g["label"].astype(str))
        for ax, y, ylabel in (
            (a, "mean", "mean |value error|"),
            (b, "same_move_pct", "% best moves (expectimax's)"),
        ):
            sns.scatterplot(data=g, x="mean_nodes", y=y, ax=ax, **kw)
            ax.set_xscale("log")
            ax.set_xlabel("mean nodes searched")
            ax.set_ylabel(ylabel)
        # symlog, one scale for every panel: the exact rows' 0 beside errors spanning decades
        a.set_yscale("symlog", linthresh=threshold)
        a.set_ylim(bottom=0)
        panel_title(a, title)
    share_y(axes[0::2])
    share_y(axes[1::2])
    _per_label_legend(fig, axes, kw, "")
    return Drawn(fig, s, "mean |value error|")


FIGURES: dict[str, Callable[[pd.DataFrame, float], Drawn]] = {
    "leaves_by_branching": leaves_by_branching,
    "nodes_by_depth": nodes_by_depth,
    "leaves_by_k": leaves_by_k,
    "ordering_effect": ordering_effect,
    "distribution_effect": distribution_effect,
    "seconds_vs_nodes": seconds_vs_nodes,
    "decisions_by_depth": decisions_by_depth,
    "regret_vs_nodes": regret_vs_nodes,
    "error_vs_nodes": error_vs_nodes,
    "leaves_by_algorithm": leaves_by_algorithm,
}
