"""Counters per level (``starbench.search.stats``): nodes, leaves, cut-offs and probes by level
sum to their totals in every algorithm and both engines, expectimax's equal the tree's own
count per level, tables store them (older tables read them as missing), and the figure and
``conform`` use them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import starbench
from starbench.analysis.data import by_level, load_results, percent_by_level
from starbench.commands import cli
from starbench.experiment.replay import replay
from starbench.experiment.runner import run_cell
from starbench.experiment.settings import AlgorithmSpec, RunSettings
from starbench.search import reference_search
from starbench.search.stats import LEVEL_FIELDS, LevelCounts
from starbench.trees import RegularTree, RegularTreeSpec
from starbench.trees.explicit import parse_tree
from strategies import regular_specs, tree_objects

ENGINE = f"{sys.executable} {Path(__file__).parent / 'engines' / 'expectimax_engine.py'}"
EXACT = ("expectimax", "star1", "star2", "star2.5-cyclic:k=3", "star2.5-sequential:k=2")


def _tree_levels(node, level=0, out=None):
    """The tree's nodes and leaves per level, counted from the JSON format alone."""
    out = out if out is not None else ([], [])
    for lists in out:
        while len(lists) <= level:
            lists.append(0)
    out[0][level] += 1
    if not isinstance(node, dict):
        out[1][level] += 1
        return out
    ((kind, children),) = node.items()
    for c in children:
        _tree_levels(c[1] if kind == "chance" else c, level + 1, out)
    return out


@settings(max_examples=60, deadline=None)
@given(tree_objects(max_depth=5, max_children=4, pattern="any"))
def test_solve_json_lists_sum_to_the_totals_and_expectimax_s_are_the_tree_s(obj):
    """On held-out random trees (any kinds, leaves at any depth): ``solve --json``'s lists sum
    to the totals for every exact algorithm, in exact and in float arithmetic, and expectimax's
    nodes and leaves per level are the tree's own."""
    import tempfile

    nodes, leaves = _tree_levels(obj["root"])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.json"
        path.write_text(json.dumps(obj))
        for exact in ([], ["--exact"]):
            argv = ["solve", str(path), "--json", *exact]
            for a in EXACT:
                argv += ["-a", a]
            from contextlib import redirect_stdout
            from io import StringIO

            buf = StringIO()
            with redirect_stdout(buf):
                assert cli.main(argv) == 0
            for row in json.loads(buf.getvalue()):
                assert sum(row["nodes_by_level"]) == row["nodes"]
                assert sum(row["leaves_by_level"]) == row["leaves"]
                assert sum(row["cutoffs_by_level"]) == row["cutoffs"]
                assert sum(row["probes_by_level"]) == row["probes"]
                assert len({len(row[k]) for k in LEVEL_FIELDS}) == 1
                if row["algorithm"] == "expectimax":
                    assert (row["nodes_by_level"], row["leaves_by_level"]) == (nodes, leaves)


@settings(max_examples=40, deadline=None)
@given(regular_specs, st.integers(0, 3))
def test_both_engines_give_the_same_lists_on_generated_trees(spec, instance):
    tree = RegularTree(spec, 0, instance)
    for a in EXACT:
        name, _, k = a.partition(":k=")
        params = {"k": int(k)} if k else {}
        py = starbench.search(tree, name, engine="python", levels=True, **params)
        co = starbench.search(tree, name, engine="compiled", levels=True, **params)
        assert co.by_level == py.by_level, (a, co.by_level, py.by_level)
        py.by_level.check(py.stats)
        if name == "expectimax" and not spec.pool:  # a tree: its size per level
            kinds = tree.level_kinds
            want = [1]
            for level in range(len(kinds)):
                want.append(want[-1] * tree.arities[level])
            assert list(py.by_level.nodes) == want


def test_the_rest_count_by_level_too():
    """MCTS (one node a level per step), a game's iterative deepening (summed over the
    iterations) and the table's answers all sum to their totals."""
    tree = RegularTree(RegularTreeSpec(branching=3, chance_arity=2, depth=2), 0, 0)
    r = reference_search(tree, "mcts", mcts_iterations=50)
    r.by_level.check(r.stats)
    assert r.by_level.nodes[0] == 50
    t = reference_search(tree, "star2", tt=8, tt_chance=True, tt_probe=True)
    t.by_level.check(t.stats)
    obj = {"bounds": [0, 4], "root": {"max": [{"chance": [["1/2", 1], ["1/2", {"min": [3, 4]}]]}]}}
    d = reference_search(parse_tree(obj, exact=True), "star2", exact=True)
    # level 2: the MIN outcome probed, the leaf outcome, the MIN outcome resumed
    assert d.by_level == LevelCounts((1, 1, 3, 2), (0, 0, 1, 2), (0, 0, 0, 0), (0, 1, 0, 0))


