"""Tables beside the figures, as Markdown and LaTeX: every cell with its n and standard error."""

from __future__ import annotations

import math

import pandas as pd

from starbench.analysis.figures import NAMES


def _cell(row: pd.Series, value: str) -> str:
    se = row["se"]
    missing = se is None or (isinstance(se, float) and math.isnan(se))
    if "percent" in value:
        mean, se_text = f"{row['mean']:.1f}", "-" if missing else f"{se:.2f}"
    else:
        mean, se_text = f"{row['mean']:.4g}", "-" if missing else f"{se:.2g}"
    return f"{mean} ± {se_text} (n={int(row['n'])})"


STATS = ("mean", "se", "n", "ci_lo", "ci_hi", "ebf")


def _columns(s: pd.DataFrame, varying_only: bool = False) -> list[str]:
    cols = [c for c in s.columns if c not in STATS]
    if varying_only and len(s) > 1:
        keep = [c for c in cols if s[c].nunique(dropna=False) > 1 or c == "label"]
        return keep or cols
    return cols


def shared(s: pd.DataFrame) -> str:
    """The conditions every row shares, as one line (``markdown`` prints them above the table;
    the CSV and LaTeX tables keep them as columns)."""
    varying = set(_columns(s, varying_only=True))
    same = [c for c in _columns(s) if c not in varying]
    if not same or not len(s):
        return ""
    return "Every row: " + ", ".join(f"{NAMES.get(c, c)} {s[c].iloc[0]}" for c in same) + ".\n\n"


def csv(s: pd.DataFrame) -> str:
    """The figure table with every condition's parameters as columns, mean with one decimal
    for percentages."""
    out = s.copy()
    return out.to_csv(index=False, float_format="%.6g")


def markdown(s: pd.DataFrame, value: str) -> str:
    cols = _columns(s, varying_only=True)
    head = [NAMES.get(c, c) for c in cols] + [f"{value}: mean ± SE (n)"]
    lines = [shared(s) + "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, row in s.iterrows():
        lines.append("| " + " | ".join([str(row[c]) for c in cols] + [_cell(row, value)]) + " |")
    return "\n".join(lines) + "\n"


def _tex(text: str) -> str:
    return (
        text.replace("\\", "\\textbackslash{}")
        .replace("_", "\\_")
        .replace("%", "\\%")
        .replace("&", "\\&")
        .replace("#", "\\#")
    )


def latex(s: pd.DataFrame, value: str) -> str:
    cols = _columns(s)
    head = [_tex(NAMES.get(c, c)) for c in cols] + [_tex(f"{value}: mean $\\pm$ SE (n)")]
    lines = [
        "\\begin{tabular}{" + "l" * len(cols) + "r}",
        "\\hline",
        " & ".join(head) + " \\\\",
        "\\hline",
    ]
    for _, row in s.iterrows():
        cell = _cell(row, value).replace("±", "$\\pm$")
        lines.append(" & ".join([_tex(str(row[c])) for c in cols] + [cell]) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines) + "\n"
