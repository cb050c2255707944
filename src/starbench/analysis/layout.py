"""A figure's grid, laid out by the study's design: conditions along rows and columns.

The conditions of a figure are the tree parameters that vary in its data and are not on its own
x axis (``figures.conditions``).  ``design`` places them:

* none: one panel;
* one: a single row, one panel per value (a single column where a row would not fit);
* two: one condition along the rows and the other along the columns (the one with more values
  along the columns, unless a single-width figure would then be too narrow), every slot filled;
* three or more: the two with the most values along the rows and columns, and one figure per
  value of the rest (``Design.splits``: named in the file name and the figure's title), unless
  the user pools them (``starbench plot --pool``).

A figure that shows several measures per condition (nodes and the effective branching factor,
say) has the measures along the columns (a second condition's values each spanning them) and
one condition along the rows; in a single-column
figure, where a row of three measures would not fit, the measures go down the rows and the
condition (of at most two values) along the columns.  Headers name the
condition by its config key and its value as the user wrote it (``value_text``), once, on one
line (a factor of several conditions that vary together: a line each): the column's above the
top row, the row's at the right of the last column, read downwards.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from starbench.analysis.data import PlotError
from starbench.analysis.style import HEIGHT_RATIO
from starbench.games.spec import GAME_KEYS
from starbench.trees.regular import RegularTreeSpec

#: The tallest figure, in inches, legend included: a page of a two-column paper has about 9 in
#: of text height.  Taller grids shrink their panels' height.
MAX_HEIGHT = 9.0
#: Room kept under the grid for the legend, in inches (the legend itself adds what it needs).
LEGEND_ROOM = 1.2
#: The most panels one figure holds (rows x columns); more: pool a condition, or plot fewer.
MAX_PANELS = 24
#: The most panels a double-column figure of several measures puts across (measures times a
#: condition's values); more, and the measures go down the rows.
ACROSS = 4
#: The most columns a single-column (3.5 in) figure holds before its grid is turned.
SINGLE_COLUMNS = 2
#: Conditions no single key sets (they keep their own names): ``levels`` (from ``tree.depth``
#: and ``tree.trailing_chance``) and ``order`` (``tree.ordering`` with ``tree.outcome_order``).
DERIVED = ("levels", "order")
#: The condition columns that are keys of the ``tree`` group (the rest, ``seed`` and
#: ``exact``, are run keys; ``DERIVED`` ones no key).
TREE_KEYS = frozenset(f.name for f in fields(RegularTreeSpec)) | frozenset(GAME_KEYS) | {"depth"}
#: The orders ``conf/order`` names (``order=random``, ``order=optimal``).
ORDER_GROUP = ("random", "optimal")
#: How a game's move order starts in the ``order`` column (``figures._prepare``).
MOVES = "moves: "
#: The ``order`` column's values as the user writes them (``conf/order``'s names, else the
#: ordering, with the outcome order where it is not the generated one): headers and tables.
ORDER_TEXT = {
    "random (as generated)": "random",
    "optimal": "optimal",
    "static (path sum)": "static",
    "static, interior levels": "static-interior",
    "static, interior levels but the root": "static-middle",
}


def key_name(condition: str) -> str:
    """The key a user types for a condition column: ``tree.noise_sd`` (``TREE_KEYS``),
    ``seed``; any other column (a derived condition, ``levels``, ``order``) its own name."""
    return f"tree.{condition}" if condition in TREE_KEYS else condition


def typed(condition: str, value: Any, group: bool = True) -> str:
    """A condition's value as the override a user types: ``tree.noise_sd=0.5``, ``seed=0``,
    ``order=optimal``, ``tree.ordering=noisy`` (``order_typed``); a derived condition that no
    key sets as its name and value (``levels 5``).  ``group=False`` leaves out the ``tree.``
    of the tree group's keys (a figure's headers, where every character is room)."""
    if condition == "order":
        text = order_typed(value)
    elif condition in DERIVED:
        return f"{condition} {value_text(value)}"
    elif not group:  # read, not typed: no quotes either
        return f"{condition}={value_text(value)}"
    else:
        text = f"{key_name(condition)}={quoted(value_text(value))}"
    return text if group else re.sub(r"(^| )tree\.", r"\1", text)


def quoted(text: str) -> str:
    """A value as the command line takes it: quoted where Hydra's override grammar would read
    it otherwise (``'max,chance'``, ``'pig(winscore=20)'``)."""
    return f"'{text}'" if any(ch in text for ch in ",()[]{}=' ") else text


def order_typed(value: Any) -> str:
    """An ``order`` value as the overrides that ask for it: ``order=random`` and
    ``order=optimal`` (``conf/order``), ``tree.ordering=static``, ``tree.ordering=noisy``,
    ``tree.ordering=perfect tree.outcome_order=supporting``, a game's
    ``tree.move_order=equity``; a pooled order as its text."""
    if not isinstance(value, str):
        return value_text(value)
    text = ORDER_TEXT.get(value)
    if text in ORDER_GROUP:
        return f"order={text}"
    if text is not None:
        return f"tree.ordering={text}"
    if value.startswith(MOVES):
        return f"tree.move_order={value.removeprefix(MOVES)}"
    ordering, slash, outcome = value.partition("/")
    if not slash:
        return value
    parts = []
    if ordering != "generated" or outcome == "generated":
        parts.append(f"tree.ordering={ordering}")
    if outcome != "generated":
        parts.append(f"tree.outcome_order={outcome}")
    return " ".join(parts)


def value_text(value: Any) -> str:
    """A condition's value as the user wrote it: integral floats as integers (``300000``, not
    ``300000.0``), booleans as ``true``/``false``, fractions as their text (``1/2``)."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return "-"
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, float | np.floating):
        f = float(value)
        if f.is_integer() and abs(f) < 1e15:
            return str(int(f))
        return f"{f:.10g}"
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def order_text(value: Any) -> Any:
    """An ``order`` value as the user writes it (``ORDER_TEXT``; a raw ``ordering/outcome``
    pair as ``ordering`` where the outcome order is the generated one)."""
    if not isinstance(value, str):
        return value
    if value in ORDER_TEXT:
        return ORDER_TEXT[value]
    ordering, slash, outcome = value.partition("/")
    return ordering if slash and outcome == "generated" else value


