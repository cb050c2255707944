"""Figures a paper can print for any design: a grid by the design, one look per label across a
study, and text that never collides.

Every figure kind is drawn on awkward designs (a 2 x 2, a 2 x 3, a single panel, long
condition values, six algorithms), from synthetic tables shaped as stored ones, at both paper
widths, and laid out as ``starbench plot`` lays it out; then every text's rendered extent
(``Text.get_window_extent``) is checked: inside the figure, horizontal or vertical, and no two
overlapping (boxes may touch).  The check is this file's own, not the code's."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from starbench.analysis.data import PlotError, prepared  # noqa: E402
from starbench.analysis.figures import ERRORBAR, FIGURES  # noqa: E402
from starbench.analysis.plotting import lay_out  # noqa: E402
from starbench.analysis.style import RC, STUDY, WIDTHS, study_styles  # noqa: E402
from starbench.trees.regular import RegularTreeSpec  # noqa: E402

#: Six algorithms with long labels, one of them inexact (``approx`` rows).
ALGORITHMS = (
    ("star1", None, "resume"),
    ("star2", None, "research"),
    ("star2.5-cyclic", 2, "resume"),
    ("star2.5-sequential", 2, "research"),
    ("star2.5-cyclic", 3, "research"),
    ("expectimax-ss", None, "resume"),
)
DESIGNS = {
    "2x2": {"skew": ["1/2", "1/4"], "ordering": ["generated", "perfect"]},
    "2x3": {"pattern": ["max,chance,min,chance", "max,chance"], "noise_sd": [1.0, 3e5, 1e6]},
    "single": {},
    "long": {
        "pattern": ["max,chance,min,chance", "max,chance"],
        "ordering": ["static-middle", "generated", "static-interior"],
    },
}
#: What each figure kind needs to vary besides the design (its own axis).
AXES = {
    "leaves_by_branching": {"branching": [4, 8, 16]},
    "leaves_by_k": {"k": [1, 2, 3, 4]},
    "nodes_by_depth": {"depth": [1, 2, 3]},
    "decisions_by_depth": {"depth": [1, 2, 3]},
    "regret_vs_nodes": {"depth": [1, 2, 3]},
    "ordering_effect": {"ordering": ["generated", "perfect", "static"]},
    "distribution_effect": {"distribution": ["uniform", "geometric", "random"]},
}


def _table(design: dict, axis: dict, trees: int = 4) -> pd.DataFrame:
    """Rows as a study of ``design`` x ``axis`` would store them (plausible, made up)."""
    base = RegularTreeSpec().as_dict()
    keys = [*design, *(k for k in axis if k != "k")]
    grid = [dict(zip(keys, v, strict=True)) for v in itertools.product(
        *[design[k] if k in design else axis[k] for k in keys]
    )]  # fmt: skip
    rng = np.random.default_rng(0)
    rows = []
    for c, cond in enumerate(grid):
        tree = {**base, **cond}
        if tree["ordering"] == "perfect":
            tree["outcome_order"] = "refuting"
        if "noise_sd" in cond:
            tree["ordering"] = "noisy"
        if "skew" in cond:
            tree["distribution"] = "geometric"
        tree["chance_arity"] = tree["branching"]
        levels = 2 * tree["depth"]
        for i in range(trees):
            ex = float(tree["branching"] ** levels * rng.uniform(0.9, 1.1))
            algos = [("expectimax", None, "resume"), *ALGORITHMS]
            if "k" in axis:
                algos += [("star2.5-cyclic", k, "resume") for k in axis["k"]]
            for a, (name, k, after) in enumerate(dict.fromkeys(algos)):
                share = 1.0 if name == "expectimax" else rng.uniform(0.2, 0.95)
                approx = name.endswith("-ss")
                # the counters per level (levels_detail): each level's share made up too
                per = [
                    int(
                        tree["branching"] ** lv * (1.0 if lv < 2 else share * rng.uniform(0.8, 1.2))
                    )
                    for lv in range(levels + 1)
                ]
                lists = {
                    "nodes_by_level": json.dumps(per),
                    "leaves_by_level": json.dumps([0] * levels + [per[-1]]),
                    "cutoffs_by_level": json.dumps([0] * (levels + 1)),
                    "probes_by_level": json.dumps([0] * (levels + 1)),
                }
                rows.append(
                    {
                        **tree,
                        "algorithm": name,
                        "k": k,
                        "after_probe": after,
                        "samples": 2 if approx else None,
                        "instance": i,
                        "cell": f"{c:08x}",
                        "status": "approx" if approx else "ok",
                        "leaves": int(ex * share) + 1,
                        "nodes": int(1.3 * ex * share) + 2,
                        "cpu_seconds": 1e-6 * ex * share * rng.uniform(0.5, 2),
                        "seconds": 1e-6 * ex * share,
                        "timing_repeats": 3,
                        "levels": levels,
                        "seed": 0,
                        "exact": False,
                        "engine": "compiled",
                        "value_error": rng.normal(0, 50) if approx else None,
                        "decision_optimal": bool(rng.uniform() < (0.6 if approx else 0.97)),
                        "regret": 0.0 if not approx else float(rng.exponential(10)),
                        "L": 0.0,
                        "U": 1000.0,
                        "git_commit": "0" * 40,
                        "git_dirty": False,
                        "name": "awkward",
                        "a": a,
                        **lists,
                    }
                )
    df = pd.DataFrame(rows)
    df["k"] = df["k"].astype("Int64")
    return prepared(df, Path("/nowhere/awkward"))


def _texts(fig: plt.Figure) -> list:
    """Every text a drawn figure shows (walked from the figure down; a tick label only where
    its tick is drawn, inside the axis's view)."""
    ticks = set()
    drawn = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update((tick.label1, tick.label2))
            for tick in axis._update_ticks():  # noqa: SLF001 - the ticks matplotlib draws
                drawn.update((tick.label1, tick.label2))
    out = []
    for artist in fig.findobj(matplotlib.text.Text):
        if not artist.get_visible() or not artist.get_text().strip():
            continue
        parent = artist.axes
        if parent is not None and not parent.get_visible():
            continue
        if artist in ticks and artist not in drawn:
            continue
        out.append(artist)
    return out


def text_problems(fig: plt.Figure) -> list[str]:
    """What is wrong with a figure's text: outside the figure, slanted, or overlapping."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    page = fig.bbox
    found = []
    texts = _texts(fig)
    boxes = [t.get_window_extent(renderer) for t in texts]
    for t, b in zip(texts, boxes, strict=True):
        angle = t.get_rotation() % 90
        if angle not in (0.0,):
            found.append(f"slanted ({t.get_rotation()}): {t.get_text()!r}")
        if b.x0 < page.x0 - 1 or b.x1 > page.x1 + 1 or b.y0 < page.y0 - 1 or b.y1 > page.y1 + 1:
            found.append(f"outside the figure: {t.get_text()!r}")
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        if w > 1 and h > 1:
            found.append(f"overlap: {texts[i].get_text()!r} and {texts[j].get_text()!r}")
    return found


def _draw(kind: str, design: str, width: str) -> list[plt.Figure]:
    df = _table(DESIGNS[design], AXES.get(kind, {}))
    token = STUDY.set(study_styles(sorted(df["label"].astype(str).unique())))
    bands = ERRORBAR.set(None)  # the text is what is checked: no bootstrap bands drawn
    try:
        with plt.rc_context({**RC, "savefig.dpi": 100}):
            drawn = FIGURES[kind](df, WIDTHS[width])
            for _suffix, fig in drawn.figures:
                fig.dpi = 100
                lay_out(fig)
            return [fig for _s, fig in drawn.figures]
    finally:
        STUDY.reset(token)
        ERRORBAR.reset(bands)


#: The widths each design is drawn at: every design at a single column's width (the narrow page
#: is where text collides), the widest grid (2 x 3) at a double column's too.
DESIGN_WIDTHS = {
    "2x2": ("single",),
    "2x3": tuple(WIDTHS),
    "single": ("single",),
    "long": ("single",),
}


@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.parametrize("kind", list(FIGURES))
def test_no_text_collides_in_any_figure_kind_at_either_width(kind, design):
    drawn = 0
    for width in DESIGN_WIDTHS[design]:
        try:
            figures = _draw(kind, design, width)
        except PlotError:
            continue
        for fig in figures:
            try:
                problems = text_problems(fig)
                assert not problems, f"{kind} {design} {width}: {problems[:6]}"
                drawn += 1
            finally:
                plt.close(fig)
    if kind not in ("seconds_vs_nodes", "leaves_by_algorithm") or design != "single":
        assert drawn or kind in ("distribution_effect",), f"{kind} drew nothing on {design}"


def _grid_of(fig: plt.Figure) -> list[tuple[int, int, str]]:
    """(row, column, header) of every visible panel, rows top to bottom."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    xs = sorted({round(ax.get_position().x0, 3) for ax in axes})
    ys = sorted({round(ax.get_position().y0, 3) for ax in axes}, reverse=True)
    return [
        (ys.index(round(ax.get_position().y0, 3)), xs.index(round(ax.get_position().x0, 3)),
         ax.get_title())
        for ax in axes
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("design", "rows", "cols", "along"),
    [("2x2", 2, 2, "ordering"), ("2x3", 2, 3, "noise_sd")],
)
def test_two_conditions_make_rows_by_columns_with_no_empty_slot(design, rows, cols, along):
    """One condition along the rows and the other along the columns, every slot drawn; the
    column headers name the condition by its config key and values as written."""
    (fig,) = _draw("leaves_by_algorithm", design, "double")
    try:
        cells = _grid_of(fig)
        assert len(cells) == rows * cols
        assert {(r, c) for r, c, _t in cells} == {(r, c) for r in range(rows) for c in range(cols)}
        tops = [t for r, _c, t in sorted(cells) if r == 0]
        key = {"ordering": "order", "noise_sd": "noise_sd"}[along]
        assert all(t.startswith(f"{key}=") for t in tops), tops
        if along == "noise_sd":
            assert tops == ["noise_sd=1", "noise_sd=300000", "noise_sd=1000000"]
        else:
            assert tops == ["order=optimal", "order=random"]
        right = [t.get_text() for t in fig.texts] + [
            a.get_text() for ax in fig.axes for a in ax.texts
        ]
        assert any(t.startswith(("pattern=", "skew=")) for t in right), right
    finally:
        plt.close(fig)


def test_a_third_condition_makes_one_figure_per_value_named_in_the_title():
    design = {**DESIGNS["2x3"], "skew": ["1/2", "1/3"]}
    df = _table(design, {})
    drawn = FIGURES["leaves_by_algorithm"](df, WIDTHS["double"])
    try:
        assert [s for s, _f in drawn.figures] == ["-skew-1-2", "-skew-1-3"]
        assert [f.get_suptitle() for _s, f in drawn.figures] == ["skew=1/2", "skew=1/3"]
        assert all(len(_grid_of(f)) == 6 for _s, f in drawn.figures)
    finally:
        plt.close("all")


def test_one_look_per_label_across_the_study_whatever_a_figure_shows():
    """A label's colour and marker are the same in figures of different subsets of labels."""
    df = _table(DESIGNS["single"], AXES["leaves_by_k"])
    looks = study_styles(sorted(df["label"].astype(str).unique()))
    token = STUDY.set(looks)
    try:
        drawn = FIGURES["leaves_by_k"](df, WIDTHS["double"])
        legend = drawn.figure.legends[0]
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
            label = text.get_text()
            if label in looks:
                assert matplotlib.colors.to_hex(handle.get_color()) == looks[label].color.lower()
                assert handle.get_marker() == looks[label].marker
        pairs = {(s.marker, s.line) for s in looks.values()}
        assert len(pairs) == len(looks) and len({s.color for s in looks.values()}) == len(looks)
    finally:
        STUDY.reset(token)
        plt.close("all")
