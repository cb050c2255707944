"""``starbench plot RESULTS [--out DIR]``: every figure the stored tables support.

Each figure is written as PDF and PNG at single- and double-column width
(``<name>-single.pdf`` ...; a design split by a third condition gives one figure per value,
``<name>-<key>-<value>-single.pdf``), with its numbers as ``<name>.md``, ``<name>.tex`` and
``<name>.csv``; ``differences.*`` gives the paired differences between algorithms.  Every file
names where its numbers come from (``provenance``: the study, its cells and the commit they were
computed at) in its metadata or first line.  PDFs carry no creation date, so reruns are
byte-identical.  Nothing is searched: only tables are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from starbench.analysis.data import PlotError, load_results, pool
from starbench.analysis.figures import DRAW, ERRORBAR, FIGURES, SHARE_Y
from starbench.analysis.layout import declutter
from starbench.analysis.style import RC, STUDY, WIDTHS, study_styles
from starbench.analysis.tables import csv, differences, latex, markdown
from starbench.ground.files import atomic_write, atomic_write_text
from starbench.record import columns

METADATA = {"pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None}}
#: The image formats ``starbench plot`` writes (``--format``, repeatable; default both).
FORMATS = ("pdf", "png")


@dataclass(frozen=True)
class Provenance:
    """Where a figure's numbers come from: the study (the results folder's name), the cells
    (their digests) and the commits their rows were computed at."""

    study: str
    cells: tuple[str, ...]
    commits: tuple[str, ...]

    @classmethod
    def of(cls, df: Any, results: Path) -> Provenance:
        path = Path(results)
        name = path.name if path.is_dir() else path.parent.name
        if "name" in df.columns and df["name"].notna().nunique() == 1:
            name = str(df["name"].dropna().iloc[0])
        cells = sorted(df["cell"].dropna().astype(str).unique()) if "cell" in df.columns else []
        commits = []
        if "git_commit" in df.columns:
            for commit, g in df.groupby(df["git_commit"].astype(str), sort=True):
                dirty = "git_dirty" in g.columns and bool(g["git_dirty"].fillna(False).any())
                commits.append(f"{commit}{' (uncommitted changes)' if dirty else ''}")
        return cls(name, tuple(cells), tuple(commits))

    def text(self) -> str:
        return (
            f"starbench study {self.study}; cells {' '.join(self.cells) or '-'}; commit "
            f"{', '.join(self.commits) or 'unknown'}"
        )

    def metadata(self, ext: str, title: str) -> dict[str, Any]:
        """The image file's metadata: its title and where its numbers come from."""
        if ext == "pdf":
            return {**METADATA["pdf"], "Title": title, "Subject": self.text()}
        return {**METADATA["png"], "Title": title, "Description": self.text()}


def save(fig: plt.Figure, path: Path, metadata: dict[str, Any] | None = None) -> None:
    ext = path.suffix[1:]
    meta = metadata if metadata is not None else METADATA[ext]
    atomic_write(path, lambda p: fig.savefig(p, format=ext, metadata=meta))


def lay_out(fig: plt.Figure) -> None:
    """The figure's layout, once for every format it is saved in: its layout engine (constrained)
    runs here and is then switched off, so that each ``savefig`` draws without laying the figure
    out again (a third of a save's time); a figure looks the same in every format asked."""
    engine = fig.get_layout_engine()
    if engine is None:
        return
    dpi, saved = fig.dpi, plt.rcParams["savefig.dpi"]
    fig.dpi = dpi if saved == "figure" else saved  # as savefig lays out: at the saved dpi
    try:
        declutter(fig)  # lays it out, and again until no text collides
    finally:
        fig.dpi = dpi
    fig.set_layout_engine("none")


def unplotted(df: pd.DataFrame) -> None:
    """``PlotError`` (one line) where the tables hold two values of a tree parameter that is no
    figure condition (``record.columns.unplotted``): drawn, its values would be pooled without a
    word."""
    for c in columns.unplotted():
        if c in df.columns:
            values = sorted({str(v) for v in df[c].dropna().unique()})
            if len(values) > 1:
                raise PlotError(
                    f"tree.{c}: these tables hold {', '.join(values)}, and no figure splits by "
                    f"it; plot the cells of each value apart (collect one folder per value)"
                )


@dataclass(frozen=True)
class Images:
    """The images ``plot`` writes of each figure: ``formats`` (of ``FORMATS``) at ``sizes`` (of
    ``WIDTHS``), every one by default; ``dpi``: the PNGs' resolution (default ``RC``'s 300; the
    tests draw at a low one where the image is not what they check)."""

    formats: tuple[str, ...] = FORMATS
    sizes: tuple[str, ...] = tuple(WIDTHS)
    dpi: int | None = None


