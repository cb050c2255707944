"""Loading stored results as one DataFrame: the public ``starbench.load_results``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported when results are loaded, not with starbench
    import pandas as pd


def load_results(path: str | os.PathLike[str]) -> pd.DataFrame:  # noqa: F821
    """The rows stored at ``path`` as one tidy DataFrame.

    ``path`` is a cell folder (its ``table.parquet``), a sweep folder (every cell's table below
    it, concatenated) or a table file (``collected.parquet``, ``table.parquet``).  Every file's
    checksums are checked first; a damaged file or a path without tables raises ``InputError``
    with one line.  The columns are the table's (``docs/reference/columns.md``) plus ``label``,
    the display label of each row's request (the algorithm with its non-default key parameters,
    as every figure names it).  Rows keep their ``status``: mismatched rows are loaded for
    inspection (the figures refuse them).
    """
    from starbench.analysis.data import load_results as read

    df = read(Path(path), refuse_mismatch=False)
    return df.drop(columns=["_pair"])
