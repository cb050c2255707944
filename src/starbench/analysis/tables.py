"""Tables beside the figures, as Markdown, LaTeX and CSV: every cell with its n and standard
error, the conditions by their config names and values as the user wrote them.

A condition that does not apply to a row's trees (``skew`` under uniform outcomes, say:
``RegularTreeSpec.inapplicable``) is ``-`` in Markdown and LaTeX and empty in CSV, and the line
above a Markdown table lists only the conditions every row shares that apply to the trees
(``full_pass_limit``, a memory limit of the compiled engine, is not one).  ``differences``
is the study's table of paired differences between algorithms: on the same trees, the
difference of their percent of expectimax's leaves, with its mean, standard error and 95 %
interval (Student's t over the trees).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Container
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd

from starbench.analysis.data import PlotError, percent_leaves
from starbench.analysis.figures import ORDERS, _facets, _prepare, _with_conditions, order_text
from starbench.analysis.layout import key_name, order_typed, typed, value_text
from starbench.trees.regular import RegularTreeSpec

STATS = ("mean", "se", "n", "ci_lo", "ci_hi", "ebf")
#: A not-applicable condition in Markdown and LaTeX.
NOT_APPLICABLE = "-"
_TREE = {f.name for f in fields(RegularTreeSpec)}
#: Conditions of a cell that do not change its trees (they are still columns of the tables).
ENGINE_ONLY = ("full_pass_limit",)
_RAW_ORDER = {v: k for k, v in ORDERS.items()}


def _cell(row: pd.Series, value: str) -> str:
    se = row["se"]
    missing = se is None or (isinstance(se, float) and math.isnan(se))
    if "percent" in value or "difference" in value:
        mean, se_text = f"{row['mean']:.1f}", "-" if missing else f"{se:.2f}"
    else:
        mean, se_text = f"{row['mean']:.4g}", "-" if missing else f"{se:.2g}"
    return f"{mean} ± {se_text} (n={int(row['n'])})"


def not_applicable(row: pd.Series) -> dict[str, str]:
    """The tree parameters of a table row that have no effect on its trees, each with what it
    needs to apply (a game's row: none)."""
    if "game" in row.index and isinstance(row.get("game"), str):
        return {}
    kw: dict[str, Any] = {}
    for c in row.index:
        v = row[c]
        if c in _TREE and not (v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v))):
            kw[c] = v
    order = row.get("order") if "order" in row.index else None
    if isinstance(order, str) and not order.startswith(("pooled", "moves:")):
        ordering, _, outcome = _RAW_ORDER.get(order, order).partition("/")
        kw.setdefault("ordering", ordering)
        if outcome:
            kw.setdefault("outcome_order", outcome)
    return dict(_needs(tuple(sorted(kw.items()))))


@functools.lru_cache(maxsize=4096)
def _needs(kw: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, str], ...]:
    """``RegularTreeSpec.inapplicable_needs`` of the tree parameters ``kw`` (cached: a table
    repeats a handful of specs over its rows, and each spec validates itself)."""
    try:
        return tuple(RegularTreeSpec(**dict(kw)).inapplicable_needs().items())
    except Exception:  # noqa: BLE001 - a row the spec cannot read: show every value
        return ()


def _text(row: pd.Series, c: str, inapplicable: Container[str], empty: str) -> str:
    """A condition's cell: ``empty`` where it does not apply; the ``order`` as the overrides
    that ask for it in Markdown and LaTeX (``empty`` given), as its name in the CSV."""
    if c in inapplicable:
        return empty
    v = row[c]
    if c == "order":
        return order_typed(v) if empty else value_text(order_text(v))
    return value_text(v) if empty else ("" if value_text(v) == "-" else value_text(v))


def _columns(s: pd.DataFrame, varying_only: bool = False) -> list[str]:
    cols = [c for c in s.columns if c not in STATS]
    if varying_only and len(s) > 1:
        keep = [c for c in cols if s[c].nunique(dropna=False) > 1 or c == "label"]
        return keep or cols
    return cols


def _inapplicable(s: pd.DataFrame) -> list[dict[str, str]]:
    return [not_applicable(row) for _, row in s.iterrows()]


