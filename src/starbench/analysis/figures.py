"""The figures: each a function of a results table that draws one figure kind at a given width
and returns the summarised numbers it shows (written beside it as Markdown, LaTeX and CSV).

A figure that the data cannot support raises ``PlotError`` with the reason; ``plot`` skips it
with one line and writes the others.  A figure's conditions are the tree parameters that vary
in the data besides its own x axis; ``starbench.analysis.layout`` places them along the rows and
columns of a grid (one figure per value of a third and further condition), so one function
serves every study's design.  Every label has one colour, marker and line style across the
study (``style.STUDY``); the algorithms are named on the axis wherever they are its categories.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import EngFormatter, LogLocator, NullFormatter

from starbench.analysis.data import (
    PlotError,
    bootstrap_band,
    percent_by_level,
    percent_leaves,
    require,
    summarise,
)
from starbench.analysis.decisions import abs_error, scored_rows
from starbench.analysis.layout import MOVES, Grid, design, grid, order_text, split
from starbench.analysis.style import DASHES, styles
from starbench.record import columns

#: A single-column ``nodes_by_depth`` with more rows than this draws the nodes only (the
#: effective branching factor stays in its table and in the double-column figure).
EBF_PANELS = 3
#: A categorical figure whose algorithms come in more values of k than this draws k on the x
#: axis instead (one hue per variant, the category as panels), never a legend entry per k.
MAX_K_HUES = 3
#: Searches shorter than this, in tables stored before searches were repeated to be timed
#: (``timing_repeats`` empty), are timer noise: the timing figure leaves them out, and says so.
MIN_TIMED = 1e-4
#: What the shaded bands and error bars are (said on every figure that has them).
BAND = "bands and bars: 95% bootstrap CI of the mean over trees (n per point in the table)"
#: Display names of orderings (decision / outcome order) in the tables' ``order`` column.
ORDERS = {
    "generated/generated": "random (as generated)",
    "perfect/refuting": "optimal",
    "static/generated": "static (path sum)",
    "static-interior/generated": "static, interior levels",
    "static-middle/generated": "static, interior levels but the root",
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
#: Whether a figure kind draws its figures or only computes its table (``plot`` without images:
#: a kind's table never depends on its figure, and matplotlib is most of its cost).
DRAW: ContextVar[bool] = ContextVar("draw", default=True)


@dataclass(frozen=True)
class Drawn:
    """A figure kind drawn: its figures (file-name suffix, figure; one unless a third
    condition splits the design), the table of what they show and what its ``mean`` is."""

    figures: tuple[tuple[str, plt.Figure], ...]
    table: pd.DataFrame  # condition columns, label, x, mean, se, n, ci_lo, ci_hi
    value: str

    @property
    def figure(self) -> plt.Figure:
        """The first figure (the only one of an unsplit design)."""
        return self.figures[0][1]


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
            df.loc[game, "order"] = MOVES + df.loc[game, "move_order"].fillna("none")
    return df


def conditions(df: pd.DataFrame) -> list[str]:
    """The condition columns present in a (prepared) table, in the order they are listed: the
    declared columns with a condition rank (``record.columns.conditions``; ``order`` stands for
    ordering and outcome_order, ``conf/order``).  Every one that varies in the data is on the
    figure's axis, along its rows or columns, or makes figures of its own, or is pooled only
    when asked (``--pool``); a column empty in every row, such as ``game`` for random trees, is
    not a condition of it."""
    return [c for c in columns.conditions() if c in df.columns and df[c].notna().any()]


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
    """Keep the conditions in which ``x`` takes at least two values; return them and the
    facets that still vary."""
    facets = _facets(df, (x,))
    if facets:
        df = df[df.groupby(facets, sort=True)[x].transform("nunique") >= 2]
    if not len(df):
        raise PlotError(f"no condition in which {x!r} takes two values")
    return df, _facets(df, (x,))


# --------------------------------------------------------------------------- drawing a design
def _panel_rows(raw: pd.DataFrame, g: Grid, rv: Any, cv: Any) -> pd.DataFrame:
    """The rows of one panel: those with its row and column conditions' values."""
    d = g.design
    mask = pd.Series(True, index=raw.index)
    for factor, value in ((d.rows, rv), (d.cols, cv)):
        if factor is not None:
            for c, v in zip(factor, value, strict=True):
                mask &= raw[c].astype(str) == str(v)
    return raw[mask]