def test_level_counts_add_and_trim():
    a = LevelCounts.of([[1, 2, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
    assert a.nodes == (1, 2)
    b = a + LevelCounts.of([[1, 2, 4], [0, 0, 4], [0, 0, 0], [0, 1, 0]])
    assert b == LevelCounts((2, 4, 4), (0, 0, 4), (0, 1, 0), (0, 1, 0))
    with pytest.raises(AssertionError, match="nodes_by_level sums to 10"):
        b.check(starbench.SearchStats(nodes=9, leaves=4, decision_cutoffs=1, probes=1))


def _settings(**kw):
    return RunSettings(
        tree=RegularTreeSpec(branching=3, chance_arity=3, depth=2),
        algorithms=tuple(AlgorithmSpec(a) for a in ("expectimax", "star1", "star2")),
        trees=4,
        progress=False,
        **kw,
    )


def _cell(folder, **kw):
    return run_cell(_settings(**kw), folder, out=lambda _: None)


def test_the_run_option_levels_detail_and_the_public_search(tmp_path):
    """Off by default (the compiled engine keeps its speed): no lists in rows or results;
    ``levels_detail=true`` records them without changing the cell (its folder and digest)."""
    plain = _cell(tmp_path / "plain")
    detail = _cell(tmp_path / "detail", levels_detail=True)
    a, b = (starbench.load_results(o.folder) for o in (plain, detail))
    assert a["nodes_by_level"].isna().all() and b["nodes_by_level"].notna().all()
    assert set(a["cell"]) == set(b["cell"])
    tree = RegularTree(RegularTreeSpec(branching=2, chance_arity=2, depth=2), 0, 0)
    for engine in ("python", "compiled"):
        assert starbench.search(tree, "star2", engine=engine).by_level is None
        assert starbench.search(tree, "star2", engine=engine, levels=True).by_level is not None


def test_tables_store_the_lists_and_older_tables_read_them_as_missing(tmp_path, capsys):
    folder = tmp_path / "cell"
    _cell(folder, levels_detail=True)
    df = starbench.load_results(folder)
    for f in LEVEL_FIELDS:
        assert df[f].map(lambda x: isinstance(json.loads(x), list)).all(), f
    long = by_level(df)
    assert (long.groupby(["algorithm", "instance"])["nodes"].sum().to_dict()) == (
        df.set_index(["algorithm", "instance"])["nodes"].to_dict()
    )
    pct = percent_by_level(df)
    assert (pct[pct["level"] == 0]["pct_nodes"] == 100).all()
    # the figure, from these tables
    argv = ["plot", str(folder), "--out", str(tmp_path / "fig"), "--figure", "nodes_by_level"]
    assert cli.main([*argv, "--format", "png", "--size", "single"]) == 0
    assert (tmp_path / "fig" / "nodes_by_level.md").exists()
    # replay compares the lists; a table stored before them replays without them
    done, diffs = replay(folder, instances=1)
    assert done and not diffs
    old = df.drop(columns=[*LEVEL_FIELDS, "label"])
    old_path = tmp_path / "old" / "older.parquet"
    old_path.parent.mkdir()
    old.drop(columns=["_pair"], errors="ignore").to_parquet(old_path)  # as stored before
    back = load_results(old_path, refuse_mismatch=False)
    assert back["nodes_by_level"].isna().all()
    capsys.readouterr()
    code = cli.main(["plot", str(old_path), "--out", str(tmp_path / "fig2"),
                     "--figure", "nodes_by_level", "--format", "png"])  # fmt: skip
    err = capsys.readouterr()
    assert code != 0 and "no counters per level" in err.out + err.err


def test_levels_detail_on_a_complete_cell_records_the_missing_lists(tmp_path, capsys):
    """The lists are a run option, not part of the cell: ``plot``'s advice (rerun with
    ``levels_detail=true``) works as written on a complete cell; the rows stored without them
    are searched again (same counters), once, and a run that asks again computes nothing."""
    folder = tmp_path / "cell"
    _cell(folder)
    before = starbench.load_results(folder)
    capsys.readouterr()
    argv = ["plot", str(folder), "--out", str(tmp_path / "fig"), "--figure", "nodes_by_level"]
    assert cli.main([*argv, "--format", "png", "--size", "single"]) != 0
    err = capsys.readouterr().err
    assert "levels_detail=true" in err and "rerun the same starbench run command" in err
    lines: list[str] = []
    again = run_cell(_settings(levels_detail=True), folder, out=lines.append)
    assert again.computed == len(before)
    assert any("12 searched again to record their counters per level" in x for x in lines)
    after = starbench.load_results(folder)
    assert after["nodes_by_level"].notna().all()
    key = ["algorithm", "instance"]
    cols = ["nodes", "leaves", "value"]
    assert after.set_index(key)[cols].sort_index().equals(before.set_index(key)[cols].sort_index())
    assert cli.main([*argv, "--format", "png", "--size", "single"]) == 0
    assert run_cell(_settings(levels_detail=True), folder, out=lambda _: None).computed == 0


@pytest.mark.parametrize(("mode", "equal"), [("levels", True), ("levels-shifted", False)])
def test_conform_says_whether_an_engine_s_lists_equal_starbench_s(capsys, tmp_path, mode, equal):
    code = cli.main(
        ["conform", "--engine", f"{ENGINE} {mode}", "--algorithm", "expectimax",
         "--trees", "5", "--out", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("per level equal"))
    counted = int(line.split()[-1])
    assert code == 0 and counted > 0  # values agree either way: a count is not a verdict
    assert line.split()[-3] == (str(counted) if equal else "0"), line
