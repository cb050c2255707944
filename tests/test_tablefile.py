"""The table writer: pandas reads back exactly what was written, with the table's dtypes, and
the runner writes tables without importing pandas (the memory budget of large cells)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pandas as pd
import pyarrow.parquet as pq
import pytest

from starbench.record.rows import SUMMARY_COLUMNS, table_dtypes
from starbench.record.tablefile import write_table

SAMPLES = {
    "str": ["a", None, "é😀", ""],
    "Int64": [0, None, -(2**63), 2**63 - 1],
    "int64": [1, -2, 3, 2**62],
    "uint64": [0, 2**64 - 1, 12035550249420947055, 7],
    "UInt64": [0, None, 2**64 - 1, 12035550249420947055],
    "float64": [0.1, None, -1e300, 1.7976931348623157e308],
    "bool": [True, False, False, True],
    "boolean": [True, None, False, True],
}


def _chunk(shift: int) -> dict[str, list]:
    dtypes = table_dtypes()
    return {c: SAMPLES[d][shift:] + SAMPLES[d][:shift] for c, d in dtypes.items()}


@pytest.mark.parametrize("csv", [False, True])
def test_pandas_reads_back_every_value_with_the_table_dtypes(tmp_path, csv):
    chunks = [_chunk(0), _chunk(1), _chunk(3)]
    parquet, text = tmp_path / "t.parquet", tmp_path / "t.csv"
    kept = write_table(iter(chunks), parquet, text if csv else None)

    df = pd.read_parquet(parquet)
    dtypes = table_dtypes()
    assert list(df.columns) == list(dtypes)
    assert pq.ParquetFile(parquet).num_row_groups == len(chunks)
    for column, dtype in dtypes.items():
        assert str(df[column].dtype) == dtype, column
        expected = [v for chunk in chunks for v in chunk[column]]
        got = [None if pd.isna(v) else v for v in df[column].tolist()]
        if dtype == "float64":
            expected = [None if v is None else float(v) for v in expected]
        assert got == expected, column
    assert kept == {c: [v for chunk in chunks for v in chunk[c]] for c in SUMMARY_COLUMNS}
    if csv:
        back = pd.read_csv(text, keep_default_na=False, dtype=str)
        assert list(back.columns) == list(dtypes)
        assert back["value"].tolist()[:4] == ["0.1", "", "-1e+300", "1.7976931348623157e+308"]
        assert back["seed"].tolist()[:4] == ["0", str(2**64 - 1), "12035550249420947055", "7"]
        assert back["tree_seed"].tolist()[:4] == ["0", "", str(2**64 - 1), "12035550249420947055"]


def test_an_empty_table_has_the_schema_and_no_rows(tmp_path):
    chunk = {c: [] for c in table_dtypes()}
    write_table(iter([chunk]), tmp_path / "t.parquet")
    df = pd.read_parquet(tmp_path / "t.parquet")
    assert len(df) == 0 and list(df.columns) == list(table_dtypes())


def test_a_cell_is_run_and_tabled_without_importing_pandas(tmp_path):
    code = textwrap.dedent(
        f"""
        import sys
        from starbench.experiment.runner import run_cell
        from starbench.experiment.settings import AlgorithmSpec, RunSettings
        from starbench.trees.regular import RegularTreeSpec
        s = RunSettings(tree=RegularTreeSpec(branching=3, chance_arity=3, depth=2),
                        algorithms=(AlgorithmSpec("expectimax"), AlgorithmSpec("star2")),
                        trees=30, progress=False, engine="python", csv=True)
        outcome = run_cell(s, {str(tmp_path / "cell")!r}, out=lambda _: None)
        print(outcome.rows, "pandas" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["60", "False"]
    assert len(pd.read_parquet(tmp_path / "cell" / "table.parquet")) == 60
