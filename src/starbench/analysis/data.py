"""Reading stored tables for analysis, and the derived quantities every figure uses.

``percent_leaves`` pairs every row with expectimax's row on the same tree (same cell and
instance) and gives ``100 * leaves / expectimax leaves``; the mean over instances is Ballard's
"percent of leaves examined".  Standard errors are ``sd / sqrt(n)`` over instances; confidence
bands are 95% bootstrap intervals of the mean with a fixed seed.  ``by_level`` spreads the
counters per level (``*_by_level``) into one row per level; ``percent_by_level`` pairs each level
with expectimax's at that level.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starbench.errors import InputError
from starbench.search.stats import LEVEL_FIELDS
from starbench.trees.regular import RegularTreeSpec

TREE_COLUMNS = tuple(f.name for f in fields(RegularTreeSpec))
CELL_COLUMNS = (*TREE_COLUMNS, "seed", "exact")
BOOTSTRAP_SEED = 0
N_BOOT = 1000


class PlotError(InputError):
    """Results that cannot be analysed (one line: what is missing)."""


def load_results(path: Path, *, refuse_mismatch: bool = True) -> pd.DataFrame:
    """Every ``table.parquet`` below ``path`` (or the one parquet file ``path``), concatenated,
    with ``label`` and the pairing column ``_pair`` (for the figures).

    Refuses a folder without tables, and (``refuse_mismatch``) tables with mismatched values."""
    path = Path(path)
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = sorted(path.rglob("table.parquet"))
    else:
        raise PlotError(f"{path}: no such file or folder")
    if not files:
        raise PlotError(f"{path}: no result tables (table.parquet) below this folder")
    from starbench.record import tablefile

    frames = []
    for f in files:
        try:
            frames.append(tablefile.read(f))
        except tablefile.CorruptTable as e:  # a damaged table is refused, never plotted
            raise PlotError(str(e)) from None
    return prepared(pd.concat(frames, ignore_index=True), path, refuse_mismatch)


def prepared(df: pd.DataFrame, path: Path, refuse_mismatch: bool = True) -> pd.DataFrame:
    """A concatenation of stored tables as the figures read it (``load_results``): checked,
    with the columns added later at their old values, ``label`` and the pairing ``_pair``."""
    path = Path(path)
    for col in ("algorithm", "status", "instance"):
        if col not in df.columns:
            raise PlotError(f"{path}: the tables have no column {col!r}")
    bad = df[df["status"] == "mismatch"]
    if len(bad) and refuse_mismatch:
        raise PlotError(
            f"{path}: {len(bad)} rows have mismatched values (status mismatch), e.g. "
            f"{bad.iloc[0]['algorithm']} on instance {bad.iloc[0]['instance']}: rerun or fix "
            f"before plotting"
        )
    # columns added after tables were stored, at the value they had then
    for col, default in (("pool", 0), ("tt", 0), ("tt_chance", False), ("tt_probe", False)):
        if col not in df.columns:
            df[col] = default
        elif col != "pool" or "branching" in df.columns:
            df[col] = df[col].fillna(default)
    for col in LEVEL_FIELDS:  # the counters per level: missing in tables stored before them
        if col not in df.columns:
            df[col] = None
    if "skew_text" in df.columns:  # figures show skew as its exact text ("1/3", not 0.333)
        df["skew"] = df["skew_text"].where(df["skew_text"].notna(), df["skew"].astype(str))
    df["label"] = labels(df)
    df.attrs["path"] = str(path if path.is_dir() else path.parent)  # files stored beside
    # what pairs a row with expectimax's on the same tree: its cell, whatever is pooled later
    if "cell" in df.columns:
        df["_pair"] = df["cell"].astype(str)
    else:
        present = [c for c in CELL_COLUMNS if c in df.columns]
        df["_pair"] = df[present].astype(str).agg("|".join, axis=1) if present else ""
    return df


def pool(
    df: pd.DataFrame, columns: list[str], allowed: tuple[str, ...]
) -> tuple[pd.DataFrame, str]:
    """Average over the conditions in ``columns`` (asked for with ``--pool``): each becomes one
    constant value naming what it pools, and the note to print on the figure."""
    df = df.copy()
    notes = []
    for c in columns:
        raw = ("ordering", "outcome_order") if c == "order" else (c,)
        if c not in allowed or any(r not in df.columns for r in raw):
            raise PlotError(
                f"--pool {c}: not a condition of these tables (allowed: {', '.join(allowed)})"
            )
        values = df[list(raw)].astype(str).agg("/".join, axis=1)
        shown = ", ".join(sorted(values.unique()))
        for r in raw:
            df[r] = f"pooled ({shown})"
        notes.append(f"{c} pooled over {shown}")
    return df, "; ".join(notes)


def labels(df: pd.DataFrame) -> pd.Series:
    """``star2.5-cyclic k=2``, ``star2 research``: the algorithm with its non-default params
    (``k`` where set, ``research``, ``no-full-probe``, ``tt=N``, ``tt-chance``, ``tt-probe`` and
    ``tt-deeper`` where on; sparse sampling's ``c=``, MCTS's ``iterations=`` and a seed other
    than 0, its ``exploration=`` where not 1.4; ChanceProbCut's ``t=`` and ``r=`` where not 1)."""
    if not len(df):
        return pd.Series(dtype=str)
    missing = pd.Series(None, index=df.index, dtype=object)

    def column(name: str) -> pd.Series:
        return df[name] if name in df.columns else missing

    out = df["algorithm"].astype(str)
    k = pd.to_numeric(column("k"))
    out = out.where(k.isna(), out + " k=" + k.fillna(0).astype(int).astype(str))
    out = out.where(column("after_probe") != "research", out + " research")
    full = column("probe_full_window")
    out = out.where(full.isna() | full.fillna(True).astype(bool), out + " no-full-probe")
    tt = pd.to_numeric(column("tt"))
    out = out.where(tt.isna() | (tt == 0), out + " tt=" + tt.fillna(0).astype(int).astype(str))
    chance = column("tt_chance")
    out = out.where(chance.isna() | ~chance.fillna(False).astype(bool), out + " tt-chance")
    probe = column("tt_probe")
    out = out.where(probe.isna() | ~probe.fillna(False).astype(bool), out + " tt-probe")
    out = out.where(column("tt_depth") != "deeper", out + " tt-deeper")
    for name, short in (("samples", "c"), ("mcts_iterations", "iterations"), ("mcts_seed", "seed")):
        v = pd.to_numeric(column(name))
        if name == "mcts_seed":  # the seed only where it is not the default
            v = v.where(v != 0)
        out = out.where(v.isna(), out + f" {short}=" + v.fillna(0).astype(int).astype(str))
    # MCTS's exploration constant where not its default 1.4; ChanceProbCut's r where not 1,
    # its t always (inf as "inf")
    for name, default in (("exploration", 1.4), ("r", 1), ("t", None)):
        v = pd.to_numeric(column(name))
        text = v.map(lambda x: "" if pd.isna(x) else f"{x:g}")
        out = out.where(v.isna() | (v == default), out + f" {name}=" + text)
    return out


def require(df: pd.DataFrame, *columns: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise PlotError(f"the table has no column {missing[0]!r}")


def percent_leaves(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of non-expectimax algorithms with ``pct_leaves`` and ``pct_nodes`` relative to
    expectimax on the same tree."""
    require(df, "leaves", "nodes", *CELL_COLUMNS)
    ok = df[df["status"].isin(["ok", "unverified"])]
    keys = ["_pair", "instance"] if "_pair" in df.columns else [*CELL_COLUMNS, "instance"]
    is_ex = ok["algorithm"] == "expectimax"
    if "tt" in ok.columns:  # the reference is expectimax without a table; with one it is compared
        table = ok["tt"].fillna(0).astype(int) > 0
        other = ok[~is_ex | table]
        is_ex = is_ex & ~table
    else:
        other = ok[~is_ex]
    ex = ok[is_ex][[*keys, "leaves", "nodes"]]
    if not len(ex):
        raise PlotError("the tables have no expectimax rows to compare with")
    ex = ex.rename(columns={"leaves": "ex_leaves", "nodes": "ex_nodes"})
    m = other.merge(ex, on=keys, how="inner")
    m["pct_leaves"] = 100.0 * m["leaves"].astype(float) / m["ex_leaves"].astype(float)
    m["pct_nodes"] = 100.0 * m["nodes"].astype(float) / m["ex_nodes"].astype(float)
    return m


def by_level(df: pd.DataFrame) -> pd.DataFrame:
    """The counters per level in long form: one row per (table row, level) with ``level`` and
    ``nodes``, ``leaves``, ``cutoffs``, ``probes`` at that level, beside the row's other columns
    (the lists themselves dropped).  Rows without the counters (stored before them, or a search
    that did not finish) are left out."""
    import json

    have = df[df["nodes_by_level"].notna()] if "nodes_by_level" in df.columns else df.iloc[:0]
    rest = have.drop(columns=[c for c in LEVEL_FIELDS if c in have.columns])
    parts: dict[str, list[Any]] = {"_row": [], "level": []}
    names = [f.removesuffix("_by_level") for f in LEVEL_FIELDS]
    for name in names:
        parts[name] = []
    for i, row in zip(have.index, have[list(LEVEL_FIELDS)].itertuples(index=False), strict=True):
        lists = [json.loads(x) for x in row]
        parts["_row"] += [i] * len(lists[0])
        parts["level"] += list(range(len(lists[0])))
        for name, values in zip(names, lists, strict=True):
            parts[name] += values
    long = pd.DataFrame(parts)
    out = rest.loc[long["_row"]].reset_index(drop=True)
    for c in ("level", *names):
        out[c] = long[c].to_numpy()
    return out


def percent_by_level(df: pd.DataFrame) -> pd.DataFrame:
    """``by_level`` of the non-expectimax rows with ``pct_nodes`` and ``pct_leaves``: each
    level's nodes and leaves as a percent of expectimax's at that level on the same tree (NaN
    where expectimax has none there, e.g. leaves above a regular tree's last level)."""
    require(df, "nodes_by_level", *CELL_COLUMNS)
    ok = df[df["status"].isin(["ok", "unverified"])]
    long = by_level(ok)
    keys = ["_pair", "instance"] if "_pair" in long.columns else [*CELL_COLUMNS, "instance"]
    is_ex = long["algorithm"] == "expectimax"
    if "tt" in long.columns:  # the reference is expectimax without a table (percent_leaves)
        table = long["tt"].fillna(0).astype(int) > 0
        other = long[~is_ex | table]
        is_ex = is_ex & ~table
    else:
        other = long[~is_ex]
    ex = long[is_ex][[*keys, "level", "nodes", "leaves"]]
    if not len(ex):
        raise PlotError("the tables have no expectimax rows with counters per level")
    ex = ex.rename(columns={"nodes": "ex_nodes", "leaves": "ex_leaves"})
    m = other.merge(ex, on=[*keys, "level"], how="inner")
    m["pct_nodes"] = 100.0 * m["nodes"].astype(float) / m["ex_nodes"].astype(float)
    ex_leaves = m["ex_leaves"].astype(float).where(m["ex_leaves"] > 0)
    m["pct_leaves"] = 100.0 * m["leaves"].astype(float) / ex_leaves
    return m


def _resampled_means(x: np.ndarray, seed: int, mean: Any = np.mean) -> np.ndarray:
    """The means of ``N_BOOT`` resamples of ``x`` (one generator seeded ``seed``, one draw)."""
    rng = np.random.default_rng(seed)
    return mean(x[rng.integers(0, len(x), (N_BOOT, len(x)))], axis=1)


def bootstrap_ci(values: np.ndarray, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """95% bootstrap interval of the mean (fixed seed, 1000 resamples)."""
    values = np.asarray(values, float)
    if len(values) < 2:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(_resampled_means(values, seed), [2.5, 97.5])
    return float(lo), float(hi)


def bootstrap_band(values: Any) -> tuple[float, float]:
    """A figure's band: the 95% bootstrap interval of the mean, as seaborn's ``errorbar=("ci",
    95)`` with ``n_boot=N_BOOT`` and ``seed=BOOTSTRAP_SEED`` computes it, to the last bit (the
    same generator, draws and percentiles; NaN-aware as seaborn is), but drawn in one numpy call
    instead of seaborn's loop of one call per resample (``tests/test_plot.py`` compares them).
    seaborn calls it (``errorbar=bootstrap_band``) only for groups of two or more values."""
    x = np.asarray(values, float)
    mean = np.nanmean if np.isnan(x).any() else np.mean  # seaborn switches as its data asks
    lo, hi = np.nanpercentile(_resampled_means(x, BOOTSTRAP_SEED, mean), [2.5, 97.5])
    return float(lo), float(hi)


def mean_se(v: pd.Series, digits: int = 1, se_digits: int | None = None) -> str:
    """``mean ± standard error`` of ``v`` as text (``-`` when empty; the SE is nan for one
    value), with ``digits`` decimals (``se_digits`` for the SE, default the same)."""
    v = v.astype(float)
    if not len(v):
        return "-"
    se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
    return f"{v.mean():.{digits}f} ± {se:.{digits if se_digits is None else se_digits}f}"


def summarise(m: pd.DataFrame, by: list[str], value: str = "pct_leaves") -> pd.DataFrame:
    """Mean, standard error, n and bootstrap interval of ``value`` per group."""
    rows = []
    # only the grouping columns and the value are sliced per group (a results table has ~80)
    for key, g in m[list(dict.fromkeys([*by, value]))].groupby(by, sort=True, dropna=False):
        v = g[value].astype(float).to_numpy()
        se = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")
        lo, hi = bootstrap_ci(v)
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "mean": float(v.mean()),
                "se": se,
                "n": len(v),
                "ci_lo": lo,
                "ci_hi": hi,
            }
        )
    return pd.DataFrame(rows)
