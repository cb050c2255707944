"""Explicit JSON trees: exact reading, normalisation, and one test per bad input."""

from __future__ import annotations

from fractions import Fraction

import pytest

from starbench.commands.cli import main
from starbench.errors import TreeError
from starbench.trees import Kind, dumps_tree, loads_tree


def test_numbers_are_read_exactly_from_their_text():
    t = loads_tree(
        '{"bounds": ["-1/3", 0.1], "root": {"chance": [["0.1", 0.1], ["9/10", "-1/3"]]}}'
    )
    assert t.bounds == (Fraction(-1, 3), Fraction(1, 10))
    assert t.probabilities(0) == (Fraction(1, 10), Fraction(9, 10))
    assert t.evaluate(1) == Fraction(1, 10)  # not the binary float 0.1


def test_probabilities_within_1e9_are_normalised_to_sum_exactly_1():
    t = loads_tree(
        '{"bounds": [0, 1], "root": {"chance": [["0.3333333333", 0], ["0.6666666667", 1]]}}'
    )
    ps = t.probabilities(0)
    assert sum(ps) == 1
    assert ps[0] == Fraction(3333333333, 10**10)  # the sum is exactly 1 here already
    t = loads_tree('{"bounds": [0, 1], "root": {"chance": [["0.5", 0], ["0.5000000005", 1]]}}')
    assert sum(t.probabilities(0)) == 1
    assert t.probabilities(0)[0] == Fraction(5, 10) / Fraction(10000000005, 10**10)


def test_any_root_kind_and_irregular_shapes():
    t = loads_tree('{"bounds": [0, 5], "root": {"chance": [[1, {"chance": [[1, {"max": [3]}]]}]]}}')
    assert [t.kind(i) for i in range(t.size)] == [Kind.CHANCE, Kind.CHANCE, Kind.MAX, Kind.LEAF]
    leaf = loads_tree('{"bounds": [0, 5], "root": 4}')
    assert leaf.kind(leaf.root) == Kind.LEAF


def test_round_trip():
    text = (
        '{"bounds":[0,"7/2"],"root":{"max":[{"min":[1,"1/2"]},{"chance":[["1/3",3],["2/3",0]]}]}}'
    )
    t = loads_tree(text)
    assert loads_tree(dumps_tree(t)) == t


BAD = [
    ("{", "malformed JSON"),
    ('{"bounds": [0, 1], "root": {"maxx": [1]}}', "root: unknown node kind 'maxx'"),
    (
        '{"bounds": [0, 1], "root": {"max": [1], "min": [0]}}',
        "root: a node object must have exactly one key",
    ),
    (
        '{"bounds": [0, 1], "root": {"max": [{"min": []}]}}',
        "root.max[0].min: a min node needs a non-empty list",
    ),
    (
        '{"bounds": [0, 1], "root": {"chance": []}}',
        "root.chance: a chance node needs a non-empty list",
    ),
    (
        '{"bounds": [0, 1], "root": {"max": [0, {"chance": [[-0.5, 0], [1.5, 1]]}]}}',
        "root.max[1].chance[0]: probability must be > 0",
    ),
    (
        '{"bounds": [0, 1], "root": {"chance": [[0, 0], [1, 1]]}}',
        "root.chance[0]: probability must be > 0",
    ),
    (
        '{"bounds": [0, 1], "root": {"chance": [[0.5, 0], [0.6, 1]]}}',
        "root: probabilities sum to 11/10",
    ),
    (
        '{"bounds": [0, 1], "root": {"max": [0, {"min": [2]}]}}',
        "root.max[1].min[0]: leaf value 2 lies outside the bounds [0, 1]",
    ),
    ('{"bounds": [1, 1], "root": 1}', "bounds: L must be < U"),
    ('{"bounds": [2, 1], "root": 1}', "bounds: L must be < U"),
    ('{"bounds": [0, Infinity], "root": 1}', "non-finite number Infinity"),
    ('{"bounds": [0, 1], "root": NaN}', "non-finite number NaN"),
    ('{"bounds": [0, 1], "root": "nan"}', "root: leaf value 'nan' is not a finite number"),
    ('{"bounds": [0, "inf"], "root": 1}', "bounds[1]: U 'inf' is not a finite number"),
    ('{"bounds": [0, 1], "root": true}', "root: leaf value must be a number"),
    (
        '{"bounds": [0, 1], "root": {"chance": [[1, 0, 1]]}}',
        "root.chance[0]: a chance outcome must be a pair",
    ),
    ('{"root": 1}', "the top level must be an object with exactly the keys"),
]


@pytest.mark.parametrize("text,message", BAD, ids=[m[:40] for _, m in BAD])
def test_bad_tree_gives_one_line_and_exit_2(tmp_path, capsys, text, message):
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(TreeError, match=None) as err:
        loads_tree(text, str(path))
    assert message in str(err.value)
    assert main(["solve", str(path)]) == 2
    out, errtext = capsys.readouterr()
    assert out == ""
    assert errtext.count("\n") == 1 and message in errtext and str(path) in errtext
    assert "Traceback" not in errtext


def test_deep_json_tree_parses_iteratively():
    text = '{"bounds": [0, 1], "root": ' + '{"max": [' * 300 + "1" + "]}" * 300 + "}"
    assert loads_tree(text).size == 301


