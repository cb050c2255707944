"""Explicit JSON trees: exact reading, normalisation, and one test per bad input."""

from __future__ import annotations

from fractions import Fraction

import pytest

from starbench.cli import main
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