@dataclass(frozen=True)
class Look:
    """How ``draw_design`` draws a design: its ``measures`` (a panel row each, "" for one),
    axis labels (``xlabel``, ``ylabel``: one text, or one per measure), the ``legend``'s labels
    and its title (``band``), ``extra(ax)`` legend entries of its own, the ``value_axis`` its
    panels share, a panel's ``least_height``."""

    measures: tuple[str, ...] = ("",)
    xlabel: str | dict[str, str] = ""
    ylabel: str | dict[str, str] = ""
    legend: list[str] | None = None
    band: bool | str = True
    extra: Callable[[plt.Axes], None] | None = None
    value_axis: str = "y"
    least_height: float = 0.0


def draw_design(
    raw: pd.DataFrame,
    facets: list[str],
    width: float,
    panel: Callable[[plt.Axes, pd.DataFrame, str], None],
    look: Look = Look(),  # noqa: B008 - frozen
) -> tuple[tuple[str, plt.Figure], ...]:
    """Every figure of the design of ``raw``'s ``facets`` (``layout.design``): each panel drawn
    by ``panel(ax, its rows, measure)``, axis labels once for the grid (``xlabel`` and
    ``ylabel``: one text, or one per measure, on the grid's edges), the panels of a measure
    sharing the range of their ``value_axis`` (unless ``--free-y``; the other axis of a
    categorical figure is shared always), and one legend of the ``legend`` labels below (its
    title: ``band``).  ``extra(ax)`` adds legend entries of its own; ``least_height``: a panel's
    least height (a categorical axis's room): ``look``."""
    measures, xlabel, ylabel, legend = look.measures, look.xlabel, look.ylabel, look.legend
    band, extra, value_axis, least_height = (
        look.band,
        look.extra,
        look.value_axis,
        look.least_height,
    )
    share = SHARE_Y.get()
    d = design(raw, facets, width, measures)  # a design that cannot be laid out fails here too
    if not DRAW.get():
        return ()
    out = []
    for suffix, title, part, dd in split(raw, d):
        g = grid(dd, width, share and value_axis == "y", title, least_height)
        rows, cols = dd.shape
        m = 1 if dd.down else len(dd.measures)
        for (i, j), ax in sorted(g.axes.items()):
            rv, cv, measure = g.slot[(i, j)]
            here = _panel_rows(part, g, rv, cv)
            if not len(here):
                ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
                ax.set_xticks([])
                ax.set_yticks([])
            else:
                panel(ax, here, measure)
            # each measure's labels on the grid's edges, broken to the panel's size
            tall = g.figure.get_figheight() / rows
            bottom = i == rows - 1 or dd.down  # measures down: each row its own x
            ax.set_xlabel(_wrapped(_text(xlabel, measure), width / cols) if bottom else "")
            # one measure: the row's first panel names it; several: every panel its own
            ax.set_ylabel(_wrapped(_text(ylabel, measure), tall) if j < m or m > 1 else "")
            if value_axis == "y" and share and j >= m and m == 1:
                ax.tick_params(labelleft=False)
            if value_axis == "x" and j >= m:  # the categories are named once, on the left
                ax.tick_params(labelleft=False)
        if value_axis == "x":
            _share_x(list(g.axes.values()), share)
        first = g.axes[(0, 0)]
        for lab, st in styles(legend or []).items():
            first.plot([], [], color=st.color, marker=st.marker, linestyle=st.line, label=lab)
        if extra is not None:
            extra(first)
        _legend(g.figure, list(g.axes.values()), band)
        out.append((suffix, g.figure))
    return tuple(out)


def _text(text: str | dict[str, str], measure: str) -> str:
    return text.get(measure, "") if isinstance(text, dict) else text