def test_too_deep_json_is_a_clear_error():
    text = '{"bounds": [0, 1], "root": ' + '{"max": [' * 100000 + "1" + "]}" * 100000 + "}"
    with pytest.raises(TreeError, match="nested too deeply"):
        loads_tree(text, "deep.json")


# --------------------------------------------------------------------------- large files
def _generated_file(tmp_path, **kw):
    import json

    from starbench.trees import RegularTree, RegularTreeSpec
    from starbench.trees.explicit import tree_to_json

    spec = RegularTreeSpec(**kw)
    path = tmp_path / "gen.json"
    path.write_text(json.dumps(tree_to_json(RegularTree(spec, 0, 0)), separators=(",", ":")))
    return path, spec


def test_float_mode_holds_the_nearest_float_of_every_exact_number(tmp_path):
    from starbench.trees import load_tree

    path, spec = _generated_file(
        tmp_path, branching=3, chance_arity=4, depth=2, distribution="random"
    )
    exact, floats = load_tree(path, exact=True), load_tree(path, exact=False)
    assert floats.size == exact.size == spec.size and not floats.exact
    for node in range(exact.size):
        assert floats.kind(node) == exact.kind(node)
        assert list(floats.children(node)) == list(exact.children(node))
        if exact.kind(node) == Kind.LEAF:
            assert floats.evaluate(node) == float(exact.evaluate(node))
        elif exact.kind(node) == Kind.CHANCE:
            assert floats.probabilities(node) == tuple(map(float, exact.probabilities(node)))
        assert floats.describe(node) == exact.describe(node)
    # decimal probabilities that sum to 1 only exactly, and ones normalised exactly
    text = '{"bounds": [0, 1], "root": {"chance": [[0.1, 0], [0.2, 1], [0.7, 0.5]]}}'
    assert loads_tree(text, exact=False).probabilities(0) == (0.1, 0.2, 0.7)
    text = '{"bounds": [0, 1], "root": {"chance": [["0.5", 0], ["0.5000000005", 1]]}}'
    ps = loads_tree(text, exact=True).probabilities(0)
    assert loads_tree(text, exact=False).probabilities(0) == tuple(map(float, ps))


def test_float_mode_loads_in_a_fifth_of_the_old_memory_per_node(tmp_path):
    """The old loader held ~270 bytes a node and peaked at ~540 (tracemalloc, this tree)."""
    import tracemalloc

    import numpy  # noqa: F401  (imported before measuring)

    from starbench.trees import load_tree

    path, spec = _generated_file(
        tmp_path, branching=5, chance_arity=5, depth=3, distribution="random"
    )
    load_tree(path, exact=False)
    tracemalloc.start()
    try:
        tree = load_tree(path, exact=False)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tree.size == spec.size
    assert peak / spec.size < 108 and held / spec.size < 54, (peak, held)


def test_exact_search_of_a_float_tree_is_refused():
    from starbench.errors import InputError
    from starbench.search import reference_search as search

    t = loads_tree('{"bounds": [0, 1], "root": {"max": [0.5, 1]}}', "f.json", exact=False)
    assert search(t, "expectimax").value == 1.0
    with pytest.raises(InputError, match="f.json: read with floats"):
        search(t, "expectimax", exact=True)


LIMITS = [
    (["--max-bytes", "10"], "over the limit of 0 MB (--max-bytes)"),
    (["--max-nodes", "2"], "the tree has more than 2 nodes, over the limit (--max-nodes)"),
]


@pytest.mark.parametrize("flags,message", LIMITS)
def test_size_limits_of_tree_files(tmp_path, capsys, flags, message):
    path = tmp_path / "t.json"
    path.write_text('{"bounds": [0, 1], "root": {"max": [0, 1, {"min": [1, 0]}]}}')
    assert main(["solve", str(path), *flags]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err and str(path) in err


HUGE = [
    (
        '{"bounds": [0, 1], "root": {"max": [0.5, 1e400]}}',
        [],
        "root.max[1]: leaf value 1e400 is too large for float arithmetic",
    ),
    (
        '{"bounds": [0, 1], "root": {"max": [0.5, "1e400"]}}',
        ["--exact"],
        "root.max[1]: leaf value 1e400 lies outside the bounds [0, 1]",
    ),
    (
        '{"bounds": [-1e400, 1e400], "root": {"max": [0.5, 1]}}',
        [],
        "bounds[0]: L -1e400 is too large for float arithmetic",
    ),
]


@pytest.mark.parametrize("text,flags,message", HUGE, ids=["leaf", "exact-leaf", "bounds"])
def test_huge_numbers_one_short_line_naming_the_file(tmp_path, capsys, text, flags, message):
    path = tmp_path / "t.json"
    path.write_text(text)
    assert main(["solve", str(path), *flags]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err and str(path) in err, err
    assert len(err) - len(str(path)) < 150  # short beside the path (which pytest chooses)


def test_huge_exact_bounds_are_finite_in_exact_mode(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text('{"bounds": [-1e400, 1e400], "root": {"max": [0.5, 1]}}')
    assert main(["solve", str(path), "--exact", "-a", "expectimax"]) == 0
    assert "expectimax" in capsys.readouterr().out
