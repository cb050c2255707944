#!/usr/bin/env python3
"""Regenerate every figure and table of the README and of experiments/ from results/.

No search is run: only the committed tables under results/<study>/ are read.  For each study
folder it writes experiments/<study>/figures/ (every figure the data supports, PDF and PNG at
single and double column width, with Markdown and LaTeX tables) and the study's own tables
(published numbers beside ours) into experiments/<study>/.

    python scripts/make_figures.py [--results results] [--experiments experiments]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from starbench.analysis import PlotError, load_results, plot
from starbench.analysis.studies import STUDY_TABLES
from starbench.experiment.storage import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(ROOT / "results"))
    ap.add_argument("--experiments", default=str(ROOT / "experiments"))
    args = ap.parse_args(argv)
    results, experiments = Path(args.results), Path(args.experiments)
    studies = sorted(p for p in results.iterdir() if p.is_dir() and any(p.rglob("table.parquet")))
    if not studies:
        print(f"no study tables under {results}", file=sys.stderr)
        return 2
    for study in studies:
        out = experiments / study.name
        written = plot(study, out / "figures", warn=lambda line: None)
        print(f"{study.name}: {len(written)} figure files")
        df = load_results(study)
        for name, table in STUDY_TABLES.get(study.name, []):
            try:
                atomic_write_text(out / name, table(df))
                print(f"{study.name}: {name}")
            except PlotError as e:
                print(f"{study.name}: skipped {name}: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
