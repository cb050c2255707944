"""Tables and figures of the matches stored in a study folder (``<study>/<match>/match.parquet``,
written by ``starbench match --out``; ``starbench.commands.match`` defines the columns).

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
    from starbench.record import tablefile
    from starbench.record.storage import read_json

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
    """Markdown: each side of each match under ``folder`` (``sides``), with the match's p-value
    of equal strength (``p_value``) and the same adjusted by Holm over the study's matches
    (``holm``: the chance that any of them calls a difference that is not there stays at most
    5 %); ``name_column`` adds the match's folder name as the first column."""
    head = (
        "| game | player | games | wins | win rate [95% CI] | as first player | as second "
        "player | per pair [95% CI] | nodes per move | depth per move | p | p (Holm) |"
    )
    rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if name_column:
        head, rule = "| match " + head, "|---" + rule
    found = stored(folder)
    raw = {name: p_value(df) for name, _game, df in found}
    adjusted = dict(zip(raw, holm(list(raw.values())), strict=True))
    tables = {name: df for name, _game, df in found}
    lines = [head, rule]
    for r in sides(folder).to_dict("records"):
        df = tables[r["match"]]
        pairs = "-"
        if paired(df):
            score, low, high, _n = score_interval(df, int(r["who"]))
            pairs = f"{score:.3f} [{low:.3f}, {high:.3f}]"
        lines.append(
            ("| " + r["match"] + " " if name_column else "")
            + f"| {r['game']} | `{r['player']}` | {r['games']} | {r['wins']} | {rate_text(r)} | "
            f"{rate_text(r, 'first_')} | {rate_text(r, 'second_')} | {pairs} | "
            f"{r['nodes']:.0f} | {depth_text(r['depth'])} | {raw[r['match']]:.2g} | "
            f"{adjusted[r['match']]:.2g} |"
        )
    note = (
        f"\nper pair: a paired match's score per pair (the same dice for both seatings; a "
        f"pair scores 0, 1/2 or 1), with its Student-t interval; p: two-sided, of equal "
        f"strength (an exact binomial test of the decisive games; a paired match: a sign test "
        f"of its pairs), one per match; p (Holm): adjusted over the {len(raw)} matches of this "
        f"table.\n"
    )
    return "\n".join(lines) + "\n" + note


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
    from starbench.ground.statistics import binomial_interval

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


def summary(df: Any, analysis: dict[str, Any] | None = None) -> str:
    """Each side's wins, win rate and 95 % Wilson interval, overall and by seat, and its nodes
    and depth per move (``side``); a paired match's score per pair with its interval beside the
    width an unpaired analysis of the same games gives; the p-value of equal strength; with a
    ``margin`` (``analysis``, as ``match.json`` stores it) the non-inferiority verdict, and a
    sequential match's looks and error rate."""
    from starbench.ground.textable import text_table

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
    text = text_table(lines) + f"\n{n} games, {draws} without a winner"
    analysis = analysis or {}
    level = analysis.get("level") or 1 - ALPHA
    score, low, high, k = score_interval(df, 1, level)
    if paired(df):
        text += (
            f"\npaired (the same dice for both seatings): player 1 scores {score:.3f} "
            f"[{low:.3f}, {high:.3f}] per pair over {k} pairs ({100 * level:g} %), an interval of "
            f"width {high - low:.3f}; an unpaired analysis of the same games: width "
            f"{unpaired_width(df, 1, level):.3f}"
        )
    test = "sign test of the pairs" if paired(df) else "exact binomial of the decisive games"
    text += f"\nequal strength: p = {p_value(df):.3g} (two-sided, {test})"
    if analysis.get("margin") is not None:
        text += "\n" + non_inferiority_line(df, float(analysis["margin"]), level)
    if analysis.get("sequential"):
        looks = analysis.get("looks_at") or []
        stopped = analysis.get("stopped_at")
        where = (
            f"stopped after {stopped} games, at look {looks.index(stopped) + 1} of {len(looks)}"
            if stopped in looks
            else f"no look decided it within the {n} games ({len(looks)} looks)"
        )
        text += (
            f"\nsequential: {where}; each look's interval at {100 * level:.3g} % (Bonferroni over "
            f"{len(looks)} looks): the chance of a wrong verdict is at most {100 * ALPHA:g} %"
        )
    return text


# --------------------------------------------------------------------------- verdicts
#: The error rate every verdict of a match is stated at (two-sided 95 % intervals).
ALPHA = 0.05


def paired(df: Any) -> bool:
    """Was the match played in pairs (the same dice for both seatings: ``match --paired``)?"""
    return "pair" in df and bool(df["pair"].notna().any())


def pair_scores(df: Any, who: int = 1) -> Any:
    """Player ``who``'s score in each complete pair of a paired match: its wins in the pair's
    two games over two (a game without a winner counts one half): 0, 1/2 or 1."""
    import numpy as np

    won = np.array((df["winner"] == who).fillna(False), dtype=float)
    won[np.array(df["winner"].isna(), dtype=bool)] = 0.5
    pairs = np.array(df["pair"].fillna(-1), dtype=np.int64)
    scores = []
    for p in sorted(set(pairs[pairs >= 0].tolist())):
        idx = np.flatnonzero(pairs == p)
        if len(idx) == 2:
            scores.append(won[idx].mean())
    return np.asarray(scores, dtype=float)


