"""Tables and figures of the matches stored in a study folder (``<study>/<match>/match.parquet``,
written by ``starbench match --out``; ``starbench.match`` defines the columns).

Per match and side: games, wins, the win rate with its 95 % Wilson interval
(``starbench.oracles.decisions.binomial_interval``, ``scipy.stats.binomtest``), overall and by
seat, and the mean nodes and depth per move over the side's own decisions
(``per_move``).  A match is named by its folder.  Only stored tables are read.  The same
statistics make ``starbench match``'s summary (``summary``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from starbench.analysis.data import PlotError


def stored(folder: Path) -> list[tuple[str, str, pd.DataFrame]]:
    """(folder name, game, table) of each match stored under ``folder``, in name order: the
    game from the match's own ``match.json`` (``?`` when it cannot be read); a damaged table is
    refused (InputError), never tabulated."""
    from starbench.errors import InputError
    from starbench.experiment import tablefile
    from starbench.experiment.storage import read_json

    out = []
    for p in sorted(Path(folder).glob("*/match.parquet")):
        try:
            table = tablefile.read(p)
        except tablefile.CorruptTable as e:
            raise InputError(str(e)) from None
        request = read_json(p.parent / "match.json")
        out.append((p.parent.name, str(request["game"]) if request else "?", table))
    return out


def sides(folder: Path) -> pd.DataFrame:
    """One row per side of every match under ``folder``: ``match`` (its folder), ``game``,
    ``who`` (0 or 1) and the side's record (``side``: ``player``, ``games``,
    ``wins``, ``rate``, ``lo``, ``hi``, the same by seat, ``nodes`` and ``depth`` per move;
    ``depth`` None for a table stored before the column)."""
    rows = [
        {"match": name, "game": game, "who": who, **side(df, who)}
        for name, game, df in stored(folder)
        for who in (0, 1)
    ]
    if not rows:
        raise PlotError(f"no match under {folder}")
    return pd.DataFrame(rows)


def matches_table(folder: Path, name_column: bool = False) -> str:
    """Markdown: each side of each match under ``folder`` (``sides``); ``name_column`` adds the
    match's folder name as the first column."""
    head = (
        "| game | player | games | wins | win rate [95% CI] | as first player | as second "
        "player | nodes per move | depth per move |"
    )
    rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    if name_column:
        head, rule = "| match " + head, "|---" + rule
    lines = [head, rule]
    for r in sides(folder).to_dict("records"):
        lines.append(
            ("| " + r["match"] + " " if name_column else "")
            + f"| {r['game']} | `{r['player']}` | {r['games']} | {r['wins']} | {rate_text(r)} | "
            f"{rate_text(r, 'first_')} | {rate_text(r, 'second_')} | {r['nodes']:.0f} | "
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


def per_move(df: Any, who: int, column: str = "nodes") -> float | None:
    """Player ``who``'s mean ``nodes`` (or ``depth``) per move over the games of ``df``: the
    column's sum over its own decisions (``moves{who}``).  A table stored before those columns
    (pig-decisions' and pig-inexact's committed matches) has only ``moves``, the decisions of
    both: half of them stands in for each side's, and its depth is None."""
    if f"{column}{who}" not in df:
        return None
    own = df[f"moves{who}"].sum() if f"moves{who}" in df else df["moves"].sum() / 2
    return float(df[f"{column}{who}"].sum() / own) if own else 0.0


def depth_text(depth: float | None) -> str:
    return "-" if depth is None else f"{depth:.2f}"


def side(df: Any, who: int) -> dict[str, Any]:
    """Player ``who``'s record over the games of ``df``: ``player`` (its spec), ``games``,
    ``wins``, ``rate`` with its 95 % Wilson interval ``lo``, ``hi``; the same as the first and
    as the second player (``first_rate``, ``first_lo``, ... ``second_hi``; None without a game
    in that seat); ``nodes`` and ``depth`` per move (``per_move``)."""
    from starbench.oracles.decisions import binomial_interval

    def record(games: Any, prefix: str = "") -> dict[str, Any]:
        if not len(games):
            return {f"{prefix}rate": None, f"{prefix}lo": None, f"{prefix}hi": None}
        w = int((games["winner"] == who).sum())
        lo, hi = binomial_interval(w, len(games))
        return {f"{prefix}rate": w / len(games), f"{prefix}lo": lo, f"{prefix}hi": hi}

    first = df["first_player"] == who
    return {
        "player": str(df[f"player{who}"].iloc[0]),
        "games": len(df),
        "wins": int((df["winner"] == who).sum()),
        **record(df),
        **record(df[first], "first_"),
        **record(df[~first], "second_"),
        "nodes": per_move(df, who),
        "depth": per_move(df, who, "depth"),
    }


def rate_text(r: dict[str, Any], prefix: str = "") -> str:
    """``0.517 [0.486, 0.548]``: a ``side`` record's rate and interval (``-`` for none)."""
    if r[f"{prefix}rate"] is None:
        return "-"
    return f"{r[prefix + 'rate']:.3f} [{r[prefix + 'lo']:.3f}, {r[prefix + 'hi']:.3f}]"


def summary(df: Any) -> str:
    """Each side's wins, win rate and 95 % Wilson interval, overall and by seat, and its nodes
    and depth per move (``side``)."""
    from starbench.textable import text_table

    n = len(df)
    lines = [
        (
            "player",
            "spec",
            "wins",
            "win rate [95% CI]",
            "as first",
            "as second",
            "nodes/move",
            "depth/move",
        )
    ]
    for who in (0, 1):
        r = side(df, who)
        lines.append(
            (
                str(who),
                r["player"],
                str(r["wins"]),
                rate_text(r),
                rate_text(r, "first_"),
                rate_text(r, "second_"),
                f"{r['nodes']:.0f}",
                depth_text(r["depth"]),
            )
        )
    draws = int(df["winner"].isna().sum())
    return text_table(lines) + f"\n{n} games, {draws} without a winner"