def header(condition: str, value: Any) -> str:
    """``distribution=geometric``: a condition as a figure's header (``typed`` without the
    ``tree.`` of the tree group's keys), one line."""
    text = typed(condition, value, group=False)
    if len(text) > LONG_HEADER and "=" in text and " " not in text:  # two lines, at the "="
        key, _, value_part = text.partition("=")
        return f"{key}=\n{value_part}"
    return text


Factor = tuple[str, ...]


@dataclass(frozen=True)
class Design:
    """Where a figure's conditions go: ``rows`` and ``cols`` (a factor each, or None: one
    condition, or several that vary together), their values in order (a tuple per value, one
    entry per condition), the factors that make one figure per value (``splits``) and the
    measures along the columns of a figure that shows several (``measures``)."""

    rows: Factor | None = None
    cols: Factor | None = None
    row_values: tuple[Any, ...] = (None,)
    col_values: tuple[Any, ...] = (None,)
    splits: tuple[Factor, ...] = ()
    measures: tuple[str, ...] = ("",)
    #: the measures go down the rows (a single-column figure), not along the columns
    down: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the grid."""
        if self.down:
            return len(self.measures) * len(self.row_values), len(self.col_values)
        return len(self.row_values), len(self.col_values) * len(self.measures)

    def slots(self) -> Iterator[tuple[int, int, Any, Any, str]]:
        """(row, column, row value, column value, measure) of every panel."""
        if self.down:  # each row value's measures in consecutive rows
            m = len(self.measures)
            for i, rv in enumerate(self.row_values):
                for k, measure in enumerate(self.measures):
                    for j, cv in enumerate(self.col_values):
                        yield i * m + k, j, rv, cv, measure
            return
        m = len(self.measures)
        for i, rv in enumerate(self.row_values):
            for j, cv in enumerate(self.col_values):
                for k, measure in enumerate(self.measures):
                    yield i, j * m + k, rv, cv, measure


def factor_header(factor: Factor, value: tuple[Any, ...]) -> str:
    """A factor's value as a header: each condition's config name and value, a line each."""
    return "\n".join(header(c, v) for c, v in zip(factor, value, strict=True))


def _sort_key(v: Any) -> tuple[int, Any]:
    """Numbers by value, then text (a column may hold both)."""
    try:
        return (0, float(v))
    except (TypeError, ValueError):
        return (1, str(v))


def _levels(df: pd.DataFrame, factor: Factor) -> tuple[tuple[Any, ...], ...]:
    """The values a factor takes in ``df`` (combinations present), in order."""
    combos = df[list(factor)].drop_duplicates().itertuples(index=False, name=None)
    return tuple(sorted(combos, key=lambda t: tuple(_sort_key(v) for v in t)))


def factors(df: pd.DataFrame, facets: list[str]) -> list[Factor]:
    """The design's factors: conditions that vary together (each determines the other, as a
    tree shape's branching and chance arity can) are one factor, and two factors whose values
    are not crossed in the data (not every combination present) are merged into one whose
    values are the combinations present, so that every grid is full."""

    def count(f: Factor) -> int:
        return len(df[list(f)].drop_duplicates())

    out: list[Factor] = []
    for c in facets:  # the same partition of the rows: one factor
        same = next((f for f in out if count((*f, c)) == count(f) == count((c,))), None)
        if same is None:
            out.append((c,))
        else:
            out[out.index(same)] = (*same, c)
    merged = True
    while merged and len(out) > 1:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if count((*a, *b)) < count(a) * count(b):  # not crossed: one factor
                    out[i] = (*a, *b)
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def design(
    df: pd.DataFrame, facets: list[str], width: float, measures: tuple[str, ...] = ("",)
) -> Design:
    """The grid of a figure whose panels' conditions are ``facets`` (see the module)."""
    found = factors(df, facets)
    values = {f: _levels(df, f) for f in found}
    # the factors with most values first; ties in the order the figure lists them
    ranked = sorted(found, key=lambda f: -len(values[f]))
    if len(measures) > 1:
        rows = ranked[0] if ranked else None
        cols = ranked[1] if len(ranked) > 1 else None
        splits = tuple(f for f in found if f not in (rows, cols))
        wide = cols is not None and len(measures) * len(values[cols]) > ACROSS
        if width < 5 or wide:  # each row value's measures down, one per row
            if cols is None:
                rows, cols = None, rows
            elif len(values[cols]) > len(values[rows]):
                rows, cols = cols, rows
            return Design(
                rows=rows,
                cols=cols,
                row_values=values[rows] if rows else (None,),
                col_values=values[cols] if cols else (None,),
                splits=splits,
                measures=measures,
                down=True,
            )
        return Design(  # each column's value spans its measures
            rows=rows,
            cols=cols,
            row_values=values[rows] if rows else (None,),
            col_values=values[cols] if cols else (None,),
            splits=splits,
            measures=measures,
        )
    if not found:
        return Design()
    if len(found) == 1:
        f = found[0]
        if width < 5 and len(values[f]) > SINGLE_COLUMNS:  # a row would not fit: a column
            return Design(rows=f, row_values=values[f])
        return Design(cols=f, col_values=values[f])
    a, b = ranked[0], ranked[1]
    if len(values[a]) == len(values[b]):  # a tie: the factor listed first along the rows
        rows, cols = (a, b) if found.index(a) < found.index(b) else (b, a)
    else:  # the one with more values along the columns
        rows, cols = b, a
    if width < 5 and len(values[cols]) > SINGLE_COLUMNS and len(values[rows]) < len(values[cols]):
        rows, cols = cols, rows  # a narrow page: the longer one down
    splits = tuple(f for f in found if f not in (rows, cols))
    return Design(rows, cols, values[rows], values[cols], splits)


