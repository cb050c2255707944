"""Every column declared once (``record.columns``): the journal's fields, the table's order and
dtypes, the summary's columns, what replay and the journal check compare, the docs' page and the
figures' conditions are views of the declaration, so one declaration reaches them all, and a
field or tree parameter nobody declared cannot reach a table, or be pooled in a figure, unseen.
"""

from __future__ import annotations

from dataclasses import fields

import pandas as pd
import pytest

from starbench.analysis import figures
from starbench.analysis.data import PlotError
from starbench.analysis.plotting import plot, unplotted
from starbench.commands import reference
from starbench.experiment import replay
from starbench.experiment.cellfolder import MEASURED
from starbench.experiment.runner import run_cell
from starbench.experiment.settings import RunSettings
from starbench.oracles.decisions import DECISION_COLUMNS
from starbench.record import columns
from starbench.record.columns import Column
from starbench.record.rows import FIELDS, INEXACT_COLUMNS, SUMMARY_COLUMNS, table_dtypes
from starbench.search.registry import KEY_PARAMS, resolve
from starbench.search.stats import LEVEL_FIELDS, SearchStats
from starbench.trees import RegularTreeSpec


def test_every_field_a_search_or_a_tree_has_is_declared_with_its_meaning():
    declared = columns.by_name()
    for f in fields(SearchStats):  # a counter added to SearchStats is a column by itself
        assert declared[f.name].group == "counter" and declared[f.name].doc, f.name
    for f in fields(RegularTreeSpec):  # a tree knob likewise, a figure condition or refused
        c = declared[f.name]
        assert c.group == "tree" and f.metadata["help"] in c.doc, f.name
        assert c.condition is not None or f.name in (*columns.unplotted(), "outcome_order")
    for name in (*LEVEL_FIELDS, *DECISION_COLUMNS, *INEXACT_COLUMNS, *KEY_PARAMS):
        assert name in declared, name
    assert len(declared) == len(columns.DECLARED), "a column declared twice"
    assert all(c.group in columns.GROUPS for c in columns.DECLARED)


def test_the_lists_that_name_columns_are_views_of_the_declaration():
    table = [c for c in columns.DECLARED if c.table]
    assert list(table_dtypes()) == [c.name for c in table]
    assert tuple(c.name for c in columns.DECLARED if c.journal) == FIELDS
    assert set(SUMMARY_COLUMNS) >= {"algorithm", *KEY_PARAMS, "status", "cpu_seconds"}
    assert {"seconds", "cpu_seconds", "date"} <= set(columns.nondeterministic())
    assert not set(columns.nondeterministic()) & set(columns.outcomes())
    assert set(replay.SAME) == set(columns.outcomes()) - {"value"}
    journal_only = {c.name for c in columns.DECLARED if not c.table}
    assert set(MEASURED) == set(columns.outcomes()) - set(LEVEL_FIELDS) - journal_only
    assert {"nodes", "leaves", "best_move", "value"} <= set(MEASURED)
    page = reference.columns_page()
    for c in table:
        assert f"| `{c.name}` | {c.dtype} |" in page, c.name


#: The column a researcher adds: one declaration, derived from the row's other columns, a
#: condition the figures split by.
PARITY = Column(
    "parity",
    "str",
    "whether the instance number is even or odd",
    "check",
    condition=50,
    derive=lambda row: "even" if row["instance"] % 2 == 0 else "odd",
)


def test_one_declaration_adds_a_column_to_the_table_its_docs_and_the_figures(monkeypatch, tmp_path):
    monkeypatch.setattr(columns, "DECLARED", (*columns.DECLARED, PARITY))
    s = RunSettings(
        tree=RegularTreeSpec(branching=3, chance_arity=3, depth=2),
        trees=4,
        algorithms=(resolve("expectimax"), resolve("star2")),
        progress=False,
    )
    out = run_cell(s, tmp_path / "cell", out=lambda _: None)
    df = pd.read_parquet(out.table)
    assert df.columns[-1] == "parity"
    assert list(df["parity"]) == ["even" if i % 2 == 0 else "odd" for i in df["instance"]]
    assert "| `parity` | str | whether the instance number is even or odd |" in (
        reference.columns_page()
    )
    assert "parity" in figures.conditions(df) and columns.conditions()[-1] == "parity"
    plot(tmp_path / "cell", tmp_path / "figs", ["leaves_by_algorithm"], images=None)
    drawn = pd.read_csv(tmp_path / "figs" / "leaves_by_algorithm.csv")
    assert sorted(drawn["parity"].unique()) == ["even", "odd"]  # split by it, never pooled


def test_a_table_with_two_values_of_a_tree_key_no_figure_splits_by_is_refused():
    assert "generator_version" in columns.unplotted()
    one = pd.DataFrame({"generator_version": [1, 1], "nodes": [3, 4]})
    unplotted(one)  # one value: nothing pooled
    two = one.assign(generator_version=[1, 2])
    with pytest.raises(PlotError, match=r"^tree\.generator_version: these tables hold 1, 2"):
        unplotted(two)
