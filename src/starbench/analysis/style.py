"""One look for every figure: one colour, marker and line style per algorithm label across a
study, paper widths, fonts.

The colours are Okabe and Ito's colour-blind-safe palette (then Paul Tol's muted one for more
labels); each label of a study also has its own marker and line style, so that the algorithms
are told apart in grayscale too.  ``study_styles`` gives every label of a study its style once,
before any figure is drawn (``starbench plot`` sets ``STUDY``): a label has the same look in
every figure of the study, whatever subset of labels a figure shows.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, NamedTuple

# The backend is the user's: importing starbench.analysis does not switch it (``starbench plot``
# and scripts/make_figures.py, which only write files, choose Agg themselves).

#: Figure widths in inches (single column and double column of a two-column paper).
WIDTHS = {"single": 3.5, "double": 7.16}
HEIGHT_RATIO = 0.72

#: Colour and marker of each algorithm (the label's first word), the same in every figure.
STYLES: dict[str, tuple[str, str]] = {
    "expectimax": ("#000000", "o"),
    "minimax": ("#555555", "o"),
    "alphabeta": ("#777777", "x"),
    "star1": ("#0072B2", "s"),
    "star2": ("#E69F00", "^"),
    "star2 research": ("#CC79A7", "v"),
    "star2 research no-full-probe": ("#56B4E9", "<"),
    "star2.5-cyclic": ("#009E73", "D"),
    "star2.5-sequential": ("#D55E00", "P"),
}
_FALLBACK = [("#56B4E9", "*"), ("#F0E442", "h"), ("#999999", "X")]
#: Styles for labels of one figure that would otherwise look alike (``distinct``).
_EXTRA = [
    ("#882255", ">"),
    ("#117733", "p"),
    ("#332288", "d"),
    ("#999933", "8"),
    ("#44AA99", "H"),
    ("#AA4499", "*"),
    ("#DDCC77", "X"),
    ("#88CCEE", "h"),
]

RC: dict[str, Any] = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.2,
    "lines.markersize": 4,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "savefig.dpi": 300,
    "pdf.fonttype": 42,
    "svg.hashsalt": "starbench",
}


class Style(NamedTuple):
    """A label's look: colour, marker and line style (a matplotlib dash pattern name)."""

    color: str
    marker: str
    line: str


#: Line styles, in the order labels take them (with the markers, they tell labels apart in
#: grayscale).
LINES = ("-", "--", ":", "-.")
#: seaborn's dash patterns of ``LINES`` (``lineplot(dashes=...)``).
DASHES = {"-": "", "--": (4, 1.5), ":": (1, 1.5), "-.": (4, 1.5, 1, 1.5)}
#: The styles of the labels of the study being drawn (``study_styles``); empty: each figure
#: styles its own labels.
STUDY: ContextVar[dict[str, Style] | None] = ContextVar("study_styles", default=None)


def study_styles(labels: list[str]) -> dict[str, Style]:
    """Every label of a study its style: the algorithm's colour and marker (``style_of``), a
    label whose colour and marker an earlier one already has the first unused extra pair, and
    line styles in turn, so that no two labels share a colour, nor a marker and line style."""
    out: dict[str, Style] = {}
    used_pairs: set[tuple[str, str]] = set()
    used_looks: set[tuple[str, str]] = set()
    for i, lab in enumerate(sorted(dict.fromkeys(labels))):
        color, marker = style_of(lab)
        if (color, marker) in used_pairs:
            color, marker = next(
                (x for x in _EXTRA + _FALLBACK if x not in used_pairs), (color, marker)
            )
        line = LINES[i % len(LINES)]
        if (marker, line) in used_looks:
            line = next((ln for ln in LINES if (marker, ln) not in used_looks), line)
        out[lab] = Style(color, marker, line)
        used_pairs.add((color, marker))
        used_looks.add((marker, line))
    return out


def styles(labels: list[str]) -> dict[str, Style]:
    """The styles of ``labels``: the study's (``STUDY``) where it has them, else their own."""
    study = STUDY.get() or {}
    if all(lab in study for lab in labels):
        return {lab: study[lab] for lab in labels}
    own = study_styles(labels)
    return {lab: study.get(lab, own[lab]) for lab in labels}


def distinct(labels: list[str]) -> dict[str, tuple[str, str]]:
    """Each label's ``style_of``, except that a label whose style an earlier one of the same
    figure already has gets the first unused extra style: no two lines of a figure look alike
    (``star2`` and ``star2 tt=20`` share the head ``star2``)."""
    out: dict[str, tuple[str, str]] = {}
    used: set[tuple[str, str]] = set()
    for lab in labels:
        st = style_of(lab)
        if st in used:
            st = next((x for x in _EXTRA + _FALLBACK if x not in used), st)
        out[lab] = st
        used.add(st)
    return out


def style_of(label: str) -> tuple[str, str]:
    """Colour and marker of an algorithm label such as ``star2.5-cyclic k=3``."""
    base = label.split(" k=")[0]
    if base in STYLES:
        return STYLES[base]
    head = base.split()[0]
    if head in STYLES:
        return STYLES[head]
    return _FALLBACK[sum(map(ord, base)) % len(_FALLBACK)]
