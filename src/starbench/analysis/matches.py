"""Tables and figures of the matches stored in a study folder (``<study>/<match>/match.parquet``,
written by ``starbench match --out``; ``starbench.match`` defines the columns).

Per match and side: games, wins, the win rate with its 95 % Wilson interval
(``starbench.oracles.decisions.binomial_interval``, ``scipy.stats.binomtest``), overall and by
seat, and the mean nodes and depth per move over the side's own decisions
(``starbench.match.per_move``).  A match is named by its folder.  Only stored tables are read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from starbench.analysis.data import PlotError


def stored(folder: Path) -> list[tuple[str, pd.DataFrame]]:
    """(folder name, table) of each match stored under ``folder``, in name order (a damaged
    table is refused, never tabulated)."""
    from starbench.analysis.decisions import matches

    paths = sorted(Path(folder).glob("*/match.parquet"))
    return [(p.parent.name, t) for p, t in zip(paths, matches(folder), strict=True)]


def sides(folder: Path) -> pd.DataFrame:
    """One row per side of every match under ``folder``: ``match`` (its folder), ``game``,
    ``who`` (0 or 1), ``player`` (the spec), ``games``, ``wins``, ``rate``, ``lo``, ``hi``,
    ``first_rate``, ``first_lo``, ``first_hi``, ``second_rate``, ``second_lo``,
    ``second_hi``, ``nodes`` and ``depth`` per move (``depth`` None for a table stored before
    the column)."""
    from starbench.analysis.decisions import json_game
    from starbench.match import per_move
    from starbench.oracles.decisions import binomial_interval

    rows: list[dict[str, Any]] = []
    for name, df in stored(folder):
        n = len(df)
        for who in (0, 1):
            wins = int((df["winner"] == who).sum())
            lo, hi = binomial_interval(wins, n)
            row = {
                "match": name,
                "game": json_game(folder, df),
                "who": who,
                "player": str(df[f"player{who}"].iloc[0]),
                "games": n,
                "wins": wins,
                "rate": wins / n,
                "lo": lo,
                "hi": hi,
                "nodes": per_move(df, who),
                "depth": per_move(df, who, "depth"),
            }
            for seat, first in (("first", True), ("second", False)):
                sub = df[(df["first_player"] == who) == first]
                w = int((sub["winner"] == who).sum())
                a, b = binomial_interval(w, len(sub))
                row |= {f"{seat}_rate": w / len(sub), f"{seat}_lo": a, f"{seat}_hi": b}
            rows.append(row)
    if not rows:
        raise PlotError(f"no match under {folder}")
    return pd.DataFrame(rows)


def matches_table(folder: Path, name_column: bool = False) -> str:
    """Markdown: each side of each match under ``folder`` (``sides``); ``name_column`` adds the
    match's folder name as the first column."""
    from starbench.match import depth_text

    s = sides(folder)
    head = (
        "| game | player | games | wins | win rate [95% CI] | as first player | as second "
        "player | nodes per move | depth per move |"
    )
    rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    if name_column:
        head, rule = "| match " + head, "|---" + rule
    lines = [head, rule]

    def rate(r: Any, prefix: str = "") -> str:
        return f"{r[prefix + 'rate']:.3f} [{r[prefix + 'lo']:.3f}, {r[prefix + 'hi']:.3f}]"

    for _, r in s.iterrows():
        lines.append(
            ("| " + r["match"] + " " if name_column else "")
            + f"| {r['game']} | `{r['player']}` | {r['games']} | {r['wins']} | {rate(r)} | "
            f"{rate(r, 'first_')} | {rate(r, 'second_')} | {r['nodes']:.0f} | "
            f"{depth_text(r['depth'])} |"
        )
    return "\n".join(lines) + "\n"


def win_rate_figure(folder: Path, width: float) -> tuple[Any, str]:
    """Two panels, one line per match (its folder name): player 1's win rate with its
    95 % Wilson interval (a dashed line at one half), and both sides' mean nodes per move
    (logarithmic).  Returns (figure, Markdown table of the plotted values)."""
    import matplotlib.pyplot as plt

    s = sides(folder)
    names = list(dict.fromkeys(s["match"]))
    second = s[s["who"] == 1].set_index("match").loc[names]
    first = s[s["who"] == 0].set_index("match").loc[names]
    y = list(range(len(names)))[::-1]
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(width, 0.9 + 0.32 * len(names)), sharey=True, layout="constrained"
    )
    err = [second["rate"] - second["lo"], second["hi"] - second["rate"]]
    left.errorbar(second["rate"], y, xerr=err, fmt="o", color="C1", capsize=2, ms=4)
    left.axvline(0.5, color="0.5", ls="--", lw=0.8)
    left.set_yticks(y, names)
    left.set_xlabel("player 1 wins (95% CI)")
    right.scatter(first["nodes"], y, marker="s", color="C0", s=16, label="player 0")
    right.scatter(second["nodes"], y, marker="o", color="C1", s=16, label="player 1")
    right.set_xscale("log")
    right.set_xlabel("nodes per move")
    fig.legend(fontsize="small", loc="outside lower center", ncol=2)
    lines = [
        "| match | player 1 | win rate | 95% CI | player 0 nodes/move | player 1 nodes/move |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for m in names:
        a, b = second.loc[m], first.loc[m]
        lines.append(
            f"| {m} | `{a['player']}` | {a['rate']:.3f} | [{a['lo']:.3f}, {a['hi']:.3f}] | "
            f"{b['nodes']:.0f} | {a['nodes']:.0f} |"
        )
    return fig, "\n".join(lines) + "\n"
