"""Every column of the tidy table, declared once: its name, dtype, meaning, group and what kind
of quantity it is.  Everything else that names columns is a view of ``DECLARED``:

* ``rows.FIELDS`` (what a search produces, the journal's fields): the columns with ``journal``;
* the table's order and dtypes (``rows.table_dtypes``): the declaration's order;
* ``rows.SUMMARY_COLUMNS`` (what ``summary`` reads back): ``summary``;
* the results two runs of the same search must share (``OUTCOMES``: replay compares them, and a
  journal line that differs from the verified table's row in one is forged): groups ``outcome``,
  ``counter`` and ``level``, but not what ``varies``;
* ``NONDETERMINISTIC``: what differs between two runs of the same search (CPU and wall time,
  the date, the machine), left out wherever tables are compared;
* the docs' columns page (``commands.reference``): ``doc``;
* the figures' conditions (``conditions``): the columns with a ``condition`` rank, in that order.

The counters come from the search statistics' own fields (``search.stats.SearchStats``, each
with its doc and place as field metadata), the tree parameters from the tree spec's fields
(``trees.regular.RegularTreeSpec``: dtype from the type, doc from ``help``, the figures' rank
from ``condition``).  A column with ``derive`` is computed from the other columns of its row
when the table is written (one declaration adds a derived column to every table).

An undeclared field cannot reach a table unseen: ``tests/test_columns.py`` checks that every
``SearchStats`` field and tree parameter is declared, and a tree parameter that is no figure
condition is refused by ``plot`` where a table holds two values of it (``unplotted``).
"""

# ruff: noqa: E501 (the declaration is a table: one column a line)
from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from starbench.search.stats import SearchStats
from starbench.trees.regular import RegularTreeSpec

#: The groups, in the order the docs' page explains them.
GROUPS = {
    "request": "what was asked: the algorithm and its parameters",
    "outcome": "what the search returned",
    "counter": "what the search counted (``search.stats``)",
    "level": "what the search counted per level (with ``levels_detail=true``)",
    "timing": "how long it took",
    "check": "how the value was checked",
    "tree": "the tree's parameters (``tree.*``)",
    "game": "the game's keys (game cells)",
    "decision": "the quality of the chosen move (``starbench.oracles``)",
    "run": "what the run shared: budgets, the cell, the seed, the arithmetic",
    "meta": "where and when the row was computed",
}


@dataclass(frozen=True)
class Column:
    """One column: ``name``, its pandas ``dtype``, its meaning (``doc``), its ``group``
    (``GROUPS``); ``journal``: a search produces it (stored per row in the journal);
    ``table``: it is a column of the table (the journal's ``run_status`` and ``root_values``
    are not); ``varies``: two runs of the same search may differ in it; ``summary``: the
    summary reads it back; ``condition``: its rank among the figures' conditions (None: no
    condition); ``derive``: computed from the row's other columns when the table is written."""

    name: str
    dtype: str
    doc: str
    group: str
    journal: bool = False
    table: bool = True
    varies: bool = False
    summary: bool = False
    condition: int | None = None
    derive: Callable[[dict[str, Any]], Any] | None = None


def _col(name: str, dtype: str, group: str, doc: str, **kw: Any) -> Column:
    return Column(name, dtype, doc, group, **kw)


def _counters(lead: bool) -> tuple[Column, ...]:
    """The counters of ``SearchStats`` whose metadata puts them among the leading columns
    (``lead``) or after the game's columns."""
    return tuple(
        Column(f.name, "Int64", f.metadata["doc"], "counter", journal=True,
               summary=f.metadata.get("summary", False))
        for f in fields(SearchStats)
        if f.metadata.get("lead", False) == lead
    )  # fmt: skip


_KINDS = {int: "Int64", float: "float64", bool: "boolean", str: "str"}


def _tree_parameters() -> tuple[Column, ...]:
    """A column per tree parameter: dtype from its type (or its ``column_dtype``), doc from its
    ``help``, figure rank from its ``condition``."""
    hints = typing.get_type_hints(RegularTreeSpec)
    return tuple(
        Column(
            f.name,
            f.metadata.get("column_dtype") or _KINDS.get(hints[f.name], "object"),
            f"tree parameter: {f.metadata.get('help', '')}",
            "tree",
            condition=f.metadata.get("condition"),
        )
        for f in fields(RegularTreeSpec)
    )