def _wrapped(text: str, inches: float) -> str:
    """An axis label broken at its spaces to the width of its panel (about 13 characters an
    inch at the labels' size)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, max(12, int(inches * 13)))) if text else text


def _share_x(axes: list[plt.Axes], share: bool) -> None:
    """One x range for the panels of a horizontal figure (from 0), unless ``--free-y``."""
    if not share or len(axes) < 2:
        return
    hi = max(ax.get_xlim()[1] for ax in axes)
    for ax in axes[1:]:
        ax.sharex(axes[0])
    axes[0].set_xlim(0, hi)


def _legend(fig: plt.Figure, axes: list[plt.Axes], band: bool | str = True) -> None:
    """The figure's one legend, below the axes; its title says what the bands are (``band``
    True), or is the text ``band``, or none."""
    handles, labels = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    if not labels:
        return
    width, height = fig.get_size_inches()
    longest = max(len(lab) for lab in labels)
    # an entry: its handle (about 0.5 in) and its text (about 0.055 in a character)
    per_row = max(1, int((width - 0.2) / (0.5 + 0.055 * longest)))
    ncols = max(1, min(len(labels), 4 if width > 5 else 2, per_row))
    rows = -(-len(labels) // ncols)
    title = band if isinstance(band, str) else BAND if band else None
    if title and width < 5:
        title = _wrap(title, int(width * 13))
    lines = rows + (title.count("\n") + 1 if title else 0)
    fig.set_size_inches(width, height + 0.15 * lines + 0.1)  # room for it below the axes
    fig.legend(
        [handles[lab] for lab in labels],
        labels,
        loc="outside lower center",
        ncols=ncols,
        title=title,
        title_fontsize="small",
        frameon=False,
    )


def _wrap(text: str, chars: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, max(chars, 20)))


def _line_style(labels: list[str]) -> dict[str, Any]:
    """seaborn's ``lineplot`` arguments for each label's study-wide colour, marker and line."""
    st = styles(labels)
    return dict(
        hue="label",
        hue_order=labels,
        style="label",
        style_order=labels,
        palette={lab: s.color for lab, s in st.items()},
        markers={lab: s.marker for lab, s in st.items()},
        dashes={lab: DASHES[s.line] for lab, s in st.items()},
    )


def _lines(ax: plt.Axes, raw: pd.DataFrame, x: str, y: str, labels: list[str]) -> None:
    """One line per label through the mean of ``y`` at each ``x`` with its 95% bootstrap band
    (seaborn's ``lineplot`` on the per-tree rows)."""
    import seaborn as sns

    here = [lab for lab in labels if lab in set(raw["label"].astype(str))]
    sns.lineplot(
        data=raw.assign(label=raw["label"].astype(str), _y=raw[y].astype(float)),
        x=x,
        y="_y",
        **_line_style(here),
        errorbar=ERRORBAR.get(),
        err_kws={"alpha": 0.18, "linewidth": 0},
        legend=False,
        ax=ax,
    )


def _means(ax: plt.Axes, g: pd.DataFrame, x: str, y: str, labels: list[str]) -> None:
    """One line per label through given points (means already taken: no estimate, no band)."""
    import seaborn as sns

    here = [lab for lab in labels if lab in set(g["label"].astype(str))]
    sns.lineplot(
        data=g.assign(label=g["label"].astype(str)),
        x=x,
        y=y,
        **_line_style(here),
        estimator=None,
        sort=True,
        legend=False,
        ax=ax,
    )


def log_axis(ax: plt.Axes, which: str = "x", unit: str = "") -> None:
    """A log-scaled axis with few, compact labels (``1k``, ``20k``, ``3M``; with ``unit``
    ``2 ms``): one per decade over a wide range, 1-2-5 within a narrow one, never the minor
    ticks' (their labels collide in a narrow panel)."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    decades = np.log10(max(hi, 1e-300) / max(lo, 1e-300)) if lo > 0 else 10
    subs = (1.0,) if decades > 2.5 else (1.0, 2.0, 5.0) if decades > 0.6 else (1.0, 1.5, 2, 3, 5, 7)
    axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=5))
    axis.set_major_formatter(EngFormatter(unit=unit, sep=" " if unit else "", places=None))
    axis.set_minor_formatter(NullFormatter())


def _categories(ax: plt.Axes, categories: list[str]) -> None:
    """Category names on a categorical (y) axis: horizontal, one per row."""
    ax.set_yticks(range(len(categories)))
    ax.set_yticklabels(categories)
    ax.set_ylim(len(categories) - 0.5, -0.5)
    ax.yaxis._starbench_categorical = True  # noqa: SLF001 - never thinned (layout.declutter)


# --------------------------------------------------------------------------- figure kinds
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
    ref_labels = sorted(refs["label"].astype(str).unique()) if len(refs) else []
    raw = m.assign(label=m["label"].astype(str), pct_leaves=m["pct_leaves"].astype(float))

    def panel(ax: plt.Axes, here: pd.DataFrame, _measure: str) -> None:
        _lines(ax, here, x, "pct_leaves", labels)
        ticks = sorted(here[x].unique())
        if logx:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(v) for v in ticks])
        ax.set_ylim(bottom=0)
        if len(refs):
            mine = refs
            for f in facets:
                mine = mine[mine[f].astype(str) == str(here[f].iloc[0])]
            st = styles(ref_labels)
            for _, row in mine.iterrows():
                ax.axhline(row["mean"], color=st[str(row["label"])].color, linestyle="--", lw=1)

    def extra(ax: plt.Axes) -> None:
        for lab, st in styles(ref_labels).items():
            ax.plot([], [], color=st.color, linestyle="--", label=f"{lab} (no {x})")

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            xlabel=xlabel,
            ylabel="% of expectimax's leaves",
            legend=labels,
            extra=extra,
        ),
    )
    if len(refs):
        s = pd.concat([s, refs[s.columns.intersection(refs.columns)]], ignore_index=True)
    return Drawn(figures, s, "percent of expectimax's leaves")


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


def _points(
    ax: plt.Axes, here: pd.DataFrame, y: str, categories: list[str], labels: list[str]
) -> None:
    """The mean percent of expectimax's leaves of each label (a point with its 95% bootstrap
    interval) in each category of ``y``, the categories down the axis, named horizontally."""
    import seaborn as sns

    present = [lab for lab in labels if lab in set(here["label"].astype(str))]
    st = styles(present)
    sns.pointplot(
        data=here.assign(**{y: here[y].astype(str), "label": here["label"].astype(str)}),
        x="pct_leaves",
        y=y,
        order=categories,
        hue="label",
        hue_order=present,
        palette={lab: s.color for lab, s in st.items()},
        markers=[st[lab].marker for lab in present],
        linestyles="none",
        dodge=0.8 - 0.8 / max(len(present), 1) if y != "label" else False,
        errorbar=ERRORBAR.get(),
        err_kws={"linewidth": 1},
        capsize=0.1,
        markersize=4,
        orient="h",
        legend=False,
        ax=ax,
    )
    _categories(ax, categories)
    ax.set_xlim(left=0)


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
    shown = m[x].map(order_text) if x == "order" else m[x]
    cats = sorted(shown.astype(str).unique())
    labels = sorted(m["label"].astype(str).unique())
    raw = m.assign(
        **{x: shown.astype(str)},
        label=m["label"].astype(str),
        pct_leaves=m["pct_leaves"].astype(float),
    )

    def panel(ax: plt.Axes, here: pd.DataFrame, _measure: str) -> None:
        _points(ax, here, x, cats, labels)

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            xlabel="% of expectimax's leaves",
            ylabel=xlabel,
            legend=labels,
            value_axis="x",
            least_height=0.35 + 0.09 * len(cats) * len(labels),
        ),
    )
    return Drawn(figures, s, "percent of expectimax's leaves")


def leaves_by_algorithm(df: pd.DataFrame, width: float) -> Drawn:
    """Every listed algorithm's percent of expectimax's leaves (the mean with its 95% bootstrap
    interval), one panel per condition that varies: the figure every run and sweep gets,
    whatever its design.  The algorithms are named down the axis; expectimax is the dashed line
    at 100."""
    df = _prepare(df)
    m = percent_leaves(df)
    if not len(m):
        raise PlotError("needs expectimax and another algorithm on the same trees")
    facets = _facets(m, ())
    s = _with_conditions(summarise(m, [*facets, "label"]), m)
    labels = sorted(m["label"].astype(str).unique())
    raw = m.assign(label=m["label"].astype(str), pct_leaves=m["pct_leaves"].astype(float))
    ex = styles(["expectimax"])["expectimax"]

    def panel(ax: plt.Axes, here: pd.DataFrame, _measure: str) -> None:
        _points(ax, here, "label", labels, labels)
        ax.axvline(100, color=ex.color, linestyle="--", linewidth=0.8)
        ax.set_xlim(0, max(ax.get_xlim()[1], 105))

    def extra(ax: plt.Axes) -> None:
        ax.plot([], [], color=ex.color, linestyle="--", label="expectimax (100)")

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            xlabel="% of expectimax's leaves",
            ylabel="",
            legend=[],
            extra=extra,
            value_axis="x",
            least_height=0.35 + 0.17 * len(labels),
        ),
    )
    return Drawn(figures, s, "percent of expectimax's leaves")


def ordering_effect(df: pd.DataFrame, width: float) -> Drawn:
    """Percent of expectimax's leaves by move ordering (decision / outcome order)."""
    return _categorical(df, width, "order", "move ordering")


