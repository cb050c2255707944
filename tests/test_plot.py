"""Plotting reads stored tables only: every figure from a small table, determinism, bad input,
and regeneration of the committed study tables."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from starbench.analysis import load_results, plot
from starbench.analysis.data import PlotError
from starbench.analysis.figures import FIGURES
from starbench.analysis.plotting import Images
from starbench.analysis.studies import STUDY_FIGURES, STUDY_TABLES
from starbench.analysis.style import RC
from starbench.commands import cli
from starbench.experiment.runner import run_cell
from starbench.experiment.settings import AlgorithmSpec, RunSettings
from starbench.trees import RegularTreeSpec

ROOT = Path(__file__).resolve().parents[1]
#: PNG resolution where the image is not what a test checks (the committed figures: 300; at
#: 100 or less constrained layout collapses some panels and warns).
DPI = 150
ALGOS = (
    AlgorithmSpec("expectimax"),
    AlgorithmSpec("star1"),
    AlgorithmSpec("star2", (("after_probe", "resume"),)),
    *(
        AlgorithmSpec(f"star2.5-{v}", (("k", k), ("after_probe", "resume")))
        for v in ("cyclic", "sequential")
        for k in (1, 2, 3)
    ),
)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """Small cells varying branching, depth, ordering and distribution."""
    root = tmp_path_factory.mktemp("results")
    cells = [dict(branching=b, chance_arity=b, depth=2) for b in (2, 3, 4)]
    cells += [
        dict(branching=3, chance_arity=3, depth=d, trailing_chance=t)
        for d, t in ((2, True), (3, False))
    ]
    cells += [
        dict(
            branching=3,
            chance_arity=3,
            depth=2,
            ordering="perfect",
            outcome_order="refuting",
            bounds="tree",
        ),
        dict(branching=3, chance_arity=3, depth=2, distribution="random"),
    ]
    for i, c in enumerate(cells):
        s = RunSettings(
            tree=RegularTreeSpec(**c), algorithms=ALGOS, trees=6, progress=False, levels_detail=True
        )
        run_cell(s, root / f"cell{i}", out=lambda _: None)
    return root


@pytest.mark.slow
def test_every_figure_is_written(results, tmp_path):
    """Every figure kind the study's rows allow, as a single-column PNG, with its tables (the
    other formats and widths: ``test_format_and_size_narrow_the_images_and_never_the_tables``,
    and every kind at both widths: ``tests/test_figure_layout.py``)."""
    warnings: list[str] = []
    written = plot(
        results, tmp_path, warn=warnings.append, images=Images(("png",), ("single",), DPI)
    )
    # every search here is exact: nothing is traded (error_vs_nodes), no decision differs
    # from the oracle's (decisions_by_depth) and no regret varies (regret_vs_nodes)
    skipped = {line.split(": ")[1].removeprefix("skipped figure ") for line in warnings}
    assert skipped == {"error_vs_nodes", "decisions_by_depth", "regret_vs_nodes"}, warnings
    assert EXACT_ONLY in warnings
    drawn = [n for n in FIGURES if n not in skipped]
    for name in drawn:
        assert (tmp_path / f"{name}-single.png").stat().st_size > 1000
        assert not list(tmp_path.glob(f"{name}-double.*")) + list(tmp_path.glob(f"{name}-*.pdf"))
        md = (tmp_path / f"{name}.md").read_text()
        assert "mean ± SE (n)" in md and "(n=" in md
        assert md.startswith("<!-- starbench study ")  # where the numbers come from
        assert "\\begin{tabular}" in (tmp_path / f"{name}.tex").read_text()
        head = (tmp_path / f"{name}.csv").read_text().splitlines()[0]
        assert "mean,se,n" in head and head.endswith("study,cells,commit")
    assert len(written) == len(drawn) * 4 + 3  # and the differences' .md, .tex and .csv
    assert (tmp_path / "differences.md").exists()


@pytest.mark.parametrize("name", ["leaves_by_algorithm", "seconds_vs_nodes"])
def test_no_text_of_a_single_column_figure_collides(results, name):
    """On a study of seven cells of an unswept design, every text of the figure is inside it,
    horizontal or vertical, and clear of every other (``tests/test_figure_layout.py``)."""
    import matplotlib.pyplot as plt

    from starbench.analysis.plotting import lay_out
    from test_figure_layout import text_problems

    with plt.rc_context({**RC, "savefig.dpi": DPI}):
        fig = FIGURES[name](load_results(results), 3.5).figure
        try:
            fig.dpi = DPI
            lay_out(fig)
            assert not text_problems(fig)
        finally:
            plt.close(fig)


EXACT_ONLY = "starbench: skipped figure error_vs_nodes: no inexact (approx) rows: nothing is traded"


def test_the_error_figure_shows_each_algorithm_s_mean_error_and_moves(tmp_path):
    """error_vs_nodes on a cell with inexact rows: its table's numbers are an independent
    groupby of the stored rows (exact rows at error 0)."""
    algos = (
        AlgorithmSpec("expectimax"),
        AlgorithmSpec("star2", (("after_probe", "resume"),)),
        AlgorithmSpec("expectimax-ss", (("samples", 2),)),
    )
    spec = RegularTreeSpec(branching=3, chance_arity=3, depth=2)
    s = RunSettings(tree=spec, algorithms=algos, trees=8, progress=False)
    run_cell(s, tmp_path / "cell", out=lambda _: None)
    plot(tmp_path, tmp_path / "fig", names=["error_vs_nodes"], images=Images(dpi=DPI))
    for width in ("single", "double"):
        assert (tmp_path / "fig" / f"error_vs_nodes-{width}.png").stat().st_size > 1000
    got = pd.read_csv(tmp_path / "fig" / "error_vs_nodes.csv").set_index("label")
    t = pd.read_parquet(tmp_path / "cell" / "table.parquet")
    err = t["value_error"].astype(float).abs().where(t["status"] == "approx", 0.0)
    want = err.groupby(t["algorithm"]).mean()
    # the table keeps 6 significant digits
    assert got.loc["expectimax-ss c=2", "mean"] == pytest.approx(want["expectimax-ss"], rel=1e-5)
    assert want["expectimax-ss"] > 0 and got.loc["star2", "mean"] == 0
    same = 100 * t["decision_optimal"].astype(float).groupby(t["algorithm"]).mean()
    assert got.loc["expectimax-ss c=2", "same_move_pct"] == pytest.approx(
        same["expectimax-ss"], rel=1e-5
    )
    nodes = t["nodes"].astype(float).groupby(t["algorithm"]).mean()
    assert got.loc["star2", "mean_nodes"] == pytest.approx(nodes["star2"], rel=1e-5)


def _sign(folder: Path) -> None:
    """A ``cell.json`` recording the SHA-256 of a table this test wrote by hand."""
    from starbench.ground.files import file_digest
    from starbench.record.integrity import write_document

    table = folder / "table.parquet"
    write_document(folder / "cell.json", {"tables": {"table.parquet": file_digest(table)}})


@pytest.mark.slow
def test_every_search_is_timed_and_old_tables_say_what_they_cannot_use(results, tmp_path):
    """Every search is timed (a short one over repeats: ``timing_repeats``), so the timing
    figure counts every search; a table stored before repeats (no ``timing_repeats``) whose
    searches took under 100 us of CPU, once, is timer noise: left out, and the figure says how
    many."""
    df = load_results(results)
    assert (df["timing_repeats"] >= 1).all() and df["cpu_seconds"].notna().all()
    drawn = FIGURES["seconds_vs_nodes"](df, 7.16)
    assert int(drawn.table["n"].sum()) == int(df["status"].isin(["ok", "unverified"]).sum())
    counts = [t.get_text() for ax in drawn.figure.axes for t in ax.texts if "n = " in t.get_text()]
    assert sum(int(c.split("n = ")[1].split(" of ")[0]) for c in counts) == int(
        drawn.table["n"].sum()
    )
    old = df.drop(columns=["label", "_pair", "timing_repeats"])
    old["cpu_seconds"] = 5e-5
    (tmp_path / "fast").mkdir()
    old.to_parquet(tmp_path / "fast" / "table.parquet")
    _sign(tmp_path / "fast")
    warnings: list[str] = []
    with pytest.raises(PlotError, match="no figure could be drawn"):
        plot(tmp_path / "fast", tmp_path / "f1", names=["seconds_vs_nodes"],
             warn=warnings.append, images=Images(dpi=DPI))  # fmt: skip
    assert len(warnings) == 1 and "no search was timed" in warnings[0]
    old.loc[old.index[::2], "cpu_seconds"] = 2e-3
    (tmp_path / "slow").mkdir()
    old.to_parquet(tmp_path / "slow" / "table.parquet")
    _sign(tmp_path / "slow")
    drawn = FIGURES["seconds_vs_nodes"](load_results(tmp_path / "slow"), 7.16)
    said = drawn.figure.legends[0].get_title().get_text()
    assert f"{len(old) - len(old.index[::2])} searches of under 100 us" in said.replace("\n", " ")


def test_numbers_in_the_tables_are_the_data(results, tmp_path):
    plot(results, tmp_path, names=["leaves_by_branching"], images=None)
    df = load_results(results)
    star1 = df[
        (df.algorithm == "star1")
        & (df.branching == 4)
        & (df.depth == 2)
        & (df.ordering == "generated")
        & (df.distribution == "uniform")
        & ~df.trailing_chance
    ]
    ex = df[
        (df.algorithm == "expectimax")
        & (df.branching == 4)
        & (df.depth == 2)
        & (df.ordering == "generated")
        & (df.distribution == "uniform")
        & ~df.trailing_chance
    ]
    pct = 100 * star1.set_index("instance")["leaves"] / ex.set_index("instance")["leaves"]
    md = (tmp_path / "leaves_by_branching.md").read_text()
    assert f"| 4 | star1 | {pct.mean():.1f} ± " in md, md


def test_pdfs_are_byte_identical_on_reruns(results, tmp_path):
    one = results / "cell5"  # one cell: one panel is enough to see the bytes change
    plot(one, tmp_path / "a", names=["leaves_by_k"])
    plot(one, tmp_path / "b", names=["leaves_by_k"])
    for f in (tmp_path / "a").iterdir():
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name


def test_no_tables_is_one_line_exit_2(tmp_path, capsys):
    assert cli.main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no result tables" in err


def test_missing_columns_skip_figures_with_a_warning(results, tmp_path, capsys):
    df = load_results(results).drop(columns=["label", "k", "levels"])
    df.to_parquet(tmp_path / "table.parquet")
    _sign(tmp_path)
    figures = ["--figure", "leaves_by_k", "--figure", "nodes_by_depth"]
    figures += ["--figure", "leaves_by_branching"]
    out = ["--out", str(tmp_path / "f")]
    assert cli.main(["plot", str(tmp_path / "table.parquet"), *figures, *out]) == 0
    err = capsys.readouterr().err
    assert "skipped figure leaves_by_k: the table has no column 'k'" in err
    assert "skipped figure nodes_by_depth: the table has no column 'levels'" in err
    assert (tmp_path / "f" / "leaves_by_branching-single.pdf").exists()


def test_mismatched_values_are_refused(results, tmp_path, capsys):
    df = pd.read_parquet(next(results.rglob("table.parquet")))
    df.loc[1, "status"] = "mismatch"
    (tmp_path / "c").mkdir()
    df.to_parquet(tmp_path / "c" / "table.parquet")
    _sign(tmp_path / "c")
    assert cli.main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 rows have mismatched values" in err


@pytest.mark.slow
@pytest.mark.parametrize("study", sorted(STUDY_TABLES))
def test_committed_study_tables_regenerate_from_committed_results(study):
    """A study's tables (the generated blocks its README quotes) are what its committed results
    give: a number changed in one of them, or in its README block, is caught here (not slow)."""
    results = ROOT / "results" / study
    if not results.exists():
        pytest.skip(f"no committed results for {study}")
    df = load_results(results)
    for name, table in STUDY_TABLES[study]:
        committed = ROOT / "experiments" / study / name
        assert committed.read_text() == table(df), f"{committed} is stale: run make_figures"


@pytest.mark.slow
@pytest.mark.parametrize("study", sorted(STUDY_TABLES))
def test_committed_figure_tables_regenerate_from_committed_results(study, tmp_path):
    results = ROOT / "results" / study
    if not results.exists():
        pytest.skip(f"no committed results for {study}")
    # the figure tables (a study's own figures, STUDY_FIGURES: test_study_tables)
    with contextlib.suppress(PlotError):  # no generic figure (every row stopped by its budget)
        plot(results, tmp_path, warn=lambda _: None, images=None)
    own = {f"{name}.md" for name, _ in STUDY_FIGURES.get(study, [])}
    for md in sorted((ROOT / "experiments" / study / "figures").glob("*.md")):
        if md.name not in own:
            assert md.read_text() == (tmp_path / md.name).read_text(), f"{md} is stale"


@pytest.mark.slow
def test_make_figures_script(tmp_path):
    """The script on two small studies (every study's figure tables are checked above): a
    study of cells (a generic figure and its own table) and a study of matches only (its own
    table and figure), each output as committed."""
    results = tmp_path / "results"
    results.mkdir()
    studies = {
        "transposition-pig": ("seconds_vs_nodes", "by-table.md"),
        "chanceprobcut-matches": ("win-rates", "matches.md"),
    }
    for study in studies:
        (results / study).symlink_to(ROOT / "results" / study)
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "make_figures.py"),
            "--results",
            str(results),
            "--experiments",
            str(tmp_path / "experiments"),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    for study, (figure, table) in studies.items():
        out, committed = tmp_path / "experiments" / study, ROOT / "experiments" / study
        assert (out / "figures" / f"{figure}-double.pdf").exists()
        for md in (committed / "figures").glob("*.md"):
            assert (out / "figures" / md.name).read_text() == md.read_text(), md
        assert (out / table).read_text() == (committed / table).read_text()
        assert f"{study}: {table}" in p.stdout


def test_readme_tables_are_the_generated_files():
    """Every marked block of a README quotes its file verbatim (make_figures fills them)."""
    import re

    block = re.compile(r"<!-- BEGIN (\S+) -->\n(.*?)<!-- END \1 -->", re.S)
    readmes = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "experiments").glob("*/README.md")),
    ]
    seen = 0
    for readme in readmes:
        for path, content in block.findall(readme.read_text()):
            assert content == (ROOT / path).read_text(), f"{readme}: block {path} is stale"
            seen += 1
    assert seen >= 10


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    """A researcher's own sweep: k = 0..3 for both Star2.5 variants beside expectimax, two skews
    of geometric outcomes and two orderings (the case that was once pooled silently)."""
    root = tmp_path_factory.mktemp("sweep")
    algos = (
        AlgorithmSpec("expectimax"),
        *(
            AlgorithmSpec(f"star2.5-{v}", (("k", k), ("after_probe", "resume")))
            for v in ("cyclic", "sequential")
            for k in range(4)
        ),
    )
    for i, (skew, order) in enumerate(
        (s, o)
        for s in ("1/2", "1/4")
        for o in (("generated", "generated"), ("perfect", "refuting"))
    ):
        spec = RegularTreeSpec(
            branching=4,
            chance_arity=4,
            depth=2,
            distribution="geometric",
            skew=skew,
            ordering=order[0],
            outcome_order=order[1],
        )
        run_cell(
            RunSettings(tree=spec, algorithms=algos, trees=8, progress=False),
            root / f"c{i}",
            out=lambda _: None,
        )
    return root


@pytest.mark.slow
def test_every_plotted_value_is_the_mean_of_its_own_condition(sweep, tmp_path):
    plot(sweep, tmp_path, names=["leaves_by_k"], images=Images(dpi=DPI))
    text = (tmp_path / "leaves_by_k.md").read_text()
    table = [line for line in text.splitlines() if line.startswith("|")]
    head = [h.strip() for h in table[0].strip("|").split("|")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    assert head[:4] == ["tree.skew", "order", "label", "k"]  # the keys a user types
    shared = text.splitlines()[1]  # under the line that says where the numbers come from
    assert shared.startswith(
        "Every row: tree.depth=2, tree.trailing_chance=false, tree.branching=4, "
        "tree.chance_arity=4,"
    )
    assert "tree.distribution=geometric" in shared and "levels" not in shared
    assert "weight_max" not in shared  # no effect on these trees (geometric outcomes)
    df = load_results(sweep)
    ex = df[df.algorithm == "expectimax"].set_index(["cell", "instance"])["leaves"]
    other = df[df.algorithm != "expectimax"].copy()
    other["pct"] = (
        100
        * other["leaves"].to_numpy()
        / ex.loc[list(zip(other.cell, other.instance, strict=True))].to_numpy()
    )
    truth = other.groupby(["skew", "ordering", "algorithm", "k"])["pct"].agg(["mean", "count"])
    assert len(rows) == len(truth) == 2 * 2 * 2 * 4
    order_name = {"random": "generated", "optimal": "perfect"}
    for r in rows:
        rec = dict(zip(head, r, strict=True))
        order = rec["order"].removeprefix("order=")  # the override that asks for it
        key = (rec["tree.skew"], order_name[order], rec["label"], int(rec["k"]))
        mean, count = truth.loc[key]
        shown = rec["percent of expectimax's leaves: mean ± SE (n)"]
        assert shown.startswith(f"{mean:.1f} ± ") and shown.endswith(f"(n={int(count)})"), (
            key,
            shown,
        )
    # and what is drawn: each panel's lines pass through its own condition's means
    from starbench.analysis.figures import leaves_by_k

    drawn = leaves_by_k(df, 7.16)
    panels = [ax for ax in drawn.figure.axes if ax.get_visible()]
    assert len(panels) == 4  # skew down the rows, the order along the columns
    tops = sorted(ax.get_title() for ax in panels if ax.get_title())
    assert tops == ["order=optimal", "order=random"]
    wanted = {
        (s, o): sorted(
            round(float(y), 9) for y in truth.xs((s, o), level=("skew", "ordering"))["mean"]
        )
        for s in truth.index.get_level_values("skew").unique()
        for o in order_name.values()
    }
    matched = []
    for ax in panels:
        lines = [ln for ln in ax.get_lines() if len(ln.get_ydata())]
        got = sorted(round(float(y), 9) for ln in lines for y in ln.get_ydata())
        matched += [key for key, want in wanted.items() if want == got]
    assert sorted(matched) == sorted(wanted)  # each panel its own condition's means, once


def test_pooling_only_when_asked_and_then_named(sweep, tmp_path, capsys):
    assert (
        cli.main(
            [
                "plot",
                str(sweep),
                "--out",
                str(tmp_path),
                "--figure",
                "leaves_by_k",
                "--pool",
                "skew",
            ]
        )
        == 0
    )
    md = (tmp_path / "leaves_by_k.md").read_text()
    assert "pooled (1/2, 1/4)" in md
    assert cli.main(["plot", str(sweep), "--out", str(tmp_path), "--pool", "colour"]) == 2
    assert "--pool colour: not a condition" in capsys.readouterr().err
    assert cli.main(["plot", str(sweep), "--out", str(tmp_path), "--figure", "leaves_by_x"]) == 2
    err = capsys.readouterr().err
    assert "--figure leaves_by_x: no such figure (valid: leaves_by_branching" in err


def test_many_k_never_make_a_legend_entry_per_k(sweep):
    """The sweep has k = 0..3 for two Star2.5 variants: a categorical figure (ordering) then
    draws k on the x axis, one hue per variant, the orderings as panels."""
    from starbench.analysis.figures import ordering_effect

    drawn = ordering_effect(load_results(sweep), 7.16)
    legend = drawn.figure.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["star2.5-cyclic", "star2.5-sequential"]
    titles = {ax.get_title() for ax in drawn.figure.axes if ax.get_visible()}
    assert "order=optimal" in titles, titles
    labels = {ax.get_xlabel() for ax in drawn.figure.axes if ax.get_visible()}
    assert labels == {"probing factor k", ""}  # the bottom row's


def test_the_bands_are_seaborns_bootstrap_to_the_last_bit():
    """``bootstrap_band`` (the figures' ``errorbar``) gives what seaborn's ``errorbar=("ci",
    95)`` with ``n_boot=N_BOOT`` and ``seed=BOOTSTRAP_SEED`` gives, NaNs included, so the bands
    of every committed figure are unchanged; and the tables' ``bootstrap_ci`` equals it."""
    from seaborn.algorithms import bootstrap

    from starbench.analysis.data import BOOTSTRAP_SEED, N_BOOT, bootstrap_band, bootstrap_ci

    rng = np.random.default_rng(3)
    for n in (*range(2, 40), 99, 100, 101, 257):
        x = rng.exponential(size=n) * 100
        if n % 7 == 0:
            x[rng.integers(0, n)] = np.nan
        boots = bootstrap(x, func="mean", n_boot=N_BOOT, seed=BOOTSTRAP_SEED)
        want = tuple(float(v) for v in np.nanpercentile(boots, [2.5, 97.5]))
        assert bootstrap_band(x) == want, n
        if n % 7:
            assert bootstrap_ci(x) == want, n


@pytest.mark.slow
def test_format_and_size_narrow_the_images_and_never_the_tables(results, tmp_path, capsys):
    """``--format`` and ``--size`` (repeatable) choose the images; the .md, .tex and .csv
    tables are written whatever they are; a bad value is one line, exit 2."""
    from starbench.commands import cli

    base = ["plot", str(results), "--figure", "leaves_by_algorithm", "--out"]
    assert cli.main([*base, str(tmp_path / "a"), "--format", "png", "--size", "single"]) == 0
    assert sorted(f.name for f in (tmp_path / "a").iterdir()) == [
        "leaves_by_algorithm-single.png",
        "leaves_by_algorithm.csv",
        "leaves_by_algorithm.md",
        "leaves_by_algorithm.tex",
    ]
    both = ["--format", "pdf", "--format", "png", "--size", "double", "--size", "single"]
    assert cli.main([*base, str(tmp_path / "b"), *both]) == 0
    images = sorted(f.name for f in (tmp_path / "b").iterdir() if f.suffix in (".png", ".pdf"))
    assert images == [
        f"leaves_by_algorithm-{s}.{e}" for s in ("double", "single") for e in ("pdf", "png")
    ]
    # a figure is laid out once for every format: its PNG is the same with or without its PDF
    png = "leaves_by_algorithm-single.png"
    assert (tmp_path / "a" / png).read_bytes() == (tmp_path / "b" / png).read_bytes()
    capsys.readouterr()
    for flag, value in (("--format", "jpg"), ("--size", "triple")):
        assert cli.main([*base, str(tmp_path / "c"), flag, value]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"argument {flag}: invalid choice: '{value}'" in err, err
    assert not (tmp_path / "c").exists()


def test_plot_imports_seaborn_without_scipy_stats_and_scipy_still_imports_after():
    """``starbench plot`` imports seaborn with ``scipy.stats`` and ``scipy.cluster`` hidden (a
    second of import it never uses); both import normally afterwards (the decision figures'
    bootstrap intervals use ``scipy.stats``)."""
    code = (
        "import sys; from starbench.commands.cli import _seaborn_without_scipy_stats as f; f()\n"
        "assert 'seaborn' in sys.modules and 'scipy.stats' not in sys.modules\n"
        "from starbench.ground.statistics import mean_interval\n"
        "print(mean_interval([1.0, 2.0, 3.5, 0.2])); import scipy.cluster.hierarchy"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "(1.675, 0.6, 2.875)", p.stderr


def test_plot_help_lists_every_figure_with_a_line():
    """``plot --help`` names every figure kind (``analysis.catalog``, read without matplotlib)."""
    from starbench.commands.catalog import FIGURE_HELP

    assert list(FIGURE_HELP) == list(FIGURES)
    out = subprocess.run(
        [sys.executable, "-m", "starbench", "plot", "--help"], capture_output=True, text=True
    )
    assert all(name in out.stdout for name in FIGURES)


def test_the_timing_figure_never_pools_two_engines_and_counts_each_panel(results):
    """Rows of one cell timed on two engines (a cell grown across the engine threshold before
    engine=auto kept its engine): the timing figure draws each engine in its own panels and its
    table a row per engine; each panel's n is the points it draws (here all its searches)."""
    df = load_results(results)
    df = df[df["status"].isin(["ok", "unverified"])].copy()
    df["engine"] = ["compiled" if i % 2 else "python" for i in range(len(df))]
    drawn = FIGURES["seconds_vs_nodes"](df, 7.16)
    try:
        assert set(drawn.table["engine"]) == {"compiled", "python"}
        figures = [f for _suffix, f in drawn.figures]
        heads = " ".join(
            [ax.get_title() for f in figures for ax in f.axes]
            + [t.get_text() for f in figures for ax in f.axes for t in ax.texts]
            + [suffix for suffix, _f in drawn.figures]
        )
        assert "compiled" in heads and "python" in heads
        counts = []
        for ax in (ax for f in figures for ax in f.axes):
            for t in ax.texts:
                if t.get_text().startswith("n = "):  # n: the points this panel draws
                    n = int(t.get_text().removeprefix("n = ").split(" of ")[0])
                    assert n == sum(len(c.get_offsets()) for c in ax.collections)
                    counts.append(n)
        assert sum(counts) == len(df) and max(counts) < len(df)
    finally:
        __import__("matplotlib.pyplot").pyplot.close("all")


def test_a_sampled_timing_panel_says_n_is_what_it_draws(results, monkeypatch):
    """Where a panel holds more searches of an algorithm than it draws (``SHOWN``), its n is the
    points drawn, with how many searches it holds."""
    from starbench.analysis import figures

    monkeypatch.setattr(figures, "SHOWN", 3)
    drawn = FIGURES["seconds_vs_nodes"](load_results(results), 7.16)
    try:
        for ax in (ax for _s, f in drawn.figures for ax in f.axes):
            for t in ax.texts:
                if t.get_text().startswith("n = "):
                    shown, held = t.get_text().removeprefix("n = ").split(" of ")
                    assert int(shown) == sum(len(c.get_offsets()) for c in ax.collections)
                    assert int(shown) < int(held)
    finally:
        __import__("matplotlib.pyplot").pyplot.close("all")
