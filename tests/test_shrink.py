"""``starbench shrink``: a wrong algorithm's disagreement reduced to a 1-minimal tree.

Three deliberately wrong plugins (``tests/plugins/wrong_stars.py``: an expectimax that skips
the last outcome, a Star1 whose windows are off by one, a Star2 that stores a probe's bound in
the wrong place) each shrink to a tree of at most 10 nodes within 2,000 evaluations, from the
first of a fixed list of random trees on which it disagrees; the result is 1-minimal (no single
step keeps the disagreement) and ``solve`` shows it.  ``run`` prints the command under an
algorithm's first mismatch, once.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from environment import with_path
from starbench.external import shrink
from starbench.trees import RegularTreeSpec
from starbench.trees.explicit import load_tree, tree_to_json
from starbench.trees.regular import RegularTree

PLUGINS = Path(__file__).parent / "plugins"
EXE = str(Path(sys.executable).parent / "starbench")
ENV = with_path(PLUGINS)
#: Small integer values (resolution 10) and unequal probabilities: where off-by-one bugs show.
SPEC = RegularTreeSpec(branching=3, chance_arity=3, depth=2, resolution=10, distribution="random")
WRONG = ["skip-last-outcome", "star1-off-by-one", "star2-wrong-probe"]


@pytest.fixture(autouse=True)
def _wrong_plugins(monkeypatch):
    """The three registered for each test (the registry is restored after every test)."""
    import importlib

    monkeypatch.syspath_prepend(str(PLUGINS))
    if "wrong_stars" in sys.modules:
        importlib.reload(sys.modules["wrong_stars"])
    else:
        importlib.import_module("wrong_stars")


def _first_disagreeing(name: str) -> shrink.Tree:
    for seed in range(100):
        tree = shrink.Tree.of(tree_to_json(RegularTree(SPEC, seed=seed)))
        if shrink.disagreement(tree, name) is not None:
            return tree
    raise AssertionError(f"{name} agrees with expectimax on 100 trees")


@pytest.mark.parametrize("name", WRONG)
def test_each_wrong_plugin_shrinks_to_at_most_10_nodes(name, tmp_path):
    tree = _first_disagreeing(name)
    c0 = time.process_time()
    done = shrink.shrink(tree, name, max_evaluations=2000)
    cpu = time.process_time() - c0
    assert done is not None
    assert shrink.nodes(done.tree.root) <= 10, done.tree.json()
    assert done.evaluations <= 2000
    # 1-minimal: no single step keeps the disagreement
    smaller = [c for c in shrink.steps(done.tree) if c.size() < done.tree.size()]
    assert all(shrink.disagreement(c, name) is None for c in smaller)
    shrink.write(done, tmp_path / "shrunk.json")
    again = load_tree(tmp_path / "shrunk.json")  # the file solve reads (the answers ignored)
    assert again.bounds == done.tree.bounds
    doc = json.loads((tmp_path / "shrunk.json").read_text())
    assert doc["disagreement"]["expectimax"]["value"] == shrink._number(
        shrink.value(done.tree.root)
    )
    print(
        f"{name}: {done.start_nodes} -> {shrink.nodes(done.tree.root)} nodes, "
        f"{done.evaluations} evaluations, {cpu:.2f} s CPU"
    )


@pytest.mark.slow
def test_the_command_line_shrinks_and_solve_shows_it(tmp_path):
    tree = _first_disagreeing("skip-last-outcome")
    (tmp_path / "t.json").write_text(json.dumps(tree.json()))
    out = tmp_path / "s.json"
    base = [EXE, "shrink", str(tmp_path / "t.json"), "--plugin", "wrong_stars", "-o", str(out)]
    p = subprocess.run([*base, "--algorithm", "skip-last-outcome"], capture_output=True,
                       text=True, env=ENV)  # fmt: skip
    assert p.returncode == 0, p.stderr
    shown = p.stdout.splitlines()[-1].split("see it: ", 1)[1]
    s = subprocess.run(shlex.split(shown), capture_output=True, text=True, env=ENV)
    assert s.returncode == 1 and "MISMATCH" in s.stderr, (s.stdout, s.stderr)
    p = subprocess.run([*base, "--algorithm", "star1"], capture_output=True, text=True, env=ENV)
    assert p.returncode == 1 and "agrees with expectimax" in p.stdout
    for bad, said in (
        (["--algorithm", "nope"], "unknown algorithm 'nope'"),
        (["--algorithm", "star1", "--instance", "2"], "--instance goes with a cell folder"),
    ):
        p = subprocess.run([*base, *bad], capture_output=True, text=True, env=ENV)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and said in lines[0], p.stderr
    (tmp_path / "bad.json").write_text('{"bounds": [0, 1], "root": {"max": []}}')
    p = subprocess.run([EXE, "shrink", str(tmp_path / "bad.json"), "--algorithm", "star1"],
                       capture_output=True, text=True)  # fmt: skip
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.slow
def test_run_prints_the_shrink_command_under_the_first_mismatch(tmp_path):
    """Once per algorithm per cell; the command, as printed, shrinks the instance's tree."""
    cell = tmp_path / "cell"
    p = subprocess.run(
        [EXE, "run", "plugins=[wrong_stars]", "algorithms=[expectimax,skip-last-outcome]",
         "trees=3", "engine=python", "progress=false", f"hydra.run.dir={cell}"],
        capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    assert p.returncode == 1 and p.stderr.count("MISMATCH instance") == 3, p.stderr
    hints = [ln for ln in p.stderr.splitlines() if "shrink it: " in ln]
    assert hints == [
        f"  shrink it: starbench shrink {cell} --instance 0 --algorithm skip-last-outcome "
        f"--plugin wrong_stars"
    ]
    command = shlex.split(hints[0].split("shrink it: ", 1)[1])
    s = subprocess.run([EXE, *command[1:], "-o", str(tmp_path / "s.json")], capture_output=True,
                       text=True, env=ENV)  # fmt: skip
    assert s.returncode == 0, s.stderr
    assert shrink.nodes(shrink.Tree.of(json.loads((tmp_path / "s.json").read_text())).root) <= 10


@pytest.mark.slow
def test_a_game_instance_is_exported_then_shrunk_and_one_over_the_limit_is_one_line(tmp_path):
    """A game cell's instance is exported first (its tree from the row's position to the cell's
    depth), then shrunk; a game tree over ``--max-nodes`` is refused in one line, exit 2."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    cell = tmp_path / "cell"
    p = subprocess.run(
        [EXE, "run", "plugins=[wrong_stars]", "algorithms=[expectimax,skip-last-outcome]",
         "tree=game", "tree.game=pig", "tree.depth=2", "trees=1", "engine=python",
         "progress=false", f"hydra.run.dir={cell}"],
        capture_output=True, text=True, env=ENV,
    )  # fmt: skip
    assert p.returncode == 1 and "shrink it: " in p.stderr, p.stderr
    out = tmp_path / "s.json"
    base = [EXE, "shrink", str(cell), "--instance", "0", "--algorithm", "skip-last-outcome",
            "--plugin", "wrong_stars", "-o", str(out)]  # fmt: skip
    s = subprocess.run(base, capture_output=True, text=True, env=ENV)
    assert s.returncode == 0, s.stderr
    assert shrink.nodes(shrink.Tree.of(json.loads(out.read_text())).root) <= 10
    out.unlink()
    big = subprocess.run([*base, "--max-nodes", "5"], capture_output=True, text=True, env=ENV)
    lines = big.stderr.strip().splitlines()
    assert big.returncode == 2 and len(lines) == 1, big.stderr
    assert "more than 5 nodes" in lines[0] and "--max-nodes" in lines[0]
    assert not out.exists()