def distribution_effect(df: pd.DataFrame, width: float) -> Drawn:
    """Percent of expectimax's leaves by outcome probability distribution."""
    return _categorical(df, width, "distribution", "outcome distribution")


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
    labels = sorted(ok["label"].astype(str).unique())
    rows = max((ok[f].nunique() for f in facets), default=1)
    measures = ("nodes",) if width < 5 and rows > EBF_PANELS else ("nodes", "ebf")
    raw = ok.assign(label=ok["label"].astype(str))
    by = [*facets, "label", "levels"]

    def panel(ax: plt.Axes, here: pd.DataFrame, measure: str) -> None:
        if measure == "nodes":
            _lines(ax, here, "levels", "nodes_f", labels)
            log_axis(ax, "y")
        else:  # the effective branching factor of each mean: no estimate, no band
            means = here.groupby(by, dropna=False)["nodes_f"].mean().reset_index()
            means["ebf"] = means["nodes_f"] ** (1.0 / means["levels"].astype(float))
            _means(ax, means, "levels", "ebf", labels)
        ax.set_xticks(sorted(here["levels"].unique()))

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            measures=measures,
            xlabel="depth (levels)",
            ylabel={"nodes": "nodes (mean)", "ebf": "eff. branching factor"},
            legend=labels,
        ),
    )
    return Drawn(figures, s, "nodes")


