"""The figure kinds ``starbench plot`` draws, one line each: what ``plot --help`` lists without
importing matplotlib (``tests/test_plot.py`` checks the names are ``figures.FIGURES``')."""

from __future__ import annotations

#: Each figure kind and what it shows, in the order ``plot`` draws them.
FIGURE_HELP = {
    "leaves_by_branching": "percent of expectimax's leaves against the branching factor N",
    "nodes_by_depth": "nodes against depth, with the effective branching factor",
    "nodes_by_level": "each algorithm's share of expectimax's nodes at each level (levels_detail)",
    "leaves_by_k": "percent of expectimax's leaves against the probing factor k",
    "ordering_effect": "percent of expectimax's leaves by move ordering",
    "distribution_effect": "percent of expectimax's leaves by outcome distribution",
    "seconds_vs_nodes": "CPU time of every search against its nodes",
    "decisions_by_depth": "optimal decisions and regret against an exact oracle, by depth",
    "regret_vs_nodes": "mean regret against mean nodes (inexact or oracle-scored searches)",
    "error_vs_nodes": "value error and best moves against nodes (inexact searches)",
    "leaves_by_algorithm": "every algorithm's percent of expectimax's leaves, by condition",
}


def help_text() -> str:
    """The figure list of ``starbench plot --help``."""
    width = max(map(len, FIGURE_HELP))
    lines = [f"  {name:<{width}}  {what}" for name, what in FIGURE_HELP.items()]
    return (
        "figures (--figure NAME; each skipped with one line where the tables cannot show it):\n"
        + "\n".join(lines)
    )