def split(df: pd.DataFrame, d: Design) -> Iterator[tuple[str, str, pd.DataFrame, Design]]:
    """(file-name suffix, title, rows, design) of each figure of a design: one for the whole
    data, or one per value of the split factors (the grid's values are those present in all of
    the data, so every figure of a study has the same grid)."""
    if not d.splits:
        yield "", "", df, d
        return
    columns = [c for f in d.splits for c in f]
    for key, part in df.groupby(columns, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        pairs = list(zip(columns, key, strict=True))
        title = ", ".join(header(c, v) for c, v in pairs)
        suffix = "".join(
            f"-{c}-{_slug(value_text(order_text(v) if c == 'order' else v))}" for c, v in pairs
        )
        yield suffix, title, part, d


def _slug(text: str) -> str:
    """A value in a file name: letters, digits, ``.`` and ``-`` (others become ``-``)."""
    out = "".join(c if c.isalnum() or c in ".-" else "-" for c in text)
    return "-".join(p for p in out.split("-") if p) or "none"


@dataclass
class Grid:
    """A figure's panels, made for a design at a width: ``axes[(row, col)]`` of the grid's
    slots, with their conditions' values and measure (``slot``)."""

    figure: plt.Figure
    design: Design
    axes: dict[tuple[int, int], plt.Axes]
    slot: dict[tuple[int, int], tuple[Any, Any, str]] = field(default_factory=dict)

    def panels(self) -> Iterator[tuple[plt.Axes, Any, Any, str]]:
        """(axes, row value, column value, measure) of every panel, row by row."""
        for (i, j), ax in sorted(self.axes.items()):
            rv, cv, measure = self.slot[(i, j)]
            yield ax, rv, cv, measure

    def of_measure(self, measure: str) -> list[plt.Axes]:
        return [ax for ax, _rv, _cv, m in self.panels() if m == measure]


def panel_size(rows: int, cols: int, width: float, least: float = 0.0) -> float:
    """One panel's height: the paper ratio (at least ``least`` inches, the room a categorical
    axis needs), shrunk where ``rows`` of them would be taller than ``MAX_HEIGHT`` less the
    legend's room."""
    nominal = max(width / cols * HEIGHT_RATIO, least)
    return min(nominal, (MAX_HEIGHT - LEGEND_ROOM) / rows)


def grid(
    d: Design, width: float, share_y: bool, title: str = "", least_height: float = 0.0
) -> Grid:
    """The figure of design ``d`` at ``width`` inches: its panels (``share_y``: the panels of one
    measure share their y range; ``least_height``: a panel's least height), the headers, and
    ``title`` above (a split figure's values)."""
    rows, cols = d.shape
    if rows * cols > MAX_PANELS:
        raise PlotError(
            f"the design has {rows} x {cols} panels (at most {MAX_PANELS} in one figure): plot "
            f"fewer conditions, or average over one with --pool COLUMN"
        )
    height = panel_size(rows, cols, width, least_height) * rows + 0.25 * bool(title)
    fig, axes = plt.subplots(
        rows, cols, figsize=(width, height), squeeze=False, layout="constrained"
    )
    g = Grid(fig, d, {})
    for i, j, rv, cv, measure in d.slots():
        g.axes[(i, j)] = axes[i][j]
        g.slot[(i, j)] = (rv, cv, measure)
    if share_y:
        for measure in d.measures:
            group = g.of_measure(measure)
            for ax in group[1:]:
                ax.sharey(group[0])
    m = 1 if d.down else len(d.measures)
    for (i, j), ax in g.axes.items():
        rv, cv, _measure = g.slot[(i, j)]
        if i == 0 and d.cols is not None and j % m == 0:
            # the column's header, once above its first measure
            text = factor_header(d.cols, cv)
            ax.set_title(text, fontsize="small", loc="left" if m > 1 else "center")
        first_of_group = not d.down or i % len(d.measures) == 0
        if j == cols - 1 and d.rows is not None and first_of_group:
            ax.annotate(
                factor_header(d.rows, rv),
                xy=(1.0, 0.5),
                xycoords="axes fraction",
                xytext=(4, 0),
                textcoords="offset points",
                rotation=-90,
                va="center",
                ha="left",
                fontsize="small",
            )
    if title:
        fig.suptitle(title, fontsize="small")
    return g


# --------------------------------------------------------------------------- text that fits
#: A figure header longer than this many characters breaks after its "=" (two lines).
LONG_HEADER = 24
#: The smallest font a header or label is shrunk to before it is left as it is.
MIN_FONT = 5.0


def _labelled(fig: plt.Figure) -> list[tuple[Any, Any, Any]]:
    """Every visible, non-empty text of a figure with the axes and axis whose tick label it is
    (else None, None): titles, headers, axis labels, tick labels (of the ticks drawn, inside
    the view), annotations, the legends' texts and titles, the figure's own texts."""
    found: list[tuple[Any, Any, Any]] = [(t, None, None) for t in fig.texts]
    for attr in ("_suptitle", "_supxlabel", "_supylabel"):
        t = getattr(fig, attr, None)
        if t is not None:
            found.append((t, None, None))
    for legend in fig.legends:
        found += [(t, None, None) for t in (*legend.get_texts(), legend.get_title())]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        own = [ax.title, ax._left_title, ax._right_title]  # noqa: SLF001 - matplotlib's own
        found += [(t, None, None) for t in (*own, ax.xaxis.label, ax.yaxis.label, *ax.texts)]
        for axis in (ax.xaxis, ax.yaxis):  # the ticks drawn (inside the view), not the others
            for tick in axis._update_ticks():  # noqa: SLF001 - matplotlib's own list
                found += [(tick.label1, ax, axis), (tick.label2, ax, axis)]
        legend = ax.get_legend()
        if legend is not None:
            found += [(t, None, None) for t in (*legend.get_texts(), legend.get_title())]
    return [(t, ax, axis) for t, ax, axis in found if t.get_visible() and t.get_text().strip()]


def texts(fig: plt.Figure) -> list[Any]:
    """Every visible, non-empty text of a figure (``_labelled``)."""
    return [t for t, _ax, _axis in _labelled(fig)]


def _overlaps(boxes: Any, tolerance: float = 0.5) -> list[tuple[int, int]]:
    """The pairs of boxes (an n x 4 array: x0, y0, x1, y1) that overlap by more than
    ``tolerance`` pixels each way (touching is fine)."""
    if len(boxes) < 2:
        return []
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    w = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :])
    h = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :])
    hit = np.triu((w > tolerance) & (h > tolerance), k=1)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(hit), strict=True)]