def nodes_by_level(df: pd.DataFrame, width: float) -> Drawn:
    """Where a search's work goes: per algorithm, its nodes (top row) and leaves (bottom row) at
    each level as a percent of expectimax's at that level on the same tree (the mean over trees
    with its 95% bootstrap band), one panel per condition that varies (a tree's depth among
    them).  Leaves are drawn at the levels where expectimax has leaves (a regular tree's last).
    Drawn from the counters per level (``nodes_by_level``, ``leaves_by_level``): tables stored
    before them are skipped with a line."""
    df = _prepare(df)
    if "nodes_by_level" not in df.columns or df["nodes_by_level"].isna().all():
        raise PlotError(
            "the tables have no counters per level (nodes_by_level, a run option): rerun the "
            "same starbench run command (a sweep: the same -m command) with levels_detail=true "
            "added; the stored rows are searched again to record them"
        )
    m = percent_by_level(df)
    if not len(m):
        raise PlotError("no row has counters per level beside expectimax's on the same tree")
    facets = _facets(m, ("level",))
    parts = []
    for measure in ("nodes", "leaves"):
        col = f"pct_{measure}"
        here = m[m[col].notna()]
        if len(here):
            t = summarise(here, [*facets, "label", "level"], value=col)
            parts.append(t.assign(measure=measure))
    s = _with_conditions(pd.concat(parts, ignore_index=True), m, "level")
    labels = sorted(m["label"].astype(str).unique())
    raw = m.assign(label=m["label"].astype(str))
    # leaves drawn where they lie at two levels or more (a game's horizon and terminals); on
    # a regular tree they are the last level's nodes, already drawn (the table has them)
    leafy = m[m["pct_leaves"].notna()]
    spread = len(leafy) > 0 and bool(
        (leafy.groupby(facets, dropna=False)["level"].nunique() >= 2).any()
        if facets
        else leafy["level"].nunique() >= 2
    )
    measures = ("nodes", "leaves") if spread else ("nodes",)

    def panel(ax: plt.Axes, here: pd.DataFrame, measure: str) -> None:
        col = f"pct_{measure or 'nodes'}"
        mine = here[here[col].notna()]
        _lines(ax, mine, "level", col, labels)
        ax.set_xticks(sorted(here["level"].unique()))
        ax.set_ylim(bottom=0)

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            measures=measures,
            xlabel="level (root 0, chance levels counted)",
            ylabel={"nodes": "% of expectimax's nodes", "leaves": "% of expectimax's leaves"}
            if spread
            else "% of expectimax's nodes",
            legend=labels,
        ),
    )
    return Drawn(figures, s, "percent of expectimax's nodes (measure nodes) or leaves at a level")


