"""Every committed study table and figure table is what the committed results give today.

The README blocks quote the generated ``.md`` files verbatim (``test_plot``); this recomputes
those files from ``results/<study>/`` (no search, no figure file written), so neither a README
number nor a ``.md`` file can go stale."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from starbench.analysis import load_results  # noqa: E402
from starbench.analysis.figures import FIGURES  # noqa: E402
from starbench.analysis.plot import RC, WIDTHS  # noqa: E402
from starbench.analysis.studies import STUDY_FIGURES, STUDY_TABLES  # noqa: E402
from starbench.analysis.tables import markdown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STUDIES = sorted(
    p.name for p in (ROOT / "results").iterdir() if p.is_dir() and any(p.rglob("table.parquet"))
)


@pytest.mark.parametrize("study", STUDIES)
def test_study_tables_recompute_from_the_committed_results(study):
    import matplotlib.pyplot as plt

    df = load_results(ROOT / "results" / study)
    out = ROOT / "experiments" / study
    checked = 0
    for name, table in STUDY_TABLES.get(study, []):
        if (out / name).exists():
            assert table(df) == (out / name).read_text(), f"{study}/{name} is stale"
            checked += 1
    with plt.rc_context(RC):
        for name, draw in FIGURES.items():
            md = out / "figures" / f"{name}.md"
            if not md.exists():
                continue
            drawn = draw(df, WIDTHS["single"])
            plt.close("all")
            assert markdown(drawn.table, drawn.value) == md.read_text(), f"{md} is stale"
            checked += 1
        for name, draw in STUDY_FIGURES.get(study, []):
            md = out / "figures" / f"{name}.md"
            if md.exists():
                _, table = draw(df, WIDTHS["single"])
                plt.close("all")
                assert table == md.read_text(), f"{md} is stale"
                checked += 1
    assert checked > 0