def _thin(ax: Any, axis: Any) -> bool:
    """Keep every other labelled tick of a numeric axis (its labels collide); False when one
    or two are left, or the axis names categories."""
    if getattr(axis, "_starbench_categorical", False) or getattr(axis, "units", None):
        return False
    low, high = sorted(axis.get_view_interval())
    ticks = [v for v in axis.get_ticklocs() if low - 1e-12 <= v <= high + 1e-12]
    if len(ticks) <= 2:
        return False
    (ax.set_xticks if axis is ax.xaxis else ax.set_yticks)(ticks[::2])
    axis.set_minor_formatter(NullFormatter())
    return True


def _shrink(t: Any, alike: list[Any]) -> bool:
    """A smaller font for ``t`` and for every text of ``alike`` that reads the same (the
    bottom row's axis labels, say, stay alike); False at ``MIN_FONT``."""
    size = float(t.get_fontsize())
    if size <= MIN_FONT:
        return False
    new = max(MIN_FONT, size * 0.88)
    for other in alike:
        if other.get_text() == t.get_text() and float(other.get_fontsize()) > new:
            other.set_fontsize(new)
    t.set_fontsize(new)
    return True


def declutter(fig: plt.Figure, rounds: int = 8) -> None:
    """Make every text of a figure fit, laying it out: a text outside the figure, or two texts
    that overlap, are fixed in turn (a numeric axis's tick labels thinned to every other one,
    else the larger text's font shrunk, to ``MIN_FONT`` at least), and the layout run again,
    until nothing collides or nothing more can be done."""
    import warnings

    engine = fig.get_layout_engine()
    for _ in range(rounds):
        if engine is not None:
            with warnings.catch_warnings():  # a first layout may not fit: this pass fixes it
                warnings.filterwarnings("ignore", "constrained_layout not applied")
                engine.execute(fig)
        renderer = fig.canvas.get_renderer()
        found = _labelled(fig)
        every = [t for t, _ax, _axis in found]
        extents = [t.get_window_extent(renderer) for t in every]
        boxes = np.array([[b.x0, b.y0, b.x1, b.y1] for b in extents]).reshape(-1, 4)
        page = fig.bbox
        changed = False
        done: set[int] = set()
        for i, b in enumerate(extents):
            outside = b.x0 < page.x0 - 0.5 or b.x1 > page.x1 + 0.5
            outside |= b.y0 < page.y0 - 0.5 or b.y1 > page.y1 + 0.5
            if outside and _shrink(every[i], every):
                changed = True
                done.add(i)
        thinned: set[int] = set()
        for i, j in _overlaps(boxes):
            if i in done or j in done:
                continue
            fixed = False
            for k in (j, i):  # a numeric axis's tick labels: thinned, once a round
                _t, ax, axis = found[k]
                if axis is not None and id(axis) not in thinned and _thin(ax, axis):
                    thinned.add(id(axis))
                    fixed = True
                    break
                fixed = axis is not None and id(axis) in thinned
                if fixed:
                    break
            if not fixed:  # else the larger text is made smaller
                area = [extents[k].width * extents[k].height for k in (i, j)]
                k, other = (i, j) if area[0] >= area[1] else (j, i)
                fixed = _shrink(every[k], every) or _shrink(every[other], every)
            if fixed:
                changed = True
                done.update((i, j))
        if not changed:
            break
