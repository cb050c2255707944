#!/usr/bin/env python3
"""Regenerate every figure and table of the README and of experiments/ from results/.

No search is run: only the committed tables under results/<study>/ are read.  For each study
folder it writes experiments/<study>/figures/ (every figure the data supports, PDF and PNG at
single and double column width, with Markdown and LaTeX tables) and the study's own tables
(published numbers beside ours) into experiments/<study>/.  In experiments/<study>/README.md and
the top-level README.md every block between ``<!-- BEGIN path -->`` and ``<!-- END path -->``
is replaced by the file at that path (relative to the repository), so the tables quoted there
are always the regenerated ones.

    python scripts/make_figures.py [--results results] [--experiments experiments]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from starbench.analysis import PlotError, load_results, plot  # noqa: E402
from starbench.analysis.figures import FIGURES  # noqa: E402
from starbench.analysis.plotting import RC, WIDTHS, lay_out, save  # noqa: E402
from starbench.analysis.studies import (  # noqa: E402
    MATCH_FIGURES,
    MATCH_TABLES,
    STUDY_FIGURES,
    STUDY_TABLES,
)
from starbench.ground.files import atomic_write_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


BLOCK = re.compile(r"(<!-- BEGIN (\S+) -->\n)(.*?)(<!-- END \2 -->)", re.S)


def fill_blocks(readme: Path, root: Path) -> bool:
    """Replace every marked block of ``readme`` by the file it names; True if it changed."""
    if not readme.exists():
        return False
    text = readme.read_text(encoding="utf-8")

    def repl(m: re.Match[str]) -> str:
        source = root / m.group(2)
        if not source.exists():
            print(
                f"{readme.name}: {m.group(2)} does not exist yet, block left as it is",
                file=sys.stderr,
            )
            return m.group(0)
        return m.group(1) + source.read_text(encoding="utf-8") + m.group(4)

    new = BLOCK.sub(repl, text)
    if new != text:
        atomic_write_text(readme, new)
    return new != text


def own_outputs(study: str, data: object, tables: list, figures: list, out: Path) -> None:
    """A study's own tables (``function(data)``) and figures (``function(data, width)`` ->
    (figure, its Markdown table)), from ``data``: its rows, or for a study of matches only its
    folder; one that the data does not support is skipped with one line."""
    for name, table in tables:
        try:
            atomic_write_text(out / name, table(data))
            print(f"{study}: {name}")
        except PlotError as e:
            print(f"{study}: skipped {name}: {e}", file=sys.stderr)
    for name, draw in figures:
        try:
            with plt.rc_context(RC):
                for width_name, width in WIDTHS.items():
                    fig, table = draw(data, width)
                    lay_out(fig)
                    for ext in ("pdf", "png"):
                        save(fig, out / "figures" / f"{name}-{width_name}.{ext}")
                    plt.close(fig)
            atomic_write_text(out / "figures" / f"{name}.md", table)
            print(f"{study}: figures/{name}")
        except PlotError as e:
            print(f"{study}: skipped {name}: {e}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(ROOT / "results"))
    ap.add_argument("--experiments", default=str(ROOT / "experiments"))
    ap.add_argument(
        "--only", nargs="+", metavar="STUDY", help="remake these studies' figures and tables only"
    )
    args = ap.parse_args(argv)
    results, experiments = Path(args.results), Path(args.experiments)
    studies = sorted(
        p
        for p in results.iterdir()
        if p.is_dir() and (any(p.rglob("table.parquet")) or p.name in MATCH_TABLES)
    )
    if args.only:
        unknown = set(args.only) - {s.name for s in studies}
        if unknown:
            print(f"--only: no study {', '.join(sorted(unknown))} under {results}", file=sys.stderr)
            return 2
        studies = [s for s in studies if s.name in args.only]
    if not studies:
        print(f"no study tables under {results}", file=sys.stderr)
        return 2
    for study in studies:
        out = experiments / study.name
        if study.name in MATCH_TABLES:  # a study of matches only: its own tables and figures
            figures = MATCH_FIGURES.get(study.name, [])
            own_outputs(study.name, study, MATCH_TABLES[study.name], figures, out)
            continue
        try:
            written = plot(study, out / "figures", warn=lambda line: None)
            print(f"{study.name}: {len(written)} figure files")
        except PlotError as e:  # e.g. every row stopped by its budget: only the study's own
            written = []
            print(f"{study.name}: no generic figures: {e}", file=sys.stderr)
        drawn = {p.name for p in written}
        for name in FIGURES:  # a generic figure these tables no longer support: its old files go
            for stale in sorted((out / "figures").glob(f"{name}[.-]*")):
                if stale.name not in drawn:
                    stale.unlink()
                    print(f"{study.name}: removed stale figures/{stale.name}")
        df = load_results(study)
        tables, figures = STUDY_TABLES.get(study.name, []), STUDY_FIGURES.get(study.name, [])
        own_outputs(study.name, df, tables, figures, out)
    if experiments.resolve() == (ROOT / "experiments").resolve():
        docs = sorted((ROOT / "docs").rglob("*.md"))
        for readme in [ROOT / "README.md", *docs, *sorted(experiments.glob("*/README.md"))]:
            if fill_blocks(readme, ROOT):
                print(f"updated {readme.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
