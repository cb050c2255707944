"""Analysis: figures and tables that only read stored result tables (never search).

The names below load their module when first used (PEP 562), so that reading tables
(``starbench.load_results``, ``analysis.data``) never imports matplotlib."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["PlotError", "load_results", "percent_leaves", "plot"]
_HOME = {
    "PlotError": "starbench.analysis.data",
    "load_results": "starbench.analysis.data",
    "percent_leaves": "starbench.analysis.data",
    "plot": "starbench.analysis.plotting",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value  # once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
