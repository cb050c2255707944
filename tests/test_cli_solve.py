"""``starbench solve``: output, JSON contract, exit codes; the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from starbench.commands import cli
from starbench.examples import example_path
from starbench.search import registry
from starbench.search.registry import ALGORITHMS, AlgorithmInfo
from starbench.search.star1 import Star1

ABSTRACT = str(example_path("seed-abstract"))
DICE = str(example_path("dice-small"))


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_default_runs_every_algorithm_that_applies(capsys):
    code, out, err = run(capsys, "solve", ABSTRACT)
    assert code == 0 and err == ""
    shown = {line.split()[0].split(":")[0] for line in out.splitlines()[1:] if line.strip()}
    for name, info in ALGORITHMS.items():  # the inexact ones and the readings only when named
        assert (name in shown) == (info.exact and not info.reading), name
    code, out, _ = run(capsys, "solve", DICE, "--json")
    names = [r["algorithm"] for r in json.loads(out)]
    assert names == ["expectimax", "star1", "star2", "star2.5-cyclic", "star2.5-sequential"]


def test_json_contract(capsys):
    code, out, err = run(
        capsys,
        "solve",
        DICE,
        "--json",
        "--exact",
        "-a",
        "star2.5-cyclic:k=3,after_probe=research",
        "-a",
        "star1",
        "-a",
        "star2",
    )
    assert code == 0 and err == ""
    rows = json.loads(out)
    keys = ["algorithm", "k", "after_probe", "value", "best_move", "nodes", "leaves", "seconds"]
    keys += ["cutoffs", "probes", "nodes_by_level", "leaves_by_level", "cutoffs_by_level"]
    keys += ["probes_by_level"]
    assert all(list(r) == keys for r in rows)
    assert rows[0]["algorithm"] == "star2.5-cyclic"
    assert (rows[0]["k"], rows[0]["after_probe"]) == (3, "research")
    assert (rows[1]["k"], rows[1]["after_probe"]) == (None, None)
    assert (rows[2]["k"], rows[2]["after_probe"]) == (None, "resume")
    assert rows[0]["value"] == "14/3" and rows[0]["best_move"] == 1
    code, out, _ = run(capsys, "solve", DICE, "--json", "-a", "expectimax")
    assert json.loads(out)[0]["value"] == pytest.approx(14 / 3)


def test_leaf_and_chance_roots_have_null_best_move(tmp_path, capsys):
    p = tmp_path / "c.json"
    p.write_text('{"bounds": [0, 4], "root": {"chance": [["1/4", 4], ["3/4", {"max": [0, 2]}]]}}')
    code, out, _ = run(capsys, "solve", str(p), "--json", "--exact")
    rows = json.loads(out)
    assert code == 0 and all(r["best_move"] is None and r["value"] == "5/2" for r in rows)


def test_list(capsys):
    code, out, _ = run(capsys, "solve", "--list")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(ALGORITHMS)
    seq = lines[list(ALGORITHMS).index("star2.5-sequential")]
    assert "k=2" in seq and "after_probe=resume" in seq
    assert "inexact" in lines[-1] and "samples=8" in lines[-1]  # star2-ss, sparse sampling


class _Broken(Star1):
    """Test-only algorithm that returns a wrong value (it adds 1 at the root)."""

    def _root(self):
        value, best, tied = super()._root()
        return value + 1, best, tied


def test_mismatch_prints_results_and_exits_1(capsys, monkeypatch):
    monkeypatch.setitem(registry.ALGORITHMS, "broken", AlgorithmInfo("broken", _Broken))
    code, out, err = run(capsys, "solve", DICE, "--json", "-a", "expectimax", "-a", "broken")
    assert code == 1
    assert len(json.loads(out)) == 2
    assert err.count("\n") == 1 and "values differ" in err and "broken" in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["solve", DICE, "-a", "nosuch"], "unknown algorithm 'nosuch'"),
        (["solve", DICE, "-a", "star2.5-cyclic:k=-1"], "k must be an integer >= 0, got -1"),
        (["solve", DICE, "-a", "star2.5-cyclic:k=1.5"], "k must be an integer >= 0, got '1.5'"),
        (["solve", DICE, "-a", "star2.5-cyclic:k=two"], "k must be an integer >= 0"),
        (
            ["solve", DICE, "-a", "star2:after_probe=again"],
            "after_probe must be one of resume, research",
        ),
        (["solve", DICE, "-a", "star1:k=2"], "unknown parameter 'k' for algorithm star1"),
        (["solve", DICE, "-a", "star2.5-cyclic:k"], "bad algorithm parameter 'k'"),
        (
            ["solve", DICE, "-a", "minimax"],
            "minimax does not apply to trees with chance nodes; "
            "first chance node: " + DICE + ": root.max[0]",
        ),
        (["solve", DICE, "-a", "alphabeta"], "first chance node"),
        (["solve", "/nonexistent.json"], "/nonexistent.json: cannot read the tree file"),
        (["solve"], "solve needs a TREE.json argument"),
        (["solve", DICE, "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_installed_console_script():
    exe = str(Path(sys.executable).parent / "starbench")
    if not Path(exe).exists():
        exe = shutil.which("starbench")
    p = subprocess.run(
        [exe, "solve", ABSTRACT, "--json", "--exact"], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert {(r["value"], r["best_move"]) for r in rows} == {("3", 0)}
    p = subprocess.run([exe, "solve", DICE, "-a", "minimax"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
