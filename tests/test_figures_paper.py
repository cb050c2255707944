"""Figures fit for a paper (issue: timing in CPU seconds per condition, algorithms without k as
reference lines in the by-k figure, every listed algorithm by condition, grids that fit a
page, one y range for panels of one measure), checked on the figures' tables and sizes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from starbench.analysis import load_results, plot  # noqa: E402
from starbench.analysis.figures import (  # noqa: E402
    FIGURES,
    SHARE_Y,
    leaves_by_algorithm,
    leaves_by_k,
    seconds_vs_nodes,
)
from starbench.analysis.layout import MAX_HEIGHT  # noqa: E402
from starbench.analysis.style import WIDTHS  # noqa: E402
from starbench.experiment.runner import run_cell  # noqa: E402
from starbench.experiment.settings import AlgorithmSpec, RunSettings  # noqa: E402
from starbench.trees import RegularTreeSpec  # noqa: E402

ALGOS = (
    AlgorithmSpec("expectimax"),
    AlgorithmSpec("star1"),
    AlgorithmSpec("star2", (("after_probe", "resume"),)),
    *(AlgorithmSpec("star2.5-cyclic", (("k", k), ("after_probe", "resume"))) for k in (2, 3)),
)
SKEWS = ("1/2", "1/3", "1/4")
ORDERS = (("generated", "generated"), ("perfect", "refuting"), ("reversed", "generated"))


@pytest.fixture(scope="module")
def nine(tmp_path_factory):
    """A sweep of nine cells (three skews by three orderings) with Star1 and Star2 (no k)
    beside Star2.5 at two k."""
    root = tmp_path_factory.mktemp("nine")
    for i, (skew, order) in enumerate((s, o) for s in SKEWS for o in ORDERS):
        spec = RegularTreeSpec(
            branching=3,
            chance_arity=3,
            depth=2,
            distribution="geometric",
            skew=skew,
            ordering=order[0],
            outcome_order=order[1],
        )
        run_cell(
            RunSettings(tree=spec, algorithms=ALGOS, trees=6, progress=False),
            root / f"c{i}",
            out=lambda _: None,
        )
    return root


@pytest.fixture(scope="module")
def df(nine):
    return load_results(nine)


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


@pytest.mark.parametrize("name", ["leaves_by_algorithm", "leaves_by_k", "seconds_vs_nodes"])
@pytest.mark.parametrize("width", list(WIDTHS))
def test_nine_panels_fit_a_page(df, name, width):
    drawn = FIGURES[name](df, WIDTHS[width])
    try:
        w, h = drawn.figure.get_size_inches()
        assert w == pytest.approx(WIDTHS[width])
        assert h <= MAX_HEIGHT, (name, width, h)
        panels = _panels(drawn.figure)
        assert len(panels) == 9
        if width == "single":  # wrapped into a grid, not stacked in one column
            assert len({round(ax.get_position().x0, 3) for ax in panels}) >= 2
    finally:
        plt.close(drawn.figure)


def test_panels_of_one_measure_share_their_y_range_unless_asked(df):
    drawn = leaves_by_algorithm(df, WIDTHS["double"])  # the measure across, algorithms down
    limits = {ax.get_xlim() for ax in _panels(drawn.figure)}
    plt.close(drawn.figure)
    assert len(limits) == 1
    drawn = seconds_vs_nodes(df, WIDTHS["double"])
    limits = {ax.get_ylim() for ax in _panels(drawn.figure)}
    plt.close(drawn.figure)
    assert len(limits) == 1
    token = SHARE_Y.set(False)
    try:
        drawn = seconds_vs_nodes(df, WIDTHS["double"])
        limits = {ax.get_ylim() for ax in _panels(drawn.figure)}
        plt.close(drawn.figure)
    finally:
        SHARE_Y.reset(token)
    assert len(limits) > 1


def test_the_timing_figure_is_cpu_seconds_per_condition(df):
    drawn = seconds_vs_nodes(df, WIDTHS["double"])
    try:
        t = drawn.table
        assert "CPU" in drawn.value
        assert {"skew", "order"} <= set(t.columns)  # a row per condition, not pooled
        assert len(t.groupby(["skew", "order"])) == 9
        labels = {ax.get_ylabel() for ax in _panels(drawn.figure)}
        assert labels == {"CPU time", ""}  # once a row, on the grid's left edge
        # each row's mean is the CPU microseconds per node of its own condition's searches:
        # every search (each timed over repeats), none left out
        from starbench.analysis.figures import _prepare

        ok = _prepare(df[df.status == "ok"])
        assert int(t["n"].sum()) == len(ok)
        for _, row in t.iterrows():
            sel = ok[(ok["skew"] == row["skew"]) & (ok["order"] == row["order"])]
            sel = sel[sel.label == row["label"]]
            want = (1e6 * sel.cpu_seconds.astype(float) / sel.nodes.astype(float)).mean()
            assert len(sel), (row["skew"], row["order"], row["label"])
            assert row["mean"] == pytest.approx(want) and row["n"] == len(sel)
    finally:
        plt.close(drawn.figure)


def test_algorithms_without_k_are_reference_lines_by_k(df):
    drawn = leaves_by_k(df, WIDTHS["double"])
    try:
        t = drawn.table
        refs = t[t["k"].isna()]
        assert set(refs["label"]) == {"star1", "star2"}
        assert len(refs) == 2 * 9  # one per panel
        # each reference is the mean of its condition's rows, drawn as a dashed line
        m = df[(df.algorithm == "star1") & (df.skew == "1/3")]
        ex = df[df.algorithm == "expectimax"].set_index(["cell", "instance"])["leaves"]
        pct = 100 * m.leaves.to_numpy() / ex.loc[list(zip(m.cell, m.instance, strict=True))]
        want = pct.groupby(m.ordering.to_numpy()).mean()
        got = refs[(refs.label == "star1") & (refs.skew == "1/3")]["mean"]
        assert sorted(round(v, 9) for v in got) == sorted(round(v, 9) for v in want)
        dashed = [
            ln
            for ax in _panels(drawn.figure)
            for ln in ax.get_lines()
            if ln.get_linestyle() == "--" and ln.get_label().startswith("_")  # not the legend's
        ]
        assert len(dashed) == 2 * 9
    finally:
        plt.close(drawn.figure)


def test_every_listed_algorithm_by_condition(df, nine, tmp_path):
    drawn = leaves_by_algorithm(df, WIDTHS["single"])
    plt.close(drawn.figure)
    t = drawn.table
    assert set(t["label"]) == {"star1", "star2", "star2.5-cyclic k=2", "star2.5-cyclic k=3"}
    assert len(t) == 4 * 9
    written = plot(nine, tmp_path, names=["leaves_by_algorithm"], images=None)
    assert (tmp_path / "leaves_by_algorithm.md") in written  # images: test_nine_panels_fit_a_page
    md = (tmp_path / "leaves_by_algorithm.md").read_text()
    assert "star1" in md and "1/3" in md


def test_the_summary_labels_cpu_seconds_and_the_standard_error(tmp_path):
    lines: list[str] = []
    spec = RegularTreeSpec(branching=3, chance_arity=3, depth=1)
    run_cell(
        RunSettings(tree=spec, algorithms=ALGOS[:2], trees=3, progress=False),
        tmp_path / "c",
        out=lines.append,
    )
    text = "\n".join(lines)
    assert "% expectimax leaves (mean ± SE)" in text and "median CPU s" in text
    table = pd.read_parquet(tmp_path / "c" / "table.parquet")
    assert table["cpu_seconds"].notna().all()


def test_no_two_lines_of_a_figure_look_alike():
    from starbench.analysis.style import distinct

    labels = ["star2", "star2 research", "star2 research no-full-probe", "star2 tt=20", "star1"]
    styles = distinct(labels)
    assert len(set(styles.values())) == len(labels)
    assert styles["star2"] == distinct(["star2"])["star2"]  # the registry's own where it can