def seconds_vs_nodes(df: pd.DataFrame, width: float) -> Drawn:
    """CPU seconds of a search against its nodes, per algorithm (log-log), one panel per
    condition that varies.  CPU time, not wall time: on a shared machine the wall clock counts
    other processes' load; the table gives the mean microseconds of CPU per node.  Every search
    is timed (a short one over repeats: ``timing_repeats``); in a table stored before that, a
    search under ``MIN_TIMED`` is timer noise, left out and counted in the figure's note."""
    import seaborn as sns

    require(df, "cpu_seconds", "nodes")
    ok = df[df["status"].isin(["ok", "unverified", "approx"]) & df["cpu_seconds"].notna()].copy()
    repeats = ok.get("timing_repeats", pd.Series(pd.NA, ok.index))
    once = repeats.isna() | (repeats.fillna(1) == 1)  # timed once: old tables, timing=once
    untimed = once & (ok["cpu_seconds"].astype(float) < MIN_TIMED)
    dropped = int(untimed.sum())
    ok = ok[~untimed]
    if len(ok) < 2:
        raise PlotError(
            f"no search was timed ({dropped} of this table's searches are under "
            f"{MIN_TIMED * 1e6:.0f} us of CPU, measured once (timing=once, or a table stored "
            f"before searches were repeated to be timed): recompute the cell with timing=repeat, "
            f"or time small trees with starbench bench)"
        )
    ok = _prepare(ok)
    ok["us_per_node"] = 1e6 * ok["cpu_seconds"].astype(float) / ok["nodes"].astype(float)
    # depth is on the nodes axis (the points of one panel span the depths), in the table a row;
    # the engine is a condition of a time (never of a count): two engines are two panels
    facets = _facets(ok, ("levels",))
    if "engine" in ok.columns and ok["engine"].nunique() > 1:
        facets.append("engine")
    depth = ["levels"] if "levels" in ok.columns and ok["levels"].nunique() > 1 else []
    by = [*(f for f in facets if f != "engine"), *depth, "label"]
    by += ["engine"] if "engine" in ok.columns else []
    s = _with_conditions(summarise(ok, by, value="us_per_node"), ok, "levels" if depth else None)
    labels = sorted(ok["label"].astype(str).unique())
    raw = ok.assign(
        label=ok["label"].astype(str),
        nodes=ok["nodes"].astype(float),
        cpu_seconds=ok["cpu_seconds"].astype(float),
    )

    def panel(ax: plt.Axes, here: pd.DataFrame, _measure: str) -> None:
        shown = pd.concat(
            h.sample(SHOWN, random_state=0) if len(h) > SHOWN else h
            for _, h in here.groupby("label", sort=True)
        )
        # n: the searches drawn in this panel (a sample of the panel's searches where it holds
        # more than SHOWN of an algorithm: said, with how many it holds)
        count = f"n = {len(shown)}" + (f" of {len(here)}" if len(shown) < len(here) else "")
        # bottom right: time grows with nodes, so the points leave that corner empty
        ax.text(0.97, 0.03, count, transform=ax.transAxes, ha="right", va="bottom", fontsize=6)
        present = [lab for lab in labels if lab in set(shown["label"])]
        st = styles(present)
        sns.scatterplot(
            data=shown,
            x="nodes",
            y="cpu_seconds",
            hue="label",
            hue_order=present,
            style="label",
            style_order=present,
            palette={lab: v.color for lab, v in st.items()},
            markers={lab: v.marker for lab, v in st.items()},
            s=8,
            alpha=0.6,
            linewidth=0,
            legend=False,
            ax=ax,
        )
        log_axis(ax, "x")
        log_axis(ax, "y", unit="s")

    note = (
        f"one point per search, n: the points of the panel (of the panel's searches, where more "
        f"than {SHOWN} of an algorithm are sampled)"
    )
    if dropped:
        note += f"; {dropped} searches of under {MIN_TIMED * 1e6:.0f} us, timed once, not used"
    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            xlabel="nodes",
            ylabel="CPU time",
            legend=labels,
            band=note,
        ),
    )
    return Drawn(figures, s, "CPU microseconds per node")


