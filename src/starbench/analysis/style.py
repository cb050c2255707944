"""One look for every figure: a fixed colour and marker per algorithm, paper widths, fonts."""

from __future__ import annotations

from typing import Any

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