#: Every column, in the table's order (the journal-only ones where they fit).
DECLARED: tuple[Column, ...] = (
    _col("algorithm", "str", "request", "the algorithm's registered name", journal=True, summary=True),
    _col("k", "Int64", "request", "probing factor (Star2.5; Star2 is k = 1); empty for algorithms without k", journal=True, summary=True),
    _col("after_probe", "str", "request", "`resume` or `research` (Star2 and Star2.5); empty for the others", journal=True, summary=True),
    _col("instance", "int64", "request", "the instance number i of the cell: the same tree for every algorithm and rerun", journal=True, summary=True),
    _col("tree_seed", "UInt64", "request", "the seed the instance's tree was generated from", journal=True, summary=True),
    _col("value", "float64", "outcome", "the root's value as the search returned it (float)", journal=True, summary=True),
    _col("best_move", "Int64", "outcome", "0-based index of the chosen root move (empty at a chance root or leaf)", journal=True),
    *_counters(lead=True),
    _col("seconds", "float64", "timing", "wall seconds of the search alone", journal=True, varies=True, summary=True),
    _col("cpu_seconds", "float64", "timing", "CPU seconds of the search alone (the timing measure of every figure); a search under 1 ms is repeated until its repeats take 1 ms in all, and this is their mean", journal=True, varies=True, summary=True),
    _col("status", "str", "check", "`ok`, `mismatch`, `approx`, `unverified`, `budget_exceeded` or `error`", summary=True),
    _col("expectimax_value", "float64", "check", "expectimax's value on the same instance (the reference), where it ran", summary=True),
    _col("L", "float64", "request", "the lower bound of leaf values the search was given", journal=True),
    _col("U", "float64", "request", "the upper bound of leaf values the search was given", journal=True),
    _col("levels", "Int64", "request", "levels of the tree (decision and chance), root included", journal=True),
    *_tree_parameters(),
    _col("probe_full_window", "boolean", "request", "false where `probe_full_window=false` was set; empty at the default", journal=True, summary=True),
    _col("tt", "Int64", "request", "log2 of the transposition table's entries (0: no table)", journal=True, summary=True),
    _col("tt_chance", "boolean", "request", "true where the table is used at chance nodes (Veness and Blair); else false", journal=True, summary=True),
    _col("tt_probe", "boolean", "request", "true where the probe phase uses the table's bounds; else false", journal=True, summary=True),
    _col("tt_nodes", "str", "request", "`decision` where the table is at MAX and MIN nodes only; empty at the default", journal=True, summary=True),
    _col("tt_depth", "str", "request", "`deeper` where a deeper entry answers a node (inexact); empty at the default", journal=True, summary=True),
    _col("samples", "Int64", "request", "outcomes kept per chance node (sparse sampling); empty for other algorithms", journal=True, summary=True),
    _col("mcts_iterations", "Int64", "request", "MCTS iterations; empty for other algorithms", journal=True, summary=True),
    _col("exploration", "float64", "request", "MCTS's UCB1 exploration constant; empty for other algorithms", journal=True, summary=True),
    _col("mcts_seed", "Int64", "request", "MCTS's seed; empty for other algorithms", journal=True, summary=True),
    _col("r", "Int64", "request", "ChanceProbCut's depth reduction in decision plies; empty for other algorithms", journal=True, summary=True),
    _col("t", "float64", "request", "ChanceProbCut's cut margin in residual standard deviations; empty for other algorithms", journal=True, summary=True),
    _col("game", "str", "game", "the game (game cells; empty for random trees)", condition=0),
    _col("position", "str", "game", "the start position (game cells)", journal=True),
    _col("dice", "str", "game", "the root's dice (backgammon cells)", journal=True),
    _col("heuristic", "str", "game", "the horizon heuristic (game cells)", condition=1),
    _col("sampler", "str", "game", "how start positions were drawn (`playout`, `uniform`, `optimal`; game cells)", condition=2),
    _col("move_order", "str", "game", "backgammon's move ordering (`none`, `equity`, `equity_inner`)"),
    _col("best_action", "str", "outcome", "the chosen move in the game's own terms (OpenSpiel action id, gnubg move)", journal=True),
    _col("order_evals", "Int64", "outcome", "evaluations spent ordering moves (backgammon), never counted as leaves", journal=True),
    _col("depth_completed", "Int64", "outcome", "the deepest depth finished (iterative deepening)", journal=True),
    _col("iterations", "str", "timing", "per depth `{depth, completed, nodes, leaves, cpu_seconds}` as JSON text (iterative deepening)", journal=True, varies=True),
    _col("nodes_by_level", "str", "level", "nodes entered per level, a JSON list indexed by level (the root 0, chance levels counted; summing to `nodes`), with `levels_detail=true`; empty otherwise", journal=True),
    _col("leaves_by_level", "str", "level", "leaves evaluated per level (JSON list; sums to `leaves`), with `levels_detail=true`", journal=True),
    _col("cutoffs_by_level", "str", "level", "cut-offs per level, at the level of the node that stops searching its children (JSON list; sums to `chance_cutoffs + decision_cutoffs`), with `levels_detail=true`", journal=True),
    _col("probes_by_level", "str", "level", "probe phases per level, at the probing chance node's level (JSON list; sums to `probes`), with `levels_detail=true`", journal=True),
    _col("game_version", "str", "game", "the game source's version (game cells)"),
    _col("cell", "str", "run", "the 8-hex-digit digest of the cell's identity (tree parameters, seed, arithmetic, generator version)"),
    _col("pct_leaves", "float64", "check", "the row's leaves as a percent of expectimax's on the same instance, where both finished"),
    _col("skew_text", "str", "tree", "the exact text of `tree.skew` (stored as a number in `skew`)"),
    _col("value_exact", "str", "outcome", "the exact value as a fraction `a/b` (exact mode)", journal=True),
    _col("verified_by", "str", "check", "the reference the value was checked against (`expectimax`, or two agreeing algorithms)", summary=True),
    _col("value_error", "float64", "check", "an `approx` row's value minus expectimax's on the same tree and depth", summary=True),
    _col("decision_agrees", "boolean", "check", "an `approx` row's move is one of expectimax's best moves"),
    _col("oracle", "str", "decision", "which exact oracle scored the row's decision", journal=True),
    _col("oracle_value", "float64", "decision", "the root's exact value to the player who moves there", journal=True),
    _col("chosen_oracle_value", "float64", "decision", "the exact value of the move the search chose", journal=True),
    _col("regret", "float64", "decision", "`oracle_value - chosen_oracle_value`, never negative, in the oracle's units", journal=True, summary=True),
    _col("decision_optimal", "boolean", "decision", "the chosen move is among the exactly optimal ones", journal=True, summary=True),
    _col("error", "str", "outcome", "the error's one-line message (`error` rows)", journal=True, summary=True),
    *_counters(lead=False),
    _col("timing_repeats", "Int64", "timing", "the searches `cpu_seconds` and `seconds` are the mean of (1: the search alone; empty in tables stored before repeats were recorded)", journal=True, varies=True),
    _col("engine", "str", "request", "`compiled` or `python`: the engine that ran the search", journal=True),
    _col("node_budget", "Int64", "run", "the node budget per search (empty: none)"),
    _col("time_budget", "float64", "run", "the time budget per search in seconds (empty: none)"),
    _col("tree_size", "float64", "run", "the tree's size in nodes (a float: exact below 2^53)"),
    _col("seed", "uint64", "run", "the run's seed", condition=18),
    _col("exact", "bool", "run", "true where the search ran in fractions", condition=19),
    _col("starbench_version", "str", "meta", "the starbench release that computed the row", varies=True),
    _col("git_commit", "str", "meta", "the git commit the row was computed at", varies=True),
    _col("git_dirty", "boolean", "meta", "true where the working tree had uncommitted changes", varies=True),
    _col("python_version", "str", "meta", "the Python that computed the row", varies=True),
    _col("numpy_version", "str", "meta", "numpy's version", varies=True),
    _col("hostname", "str", "meta", "the machine's name", varies=True),
    _col("cpu_model", "str", "meta", "the CPU model", varies=True),
    _col("platform", "str", "meta", "the platform string", varies=True),
    _col("date", "str", "meta", "the start of the run that computed the row (ISO 8601)", varies=True),
    # produced by a search, never a column: the journal's own
    _col("run_status", "str", "outcome", "`done`, `budget_exceeded` or `error` as the search ended (the table's `status` is derived from it)", journal=True, table=False),
    _col("root_values", "str", "outcome", "every root move's exact value (an exhaustive search at a decision root; the oracle of a random tree's decision quality)", journal=True, table=False),
)  # fmt: skip