def plot(
    results: Path,
    out: Path,
    names: list[str] | None = None,
    warn: Callable[[str], None] = print,
    pooled: list[str] | None = None,
    images: Images | None = Images(),  # noqa: B008 - frozen
    share_y: bool = True,
) -> list[Path]:
    """Draw the figures (all, or ``names``) from the tables under ``results`` into ``out``.

    Every condition that varies in the tables is on a figure's axis or a panel; ``pooled``
    names conditions to average over instead, and the figures and tables say so.
    ``images``: the images to write (``Images``); None writes only each figure's tables (.md,
    .tex, .csv), not its PDF and PNG; the tables are written whatever the images are;
    ``share_y=False`` gives each panel its own y range."""
    formats = FORMATS if images is None else images.formats
    sizes = tuple(WIDTHS) if images is None else images.sizes
    dpi = None if images is None else images.dpi
    unknown = [n for n in names or [] if n not in FIGURES]
    if unknown:
        raise PlotError(f"--figure {unknown[0]}: no such figure (valid: {', '.join(FIGURES)})")
    for flag, asked, valid in (("--format", formats, FORMATS), ("--size", sizes, tuple(WIDTHS))):
        bad = [v for v in asked if v not in valid]
        if bad or not asked:
            raise PlotError(f"{flag}: must be one of {', '.join(valid)}, got {bad[:1] or 'none'}")
    df = load_results(Path(results))
    unplotted(df)
    origin = Provenance.of(df, Path(results))
    note = ""
    if pooled:
        df, note = pool(df, pooled, columns.conditions())
    out = Path(out)
    written: list[Path] = []
    bands = ERRORBAR.set(ERRORBAR.get() if images else None)
    shared = SHARE_Y.set(share_y)
    drawing = DRAW.set(images is not None)
    looks = STUDY.set(study_styles(sorted(df["label"].astype(str).unique())))
    try:
        with plt.rc_context({**RC, **({"savefig.dpi": dpi} if dpi else {})}):
            for name, draw in FIGURES.items():
                if names is None or name in names:
                    try:
                        written += _figure(name, draw, df, out, note, images, origin)
                    except PlotError as e:
                        warn(f"starbench: skipped figure {name}: {e}")
                    finally:
                        plt.close("all")
            if names is None:
                written += _differences(df, out, origin, warn)
    finally:
        ERRORBAR.reset(bands)
        SHARE_Y.reset(shared)
        DRAW.reset(drawing)
        STUDY.reset(looks)
    if not written:
        raise PlotError(f"{results}: no figure could be drawn from these tables")
    return written


def _figure(
    name: str,
    draw: Callable[[Any, float], Any],
    df: Any,
    out: Path,
    note: str,
    images: Images | None,
    origin: Provenance | None = None,
) -> list[Path]:
    """One figure kind: its figures in each asked format at each asked width (none if
    ``images`` is None), and its tables."""
    sizes = tuple(WIDTHS) if images is None else images.sizes
    formats = () if images is None else images.formats
    written: list[Path] = []
    drawn = None
    for width_name in [w for w in WIDTHS if w in sizes]:
        drawn = draw(df, WIDTHS[width_name])
        for suffix, fig in drawn.figures:
            if images is None:
                plt.close(fig)
                continue
            if note:
                above = fig.get_suptitle()
                fig.suptitle(f"{above}; {note}" if above else note, fontsize="small")
            lay_out(fig)
            title = f"{name}{suffix}" + (f" ({fig.get_suptitle()})" if fig.get_suptitle() else "")
            for ext in [f for f in FORMATS if f in formats]:
                path = out / f"{name}{suffix}-{width_name}.{ext}"
                meta = origin.metadata(ext, title) if origin is not None else None
                save(fig, path, meta)
                written.append(path)
            plt.close(fig)
        if images is None:
            break  # the tables do not depend on the width
    assert drawn is not None
    source = origin.text() if origin is not None else ""
    atomic_write_text(out / f"{name}.md", markdown(drawn.table, drawn.value, source))
    atomic_write_text(out / f"{name}.tex", latex(drawn.table, drawn.value, source))
    atomic_write_text(out / f"{name}.csv", csv(drawn.table, origin))
    return [*written, out / f"{name}.md", out / f"{name}.tex", out / f"{name}.csv"]


def _differences(df: Any, out: Path, origin: Provenance, warn: Callable[[str], None]) -> list[Path]:
    """The study's ``differences`` tables (``tables.differences``), where it has two
    algorithms besides expectimax on the same trees."""
    try:
        table = differences(df)
    except PlotError as e:
        warn(f"starbench: skipped table differences: {e}")
        return []
    value = "difference of percent of expectimax's leaves (A - B, same trees)"
    source = origin.text()
    atomic_write_text(out / "differences.md", markdown(table, value, source))
    atomic_write_text(out / "differences.tex", latex(table, value, source))
    atomic_write_text(out / "differences.csv", csv(table, origin))
    return [out / f"differences.{ext}" for ext in ("md", "tex", "csv")]