#: The most points of one algorithm a ``seconds_vs_nodes`` panel draws (a seeded sample).
SHOWN = 400


def decisions_by_depth(df: pd.DataFrame, width: float) -> Drawn:
    """Decision quality against an exact oracle (``starbench.oracles.decisions``): per
    condition, the percent of optimal decisions and the mean regret against the search depth,
    and the percent of optimal decisions against the mean nodes searched (one point per depth).
    Drawn only where some row's decision was not optimal (else every point would be 100 %)."""
    df = _prepare(df)
    require(df, "decision_optimal", "regret", "levels", "nodes")
    d = scored_rows(df)
    if not len(d):
        raise PlotError("no row has decision-quality columns (an oracle scores pig and trees)")
    if d["levels"].nunique() < 2:
        raise PlotError(f"needs at least 2 depths, the data has {d['levels'].nunique()}")
    if d["decision_optimal"].all() and (d["regret"].astype(float) == 0).all():
        raise PlotError("every scored decision is optimal (regret 0): nothing varies to show")
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
    labels = sorted(d["label"].astype(str).unique())
    raw = d.assign(label=d["label"].astype(str))

    def panel(ax: plt.Axes, here: pd.DataFrame, measure: str) -> None:
        if measure == "optimal":
            _lines(ax, here, "levels", "optimal_pct", labels)
        elif measure == "regret":
            _lines(ax, here, "levels", "regret_f", labels)
            ax.set_ylim(bottom=0)
        else:  # one point per depth: the means, no band
            means = here.groupby(by, dropna=False)[["optimal_pct", "nodes_f"]].mean().reset_index()
            _means(ax, means, "nodes_f", "optimal_pct", labels)
            log_axis(ax, "x")
        if measure != "nodes":
            ax.set_xticks(sorted(here["levels"].unique()))

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            measures=("optimal", "regret", "nodes"),
            xlabel={
                "optimal": "depth (decision plies)",
                "regret": "depth (decision plies)",
                "nodes": "mean nodes searched",
            },
            ylabel={
                "optimal": "% optimal decisions",
                "regret": "mean regret (oracle units)",
                "nodes": "% optimal decisions",
            },
            legend=labels,
        ),
    )
    return Drawn(figures, s, "percent of optimal decisions")


def _varies(values: pd.Series) -> bool:
    v = values.astype(float)
    return bool(v.notna().any()) and v.max() > v.min()