def declared() -> tuple[Column, ...]:
    """The declaration (``DECLARED``), read at call time so that every view follows it."""
    return DECLARED


def by_name() -> dict[str, Column]:
    return {c.name: c for c in declared()}


def table_columns() -> tuple[Column, ...]:
    return tuple(c for c in declared() if c.table)


def journal_fields() -> tuple[str, ...]:
    return tuple(c.name for c in declared() if c.journal)


def summary_columns() -> tuple[str, ...]:
    return tuple(c.name for c in table_columns() if c.summary)


def outcomes() -> tuple[str, ...]:
    """What two runs of the same search share: its outcome, counters and counters per level
    (groups ``outcome``, ``counter``, ``level``), not what ``varies``."""
    return tuple(
        c.name for c in declared() if c.group in ("outcome", "counter", "level") and not c.varies
    )


def nondeterministic() -> tuple[str, ...]:
    """What two runs of the same search may differ in (time, the date, the machine)."""
    return tuple(c.name for c in table_columns() if c.varies)


#: The figures' name of the condition ``ordering`` and ``outcome_order`` make together.
ORDER = "order"


def conditions() -> tuple[str, ...]:
    """The figures' conditions, by rank: every column with a ``condition`` (the move ordering,
    ``tree.ordering`` with ``tree.outcome_order``, as one: ``order``)."""
    ranked = sorted((c.condition, c.name) for c in declared() if c.condition is not None)
    return tuple(ORDER if name == "ordering" else name for _, name in ranked)


def unplotted() -> tuple[str, ...]:
    """The tree parameters that are no figure condition (nor part of one): a table holding two
    values of one cannot be drawn without pooling them, so ``plot`` refuses it."""
    part_of_order = ("ordering", "outcome_order")
    return tuple(
        c.name
        for c in declared()
        if c.group == "tree" and c.condition is None and c.name not in part_of_order
        and c.name != "skew_text"
    )  # fmt: skip
