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


def _columns(s: pd.DataFrame) -> list[str]:
    return [c for c in s.columns if c not in ("mean", "se", "n", "ci_lo", "ci_hi", "ebf")]


def markdown(s: pd.DataFrame, value: str) -> str:
    cols = _columns(s)
    head = [NAMES.get(c, c) for c in cols] + [f"{value}: mean ± SE (n)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
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
