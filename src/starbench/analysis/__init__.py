"""Analysis: figures and tables that only read stored result tables (never search)."""

from starbench.analysis.data import PlotError, load_results, percent_leaves
from starbench.analysis.plot import plot

__all__ = ["PlotError", "load_results", "percent_leaves", "plot"]