def shared(s: pd.DataFrame, gone: list[dict[str, str]] | None = None) -> str:
    """The conditions every row shares, as one line of the overrides a user types
    (``markdown`` prints it above the table; the CSV and LaTeX tables keep them as columns):
    a condition that applies to none of the rows is left out, one that applies to some says
    where (``tree.weight_max=16 (where tree.distribution=random)``)."""
    varying = set(_columns(s, varying_only=True))
    gone = _inapplicable(s) if gone is None else gone
    same = [c for c in _columns(s) if c not in varying and c not in ENGINE_ONLY]
    if not same or not len(s):
        return ""
    first = s.iloc[0]
    parts = []
    for c in same:
        where = [g[c] for g in gone if c in g]
        if len(where) == len(gone):
            continue  # applies to no row
        text = typed(c, first[c])
        parts.append(f"{text} (where {where[0]})" if where else text)
    return "Every row: " + ", ".join(parts) + ".\n\n" if parts else ""


def csv(s: pd.DataFrame, origin: Any = None) -> str:
    """The figure table with every condition's parameters as columns (empty where one does not
    apply), and where the numbers come from (``study``, ``cells``, ``commit``)."""
    out = s.copy()
    gone = _inapplicable(s)
    rows = [row for _, row in s.iterrows()]
    for c in out.columns:
        if c in STATS or not (c in _TREE or c == "order"):
            continue
        out[c] = [_text(row, c, g, "") for row, g in zip(rows, gone, strict=True)]
    if origin is not None:
        out["study"] = origin.study
        out["cells"] = " ".join(origin.cells)
        out["commit"] = ", ".join(origin.commits)
    return out.to_csv(index=False, float_format="%.6g")


def markdown(s: pd.DataFrame, value: str, source: str = "") -> str:
    gone = _inapplicable(s)
    cols = _columns(s, varying_only=True)
    head = [key_name(c) for c in cols] + [f"{value}: mean ± SE (n)"]
    top = f"<!-- {source} -->\n" if source else ""
    lines = [top + shared(s, gone) + "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (_, row), g in zip(s.iterrows(), gone, strict=True):
        cells = [_text(row, c, g, NOT_APPLICABLE) for c in cols]
        lines.append("| " + " | ".join([*cells, _cell(row, value)]) + " |")
    return "\n".join(lines) + "\n"


def _tex(text: str) -> str:
    return (
        text.replace("\\", "\\textbackslash{}")
        .replace("_", "\\_")
        .replace("%", "\\%")
        .replace("&", "\\&")
        .replace("#", "\\#")
    )


def latex(s: pd.DataFrame, value: str, source: str = "") -> str:
    gone = _inapplicable(s)
    cols = _columns(s)
    head = [_tex(key_name(c)) for c in cols] + [_tex(f"{value}: mean $\\pm$ SE (n)")]
    lines = [
        *([f"% {source}"] if source else []),
        "\\begin{tabular}{" + "l" * len(cols) + "r}",
        "\\hline",
        " & ".join(head) + " \\\\",
        "\\hline",
    ]
    for (_, row), g in zip(s.iterrows(), gone, strict=True):
        cell = _cell(row, value).replace("±", "$\\pm$")
        texts = [_tex(_text(row, c, g, NOT_APPLICABLE)) for c in cols]
        lines.append(" & ".join([*texts, cell]) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def differences(df: pd.DataFrame) -> pd.DataFrame:
    """For each pair of algorithms (labels A, B; every pair, A before B in name order) in each
    condition: the paired difference of their percent of expectimax's leaves on the same trees
    (A - B, in points), its mean, standard error, n (trees both searched) and 95 % interval
    (Student's t with n - 1 degrees of freedom)."""
    from scipy import stats as st

    m = percent_leaves(_prepare(df))
    if m["label"].nunique() < 2:
        raise PlotError("needs two algorithms besides expectimax on the same trees")
    facets = _facets(m, ())
    keys = ["_pair", "instance"] if "_pair" in m.columns else ["instance"]
    rows = []
    groups = m.groupby(facets, sort=True, dropna=False) if facets else [((), m)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = g.pivot_table(index=keys, columns="label", values="pct_leaves", aggfunc="first")
        labels = sorted(wide.columns.astype(str))
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                d = (wide[a] - wide[b]).dropna().astype(float).to_numpy()
                n = len(d)
                if n == 0:
                    continue
                mean = float(d.mean())
                se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
                half = float(st.t.ppf(0.975, n - 1) * se) if n > 1 else float("nan")
                rows.append(
                    {
                        **dict(zip(facets, key, strict=True)),
                        "A": a,
                        "B": b,
                        "mean": mean,
                        "se": se,
                        "n": n,
                        "ci_lo": mean - half,
                        "ci_hi": mean + half,
                    }
                )
    if not rows:
        raise PlotError("no two algorithms searched the same trees")
    # every condition a column (those constant too), so each row reads whole
    return _with_conditions(pd.DataFrame(rows), m)
