"""Every committed study figure table is what the committed results give today.

The study tables (``STUDY_TABLES``) and the generic figures' tables are recomputed by
``test_plot.test_committed_study_tables_regenerate_from_committed_results``; this recomputes the
study-specific figures' tables (``STUDY_FIGURES``), which need the figure drawn.  The README
blocks quote these files verbatim (``test_plot``), so neither a README number nor a ``.md``
file can go stale."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from starbench.analysis import load_results  # noqa: E402
from starbench.analysis.plotting import RC, WIDTHS  # noqa: E402
from starbench.analysis.studies import MATCH_FIGURES, MATCH_TABLES, STUDY_FIGURES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("study", sorted(STUDY_FIGURES))
def test_study_figure_tables_recompute_from_the_committed_results(study):
    import matplotlib.pyplot as plt

    df = load_results(ROOT / "results" / study)
    out = ROOT / "experiments" / study / "figures"
    with plt.rc_context(RC):
        for name, draw in STUDY_FIGURES[study]:
            _, table = draw(df, WIDTHS["single"])
            plt.close("all")
            assert table == (out / f"{name}.md").read_text(), f"{study}/{name}.md is stale"


@pytest.mark.parametrize("study", sorted(MATCH_TABLES))
def test_a_match_study_s_tables_and_figure_tables_recompute_from_its_matches(study):
    """A study of matches only (``MATCH_TABLES``, ``MATCH_FIGURES``): its tables and its
    figures' tables are what its committed matches give."""
    import matplotlib.pyplot as plt

    results = ROOT / "results" / study
    if not results.exists():
        pytest.skip(f"no committed results for {study}")
    out = ROOT / "experiments" / study
    for name, table in MATCH_TABLES[study]:
        assert table(results) == (out / name).read_text(), f"{study}/{name} is stale"
    with plt.rc_context(RC):
        for name, draw in MATCH_FIGURES.get(study, []):
            _, table = draw(results, WIDTHS["single"])
            plt.close("all")
            assert table == (out / "figures" / f"{name}.md").read_text(), f"{study}/{name}.md"
