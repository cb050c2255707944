"""The reference pages of the documentation, generated from the code: every run key (the config
schemas), every algorithm with its parameters and citation (the registry) and every column of
the tidy table (``experiment.rows``), with its dtype and meaning.

The docs build (``docs/hooks.py``) writes these pages at build time, so they cannot fall behind
the code; ``COLUMN_DOCS`` must describe every column the table has (a test checks it).
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import MISSING, fields
from typing import Any

#: The meaning of every column of the tidy table that is not a tree parameter (those are
#: described by ``RegularTreeSpec``'s own help).  One place: the docs' columns page is made
#: from it.
COLUMN_DOCS: dict[str, str] = {
    "algorithm": "the algorithm's registered name",
    "k": "probing factor (Star2.5; Star2 is k = 1); empty for algorithms without k",
    "after_probe": "`resume` or `research` (Star2 and Star2.5); empty for the others",
    "instance": "the instance number i of the cell: the same tree for every algorithm and rerun",
    "tree_seed": "the seed the instance's tree was generated from",
    "value": "the root's value as the search returned it (float)",
    "best_move": "0-based index of the chosen root move (empty at a chance root or leaf)",
    "nodes": "every call into a node, root and leaves included (a node entered again counts again)",
    "leaves": "leaf evaluations (horizon evaluations in games)",
    "probe_nodes": "nodes entered by Star2/Star2.5's probe phases",
    "probe_leaves": "leaves evaluated by probe phases",
    "chance_cutoffs": "chance nodes cut off (probe phase or search phase)",
    "probe_cutoffs": "chance nodes cut off by the probe phase",
    "decision_cutoffs": "MAX and MIN nodes cut off (alpha-beta cut-offs)",
    "resumed": "probed successors resumed after the probe phase (`after_probe=resume`)",
    "seconds": "wall seconds of the search alone",
    "cpu_seconds": "CPU seconds of the search alone (the timing measure of every figure); a "
    "search under 1 ms is repeated until its repeats take 1 ms in all, and this is their mean",
    "timing_repeats": "the searches `cpu_seconds` and `seconds` are the mean of (1: the search "
    "alone; empty in tables stored before repeats were recorded)",
    "status": "`ok`, `mismatch`, `approx`, `unverified`, `budget_exceeded` or `error`",
    "expectimax_value": "expectimax's value on the same instance (the reference), where it ran",
    "L": "the lower bound of leaf values the search was given",
    "U": "the upper bound of leaf values the search was given",
    "levels": "levels of the tree (decision and chance), root included",
    "probe_full_window": "false where `probe_full_window=false` was set; empty at the default",
    "tt": "log2 of the transposition table's entries (0: no table)",
    "tt_chance": "true where the table is used at chance nodes (Veness and Blair); else false",
    "tt_probe": "true where the probe phase uses the table's bounds; else false",
    "tt_nodes": "`decision` where the table is at MAX and MIN nodes only; empty at the default",
    "tt_depth": "`deeper` where a deeper entry answers a node (inexact); empty at the default",
    "samples": "outcomes kept per chance node (sparse sampling); empty for other algorithms",
    "mcts_iterations": "MCTS iterations; empty for other algorithms",
    "exploration": "MCTS's UCB1 exploration constant; empty for other algorithms",
    "mcts_seed": "MCTS's seed; empty for other algorithms",
    "r": "ChanceProbCut's depth reduction in decision plies; empty for other algorithms",
    "t": "ChanceProbCut's cut margin in residual standard deviations; empty for other algorithms",
    "game": "the game (game cells; empty for random trees)",
    "position": "the start position (game cells)",
    "dice": "the root's dice (backgammon cells)",
    "heuristic": "the horizon heuristic (game cells)",
    "sampler": "how start positions were drawn (`playout`, `uniform`, `optimal`; game cells)",
    "move_order": "backgammon's move ordering (`none`, `equity`, `equity_inner`)",
    "best_action": "the chosen move in the game's own terms (OpenSpiel action id, gnubg move)",
    "order_evals": "evaluations spent ordering moves (backgammon), never counted as leaves",
    "depth_completed": "the deepest depth finished (iterative deepening)",
    "iterations": "per depth `{depth, completed, nodes, leaves, cpu_seconds}` as JSON text "
    "(iterative deepening)",
    "nodes_by_level": "nodes entered per level, a JSON list indexed by level (the root 0, "
    "chance levels counted; summing to `nodes`), with `levels_detail=true`; empty otherwise",
    "leaves_by_level": "leaves evaluated per level (JSON list; sums to `leaves`), with "
    "`levels_detail=true`",
    "cutoffs_by_level": "cut-offs per level, at the level of the node that stops searching its "
    "children (JSON list; sums to `chance_cutoffs + decision_cutoffs`), with "
    "`levels_detail=true`",
    "probes_by_level": "probe phases per level, at the probing chance node's level (JSON list; "
    "sums to `probes`), with `levels_detail=true`",
    "game_version": "the game source's version (game cells)",
    "cell": "the 8-hex-digit digest of the cell's identity (tree parameters, seed, arithmetic, "
    "generator version)",
    "pct_leaves": "the row's leaves as a percent of expectimax's on the same instance, where "
    "both finished",
    "skew_text": "the exact text of `tree.skew` (stored as a number in `skew`)",
    "value_exact": "the exact value as a fraction `a/b` (exact mode)",
    "verified_by": "the reference the value was checked against (`expectimax`, or two agreeing "
    "algorithms)",
    "value_error": "an `approx` row's value minus expectimax's on the same tree and depth",
    "decision_agrees": "an `approx` row's move is one of expectimax's best moves",
    "oracle": "which exact oracle scored the row's decision",
    "oracle_value": "the root's exact value to the player who moves there",
    "chosen_oracle_value": "the exact value of the move the search chose",
    "regret": "`oracle_value - chosen_oracle_value`, never negative, in the oracle's units",
    "decision_optimal": "the chosen move is among the exactly optimal ones",
    "error": "the error's one-line message (`error` rows)",
    "max_nodes": "MAX nodes entered",
    "min_nodes": "MIN nodes entered",
    "chance_nodes": "chance nodes entered",
    "probes": "probe phases run (the probe success rate is `probe_cutoffs / probes`)",
    "tt_probes": "transposition-table lookups",
    "tt_hits": "lookups that found the node's entry",
    "tt_cutoffs": "lookups that answered the node",
    "shallow_nodes": "the part of `nodes` entered by ChanceProbCut's shallow searches",
    "engine": "`compiled` or `python`: the engine that ran the search",
    "node_budget": "the node budget per search (empty: none)",
    "time_budget": "the time budget per search in seconds (empty: none)",
    "tree_size": "the tree's size in nodes (a float: exact below 2^53)",
    "seed": "the run's seed",
    "exact": "true where the search ran in fractions",
    "starbench_version": "the starbench release that computed the row",
    "generator_version": "the tree generator's version (1 or 2)",
    "git_commit": "the git commit the row was computed at",
    "git_dirty": "true where the working tree had uncommitted changes",
    "python_version": "the Python that computed the row",
    "numpy_version": "numpy's version",
    "hostname": "the machine's name",
    "cpu_model": "the CPU model",
    "platform": "the platform string",
    "date": "the start of the run that computed the row (ISO 8601)",
}


def _md(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(hint: Any) -> str:
    text = getattr(hint, "__name__", None) or str(hint)
    return text.replace("typing.", "").replace("NoneType", "null")


def _default(f: Any) -> str:
    if f.default is not MISSING:
        return f"`{f.default!r}`"
    if f.default_factory is not MISSING:  # type: ignore[misc]
        return f"`{f.default_factory()!r}`"  # type: ignore[misc]
    return ""


def _key_table(cls: Any, prefix: str, skip: tuple[str, ...] = ()) -> list[str]:
    hints = typing.get_type_hints(cls)
    out = ["| key | type | default | allowed | meaning |", "|---|---|---|---|---|"]
    for f in fields(cls):
        if f.name in skip:
            continue
        meta = dict(f.metadata)
        choices = meta.get("choices")
        allowed = ", ".join(f"`{c}`" for c in choices) if choices else ""
        out.append(
            f"| `{prefix}{f.name}` | {_md(_type(hints[f.name]))} | {_default(f)} | {allowed} "
            f"| {_md(meta.get('help', ''))} |"
        )
    return out


def config_page() -> str:
    """Every key of ``starbench run``: the run keys, the random-tree keys and the game keys."""
    from starbench.experiment.settings import RunConfig
    from starbench.games.spec import GameSpec
    from starbench.trees.regular import RegularTreeSpec

    lines = [
        "# Configuration keys",
        "",
        "Generated from the config schemas (`RunConfig` in `starbench.experiment.settings`, "
        "`RegularTreeSpec` in `starbench.trees.regular`, `GameSpec` in `starbench.games.spec`); "
        "`starbench run --help` prints the same from the installed code.",
        "",
        "## Run keys",
        "",
        *_key_table(RunConfig, "", skip=("tree", "algorithm_specs")),
        "",
        "## Random-tree keys (`tree=regular`, the default)",
        "",
        *_key_table(RegularTreeSpec, "tree."),
        "",
        "## Game keys (`tree=game`)",
        "",
        *_key_table(GameSpec, "tree.", skip=("version",)),
        "",
    ]
    return "\n".join(lines)


def _first_paragraph(doc: str | None) -> str:
    return _md((inspect.cleandoc(doc or "").split("\n\n") or [""])[0])


def algorithms_page() -> str:
    """Every registered algorithm: what it is, whether it is exact, its reference, its
    parameters with defaults, its module and citation."""
    from starbench.search import registry

    lines = [
        "# Algorithms",
        "",
        "Generated from the registry (`starbench.search.registry`); `starbench solve --list` "
        "prints the same.  A request is written `NAME:PARAM=VALUE,...` (for example "
        "`star2.5-cyclic:k=3,after_probe=research`); integer ranges `k=0..6` expand in run "
        "lists.  An exact algorithm's rows must equal expectimax's value (else `mismatch`); an "
        "inexact one's rows are `approx`, measured by `value_error` and `decision_agrees`.",
        "",
        "| algorithm | exact | must equal | applies to | what it is | citation |",
        "|---|---|---|---|---|---|",
    ]
    infos = [registry.ALGORITHMS[n] for n in sorted(registry.ALGORITHMS)]
    for a in infos:
        scope = "any tree" if a.chance else "trees without chance nodes"
        lines.append(
            f"| `{a.name}` | {'yes' if a.exact else 'no'} | {a.reference or '(nothing)'} "
            f"| {scope} | {_md(a.doc)} | {_md(a.citation)} |"
        )
    for a in infos:
        module = a.cls.__module__
        lines += ["", f"## `{a.name}`", "", f"{_md(a.doc)}.  Module `{module}`.", ""]
        lines += [_first_paragraph(inspect.getmodule(a.cls).__doc__), ""]  # type: ignore[union-attr]
        if a.fixed:
            fixed = ", ".join(f"{k}={v}" for k, v in a.fixed.items())
            lines += [f"Fixed settings: {fixed}.", ""]
        if a.params:
            lines += ["| parameter | default | meaning |", "|---|---|---|"]
            lines += [f"| `{p.name}` | `{p.default!r}` | {_md(p.doc)} |" for p in a.params]
        else:
            lines.append("No parameters.")
        if a.citation:
            lines += ["", f"Citation: {_md(a.citation)}."]
    lines.append("")
    return "\n".join(lines)


def columns_page() -> str:
    """Every column of a cell's ``table.parquet``, in order, with its dtype and meaning."""
    from starbench.record.rows import table_dtypes
    from starbench.trees.regular import RegularTreeSpec

    tree = {f.name: dict(f.metadata).get("help", "") for f in fields(RegularTreeSpec)}
    lines = [
        "# The table's columns",
        "",
        "One row per (instance, algorithm and its key parameters) in a cell's "
        "`table.parquet`, in this order, each with one fixed dtype (generated from "
        "`starbench.record.rows` and `starbench.commands.reference.COLUMN_DOCS`).  Tree parameters "
        "and metadata are those the row was computed with, never the request's.  "
        "`starbench.load_results` adds one column, `label`: the display label of the row's "
        "request (the algorithm and its non-default key parameters, as the figures name it).",
        "",
        "| column | dtype | meaning |",
        "|---|---|---|",
    ]
    for name, dtype in table_dtypes().items():
        meaning = COLUMN_DOCS.get(name) or (f"tree parameter: {tree[name]}" if name in tree else "")
        lines.append(f"| `{name}` | {dtype} | {_md(meaning)} |")
    lines.append("")
    return "\n".join(lines)


PAGES = {
    "reference/config.md": config_page,
    "reference/algorithms.md": algorithms_page,
    "reference/columns.md": columns_page,
}
