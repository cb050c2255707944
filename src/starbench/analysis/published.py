"""Published figures quoted beside ours: one file, ``experiments/published.csv``.

Every number a study quotes from a paper lives there, once: its study, a quantity name, the
value as the paper gives it, and the source (paper, table or page).  The study tables read it
(``value``), and the claims test checks every prose sentence that quotes a published number
against it (``experiments/<study>/claims.yaml``, entries with ``published:``).  Values are kept
as text, so ``35.0`` stays ``35.0`` and ``57`` stays a whole percent.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

from starbench.analysis.data import PlotError

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = ROOT / "experiments" / "published.csv"
COLUMNS = ("study", "quantity", "value", "source")


@functools.lru_cache(maxsize=4)
def table(path: Path = PUBLISHED) -> dict[tuple[str, str], tuple[str, str]]:
    """(study, quantity) -> (value text, source), from ``path``."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise PlotError(f"{path}: cannot read the published figures ({e.strerror})") from None
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for i, r in enumerate(rows, 2):
        if tuple(r) != COLUMNS or not all(r.get(c) for c in COLUMNS):
            raise PlotError(f"{path}:{i}: a row needs {', '.join(COLUMNS)}")
        key = (r["study"], r["quantity"])
        if key in out:
            raise PlotError(f"{path}:{i}: {r['study']} {r['quantity']} is listed twice")
        out[key] = (r["value"], r["source"])
    return out


def text(study: str, quantity: str) -> str:
    """A published value as the paper writes it."""
    try:
        return table()[(study, quantity)][0]
    except KeyError:
        raise PlotError(f"{PUBLISHED}: no published {quantity} for {study}") from None


def value(study: str, quantity: str) -> float:
    """A published value as a number."""
    return float(text(study, quantity))


def has(study: str, quantity: str) -> bool:
    return (study, quantity) in table()
