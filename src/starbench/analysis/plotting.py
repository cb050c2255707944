"""``starbench plot RESULTS [--out DIR]``: every figure the stored tables support.

Each figure is written as PDF and PNG at single- and double-column width
(``<name>-single.pdf`` ...), with its numbers as ``<name>.md`` and ``<name>.tex``.  PDFs carry no
creation date, so reruns are byte-identical.  Nothing is searched: only tables are read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from starbench.analysis.data import PlotError, load_results, pool
from starbench.analysis.figures import CONDITIONS, ERRORBAR, FIGURES, SHARE_Y
from starbench.analysis.style import RC, WIDTHS
from starbench.analysis.tables import csv, latex, markdown
from starbench.files import atomic_write, atomic_write_text

METADATA = {"pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None}}
#: The image formats ``starbench plot`` writes (``--format``, repeatable; default both).
FORMATS = ("pdf", "png")


def save(fig: plt.Figure, path: Path) -> None:
    ext = path.suffix[1:]
    atomic_write(path, lambda p: fig.savefig(p, format=ext, metadata=METADATA[ext]))


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
        engine.execute(fig)
    finally:
        fig.dpi = dpi
    fig.set_layout_engine("none")


def plot(
    results: Path,
    out: Path,
    names: list[str] | None = None,
    warn: Callable[[str], None] = print,
    pooled: list[str] | None = None,
    images: bool = True,
    share_y: bool = True,
    formats: tuple[str, ...] = FORMATS,
    sizes: tuple[str, ...] = tuple(WIDTHS),
    dpi: int | None = None,
) -> list[Path]:
    """Draw the figures (all, or ``names``) from the tables under ``results`` into ``out``.

    Every condition that varies in the tables is on a figure's axis or a panel; ``pooled``
    names conditions to average over instead, and the figures and tables say so.
    ``images=False`` writes only each figure's tables (.md, .tex, .csv), not its PDF and PNG;
    ``share_y=False`` gives each panel its own y range; ``formats`` (of ``FORMATS``) and
    ``sizes`` (of ``WIDTHS``) choose the images written (every one by default); the tables are
    written whatever they are; ``dpi``: the PNGs' resolution (default ``RC``'s 300; the tests
    draw at a low one where the image is not what they check)."""
    unknown = [n for n in names or [] if n not in FIGURES]
    if unknown:
        raise PlotError(f"--figure {unknown[0]}: no such figure (valid: {', '.join(FIGURES)})")
    for flag, asked, valid in (("--format", formats, FORMATS), ("--size", sizes, tuple(WIDTHS))):
        bad = [v for v in asked if v not in valid]
        if bad or not asked:
            raise PlotError(f"{flag}: must be one of {', '.join(valid)}, got {bad[:1] or 'none'}")
    df = load_results(Path(results))
    note = ""
    if pooled:
        df, note = pool(df, pooled, CONDITIONS)
    out = Path(out)
    written: list[Path] = []
    bands = ERRORBAR.set(ERRORBAR.get() if images else None)
    shared = SHARE_Y.set(share_y)
    try:
        with plt.rc_context({**RC, **({"savefig.dpi": dpi} if dpi else {})}):
            for name, draw in FIGURES.items():
                if names is None or name in names:
                    try:
                        written += _figure(name, draw, df, out, note, images, formats, sizes)
                    except PlotError as e:
                        warn(f"starbench: skipped figure {name}: {e}")
                    finally:
                        plt.close("all")
    finally:
        ERRORBAR.reset(bands)
        SHARE_Y.reset(shared)
    if not written:
        raise PlotError(f"{results}: no figure could be drawn from these tables")
    return written


def _figure(
    name: str,
    draw: Callable[[Any, float], Any],
    df: Any,
    out: Path,
    note: str,
    images: bool,
    formats: tuple[str, ...] = FORMATS,
    sizes: tuple[str, ...] = tuple(WIDTHS),
) -> list[Path]:
    """One figure: each asked format at each asked width (none if ``images`` is False), and its
    tables."""
    written: list[Path] = []
    drawn = None
    for width_name in [w for w in WIDTHS if w in sizes]:
        drawn = draw(df, WIDTHS[width_name])
        if note:
            drawn.figure.suptitle(note, fontsize="small")
        if not images:
            plt.close(drawn.figure)
            break  # the tables do not depend on the width
        lay_out(drawn.figure)
        for ext in [f for f in FORMATS if f in formats]:
            path = out / f"{name}-{width_name}.{ext}"
            save(drawn.figure, path)
            written.append(path)
        plt.close(drawn.figure)
    assert drawn is not None
    atomic_write_text(out / f"{name}.md", markdown(drawn.table, drawn.value))
    atomic_write_text(out / f"{name}.tex", latex(drawn.table, drawn.value))
    atomic_write_text(out / f"{name}.csv", csv(drawn.table))
    return [*written, out / f"{name}.md", out / f"{name}.tex", out / f"{name}.csv"]
