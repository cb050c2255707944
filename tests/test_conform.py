"""``starbench conform`` against engines that are separate programs (tests/engines): a correct
one passes; a wrong one is caught and every disagreement shrunk to at most 10 nodes; one that
crashes, hangs, prints garbage or runs out of memory ends the run with one line naming the tree,
exit 1; one that declines everything is not a pass."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from starbench import cli, shrink

ENGINE = f"{sys.executable} {Path(__file__).parent / 'engines' / 'expectimax_engine.py'}"


def _conform(capsys, tmp_path, mode, *extra):
    code = cli.main(
        ["conform", "--engine", f"{ENGINE} {mode}", "--algorithm", "expectimax",
         "--out", str(tmp_path / "out"), *extra]
    )  # fmt: skip
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def _row(out, name):
    return next(line for line in out.splitlines() if line.startswith(name)).split()[-1]


def test_a_correct_engine_passes_with_equal_counts(capsys, tmp_path):
    code, out, err = _conform(capsys, tmp_path, "correct", "--trees", "20")
    assert code == 0, err
    assert _row(out, "trees") == _row(out, "agree") == "350" and _row(out, "disagree") == "0"
    assert "350 of 350" in out  # its nodes and leaves are expectimax's, every node visited
    assert not (tmp_path / "out").exists()


def test_a_wrong_engine_is_caught_and_shrunk(capsys, tmp_path):
    code, out, _err = _conform(capsys, tmp_path, "skip-last-outcome", "--trees", "5")
    assert code == 1
    assert int(_row(out, "disagree")) > 0 and int(_row(out, "agree")) > 0
    files = sorted((tmp_path / "out").glob("disagreement-*.json"))
    assert files and out.count("DISAGREE on") == int(_row(out, "disagree"))
    for f in files:
        doc = json.loads(f.read_text())
        tree = shrink.Tree.of(doc)
        assert shrink.nodes(tree.root) <= 10
        assert doc["disagreement"]["expectimax"]["value"] == shrink._number(shrink.value(tree.root))


@pytest.mark.parametrize(
    ("mode", "said", "extra"),
    [
        ("crash", "the engine exited with code 1 on corpus mixed #2: engine: something broke", ()),
        (
            "hang",
            "the engine did not answer within 0.5 s on corpus mixed #2",
            ("--time-limit", "0.5"),
        ),
        ("garbage", "not an answer on corpus mixed #2: 'value=7 move=0'", ()),
        ("hog", "over its memory limit of 268435456 bytes", ("--memory-limit", str(2**28))),
    ],
)
def test_a_broken_engine_is_one_line_naming_the_tree(capsys, tmp_path, mode, said, extra):
    code, _out, err = _conform(capsys, tmp_path, mode, "--trees", "0", *extra)
    assert code == 1 and len(err) == 1 and said in err[0], err


def test_an_engine_that_declines_everything_does_not_pass(capsys, tmp_path):
    code, out, _err = _conform(capsys, tmp_path, "unsupported", "--trees", "0")
    assert code == 1 and _row(out, "unsupported") == _row(out, "trees") == "330"
    assert "first unsupported: corpus mixed #0: this engine declines every tree" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--trees", "-1"], "--trees"),
        (["--time-limit", "0"], "--time-limit"),
        (["--memory-limit", "10"], "--memory-limit"),
        (["--algorithm", "nosuch"], "unknown algorithm"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, said):
    base = {"--algorithm": "expectimax", "--engine": ENGINE}
    for k, v in zip(argv[::2], argv[1::2], strict=True):
        base[k] = v
    code = cli.main(["conform", *(x for kv in base.items() for x in kv)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and said in err[0], err


def test_an_engine_that_cannot_start_is_one_line(capsys, tmp_path):
    code = cli.main(["conform", "--engine", "/no/such/engine", "--algorithm", "expectimax"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--engine" in err[0], err


def test_openspiel_s_expectiminimax_is_checked_through_the_protocol(capsys, tmp_path):
    """OpenSpiel's own Python expectiminimax (starbench.examples.openspiel_engine): it agrees on
    every tree whose MAX and MIN levels alternate, and declines the others."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    engine = f"{sys.executable} -m starbench.examples.openspiel_engine"
    code = cli.main(
        ["conform", "--engine", engine, "--algorithm", "expectimax", "--trees", "20",
         "--out", str(tmp_path / "out")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert _row(out, "disagree") == "0" and int(_row(out, "agree")) >= 150
    assert int(_row(out, "agree")) + int(_row(out, "unsupported")) == 350
    assert "do not alternate" in out