def score_interval(
    df: Any, who: int = 1, level: float = 1 - ALPHA
) -> tuple[float, float, float, int]:
    """(score, low, high, n) of player ``who``: in a paired match the mean score over the n
    complete pairs with the Student-t interval of the pair scores plus one lost and one won
    pair (``PSEUDO_PAIRS``), else the win rate over the n games with its Wilson interval (a
    game without a winner counts one half)."""
    from starbench.ground.statistics import binomial_interval

    if paired(df):
        s = pair_scores(df, who)
        if len(s) == 0:
            return float("nan"), float("nan"), float("nan"), 0
        low, high = pair_interval(s, level)
        return float(s.mean()), low, high, len(s)
    n = len(df)
    wins = float((df["winner"] == who).sum()) + 0.5 * float(df["winner"].isna().sum())
    lo, hi = binomial_interval(int(round(wins)), n, level) if n else (float("nan"),) * 2
    return (wins / n if n else float("nan")), lo, hi, n


def pair_interval(scores: Any, level: float = 1 - ALPHA) -> tuple[float, float]:
    """The interval of the mean of pair scores (each 0, 1/2 or 1): Student's t over the scores
    with ``PSEUDO_PAIRS`` added, clipped to [0, 1]."""
    import numpy as np
    from scipy import stats

    padded = np.concatenate([np.asarray(scores, dtype=float), PSEUDO_PAIRS])
    n = len(padded)
    half = float(stats.t.ppf((1 + level) / 2, n - 1) * padded.std(ddof=1) / np.sqrt(n))
    mean = float(padded.mean())
    return max(0.0, mean - half), min(1.0, mean + half)


#: The pairs a paired interval adds to the match's own: one lost, one won (in the spirit of
#: Agresti and Caffo's added successes and failures).  Without them a match whose pairs were
#: all split (or all won) would have an interval of width 0 whatever its length; with them the
#: interval covers the true score at least 95 % of the time in simulations of 5 to 200 pairs
#: (``tests/test_match_verdicts.py``).
PSEUDO_PAIRS = (0.0, 1.0)


def unpaired_width(df: Any, who: int = 1, level: float = 1 - ALPHA) -> float:
    """The width of the Wilson interval an unpaired analysis of the same games gives."""
    _score, low, high, _n = score_interval(df.drop(columns="pair"), who, level)
    return high - low


def non_inferiority(low: float, high: float, margin: float) -> str:
    """The verdict of a margin on player 1's score interval [low, high]: not worse by more than
    ``margin`` when the whole interval lies above one half less the margin; worse when it lies
    wholly below it; else undecided."""
    floor = 0.5 - margin
    if low > floor:
        return f"player 1 is not worse by more than {margin:g}"
    if high < floor:
        return "player 1 is worse"
    return "undecided"


def non_inferiority_line(df: Any, margin: float, level: float = 1 - ALPHA) -> str:
    """``non-inferiority (margin M, 95 %): VERDICT`` (``non_inferiority`` of player 1's interval
    at ``level``; the line states the verdict's own confidence, 95 % also for a sequential
    match, whose looks each use a stricter level)."""
    _score, low, high, _n = score_interval(df, 1, level)
    return f"non-inferiority (margin {margin:g}, {100 * (1 - ALPHA):g} %): " + non_inferiority(
        low, high, margin
    )


def p_value(df: Any) -> float:
    """The two-sided p-value of "the players are equally strong": an exact binomial test of
    player 1's wins among the decisive games (paired: a sign test of the pairs player 1 won
    against those it lost, split pairs left out)."""
    from scipy import stats

    if paired(df):
        s = pair_scores(df, 1)
        k, n = int((s > 0.5).sum()), int((s != 0.5).sum())
    else:
        decided = df["winner"].notna()
        k, n = int((df.loc[decided, "winner"] == 1).sum()), int(decided.sum())
    return float(stats.binomtest(k, n, 0.5).pvalue) if n else 1.0


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment of several p-values (each adjusted value is compared with
    the level itself): the family-wise error rate held over a study's tests."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def sequential_looks(cap: int, looks: int = 10, step: int = 1) -> list[int]:
    """The game counts at which a sequential match looks at its verdict: ``looks`` evenly
    spaced looks up to ``cap`` (multiples of ``step``: 2 in a paired match)."""
    out = []
    for k in range(1, looks + 1):
        n = max(step, int(round(cap * k / looks / step)) * step)
        if n not in out and n <= cap:
            out.append(n)
    return out


def sequential_level(looks: int, alpha: float = ALPHA) -> float:
    """Each look's interval level in a sequential match: ``1 - alpha / looks`` (Bonferroni over
    the looks: the chance that any look decides a verdict the truth contradicts is at most
    ``alpha``, whenever the match stops)."""
    return 1 - alpha / looks
