"""Tables beside the figures, as Markdown and LaTeX: every cell with its n and standard error."""

from __future__ import annotations

import math

import pandas as pd

from starbench.analysis.figures import NAMES


def _cell(row: pd.Series, digits: int) -> str:
    se = row["se"]
    se_text = (
        "-" if se is None or (isinstance(se, float) and math.isnan(se)) else f"{se:.{digits + 1}f}"
    )
    return f"{row['mean']:.{digits}f} ± {se_text} (n={int(row['n'])})"


def _digits(value: str) -> int:
    return 1 if "percent" in value else 3


def _columns(s: pd.DataFrame) -> list[str]:
    return [c for c in s.columns if c not in ("mean", "se", "n", "ci_lo", "ci_hi", "ebf")]


def markdown(s: pd.DataFrame, value: str) -> str:
    cols = _columns(s)
    d = _digits(value)
    head = [NAMES.get(c, c) for c in cols] + [f"{value}: mean ± SE (n)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, row in s.iterrows():
        lines.append("| " + " | ".join([str(row[c]) for c in cols] + [_cell(row, d)]) + " |")
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
    d = _digits(value)
    head = [_tex(NAMES.get(c, c)) for c in cols] + [_tex(f"{value}: mean $\\pm$ SE (n)")]
    lines = [
        "\\begin{tabular}{" + "l" * len(cols) + "r}",
        "\\hline",
        " & ".join(head) + " \\\\",
        "\\hline",
    ]
    for _, row in s.iterrows():
        cell = _cell(row, d).replace("±", "$\\pm$")
        lines.append(" & ".join([_tex(str(row[c])) for c in cols] + [cell]) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines) + "\n"