def regret_vs_nodes(df: pd.DataFrame, width: float) -> Drawn:
    """The trade of inexact search against an exact oracle: per condition, each algorithm's
    mean regret against its mean nodes searched, one point per depth (the lower left is
    better).  Drawn only where some row is inexact or scored by an oracle and the regrets vary
    (an exact-only study's regrets are all 0)."""
    df = _prepare(df)
    require(df, "decision_optimal", "regret", "levels", "nodes")
    d = scored_rows(df)
    if not len(d) or d["label"].nunique() < 2:
        raise PlotError("needs decision-quality rows of at least two algorithms")
    if not _varies(d["regret"]):
        raise PlotError(
            "every scored row's regret is the same (every algorithm exact): nothing to show"
        )
    d = d.assign(regret_f=d["regret"].astype(float), nodes_f=d["nodes"].astype(float))
    facets = _facets(d, ("levels",))
    by = [*facets, "label", "levels"]
    s = _with_conditions(summarise(d, by, value="regret_f"), d, "levels")
    s = s.merge(d.groupby(by, dropna=False)["nodes_f"].mean().rename("mean_nodes").reset_index())
    labels = sorted(d["label"].astype(str).unique())
    raw = d.assign(label=d["label"].astype(str))

    def panel(ax: plt.Axes, here: pd.DataFrame, _measure: str) -> None:
        means = here.groupby(by, dropna=False)[["regret_f", "nodes_f"]].mean().reset_index()
        _means(ax, means, "nodes_f", "regret_f", labels)
        log_axis(ax, "x")
        ax.set_ylim(bottom=0)

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            xlabel="mean nodes searched (a point per depth)",
            ylabel="mean regret (oracle units)",
            legend=labels,
            band=False,
        ),
    )
    return Drawn(figures, s, "mean regret")


def error_vs_nodes(df: pd.DataFrame, width: float) -> Drawn:
    """What inexact search trades on random trees (expectimax is the oracle): per condition,
    each algorithm's mean |value error| (left) and percent of moves among expectimax's best
    (right) against its mean nodes searched, one point per algorithm and parameter; exact rows
    sit at error 0 (the lower left, and the upper left, is better)."""
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
    labels = sorted(d["label"].astype(str).unique())
    raw = d.assign(label=d["label"].astype(str))
    positive = s.loc[s["mean"] > 0, "mean"]
    threshold = float(positive.min()) if len(positive) else 1.0

    def panel(ax: plt.Axes, here: pd.DataFrame, measure: str) -> None:
        g = here.groupby(by, dropna=False)[["abs_error", "same_move_pct", "nodes"]].mean()
        g = g.reset_index()
        present = [lab for lab in labels if lab in set(g["label"])]
        st = styles(present)
        y = "abs_error" if measure == "error" else "same_move_pct"
        sns.scatterplot(
            data=g,
            x="nodes",
            y=y,
            hue="label",
            hue_order=present,
            style="label",
            style_order=present,
            palette={lab: v.color for lab, v in st.items()},
            markers={lab: v.marker for lab, v in st.items()},
            legend=False,
            ax=ax,
        )
        log_axis(ax, "x")
        if measure == "error":  # symlog: the exact rows' 0 beside errors spanning decades
            ax.set_yscale("symlog", linthresh=threshold)
            ax.set_ylim(bottom=0)

    figures = draw_design(
        raw,
        facets,
        width,
        panel,
        Look(
            measures=("error", "moves"),
            xlabel="mean nodes searched",
            ylabel={"error": "mean |value error|", "moves": "% best moves (expectimax's)"},
            legend=labels,
            band=False,
        ),
    )
    return Drawn(figures, s, "mean |value error|")


FIGURES: dict[str, Callable[[pd.DataFrame, float], Drawn]] = {
    "leaves_by_branching": leaves_by_branching,
    "nodes_by_depth": nodes_by_depth,
    "nodes_by_level": nodes_by_level,
    "leaves_by_k": leaves_by_k,
    "ordering_effect": ordering_effect,
    "distribution_effect": distribution_effect,
    "seconds_vs_nodes": seconds_vs_nodes,
    "decisions_by_depth": decisions_by_depth,
    "regret_vs_nodes": regret_vs_nodes,
    "error_vs_nodes": error_vs_nodes,
    "leaves_by_algorithm": leaves_by_algorithm,
}
