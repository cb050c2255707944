"""Games that fail (or warn) in one line: a heuristic that tells no position apart is said
after the search, naming it; a long game search says its estimated size before it starts and
takes a node budget; a budget stop is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "pyspiel", reason='needs OpenSpiel: pip install -c constraints.txt -e ".[games]"'
)

EXE = str(Path(sys.executable).parent / "starbench")


def starbench(*args, cwd=None):
    return subprocess.run(
        [EXE, *args], capture_output=True, text=True, cwd=cwd, env=dict(os.environ), timeout=300
    )


def test_a_heuristic_that_sees_nothing_is_said_after_the_search():
    p = starbench("solve", "--game", "chess", "--depth", "1", "-a", "expectimax", "-a", "star1")
    assert p.returncode == 0, p.stderr
    notes = [ln for ln in p.stderr.splitlines() if "every leaf" in ln]
    assert len(notes) == 1 and "'zero'" in notes[0] and "chess" in notes[0]


def test_an_informative_heuristic_is_not_flagged():
    p = starbench("solve", "--game", "pig", "--depth", "2")
    assert p.returncode == 0, p.stderr
    assert "every leaf" not in p.stderr


def test_flat_value_tracks_both_search_paths():
    """The fused expectimax and the reference searches record the leaves' range alike."""
    from starbench import search
    from starbench.games import game_source

    for name in ("expectimax", "star2"):
        flat = game_source("chess", 1)
        search(flat.tree, name)
        assert flat.tree.flat_value() == 0, name
        varied = game_source("pig", 2)
        search(varied.tree, name)
        assert varied.tree.flat_value() is None, name


def test_a_long_game_search_says_its_size_and_takes_a_budget():
    p = starbench(
        "solve", "--game", "einstein_wurfelt_nicht", "--depth", "1", "--node-budget", "1000",
        "-a", "expectimax",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    size = [ln for ln in lines if "may visit about" in ln]
    assert len(size) == 1 and "--node-budget 1000 bounds each search" in size[0]
    assert any("expectimax stopped at --node-budget 1000" in ln for ln in lines)
    assert "Traceback" not in p.stderr


def test_a_bad_node_budget_is_one_line():
    p = starbench("solve", "--game", "pig", "--depth", "2", "--node-budget", "0")
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "--node-budget" in p.stderr


def test_run_says_a_flat_heuristic_once_per_cell(tmp_path):
    p = starbench(
        "run", "tree=game", "tree.game=chess", "tree.depth=1", "trees=2", "progress=false",
        "algorithms=[expectimax,star1]", f"hydra.run.dir={tmp_path / 'out'}",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    notes = [ln for ln in p.stderr.splitlines() if "every leaf" in ln]
    assert len(notes) == 1 and "'zero'" in notes[0] and "tree.heuristic" in notes[0]


def test_run_says_a_long_game_cell_before_it_runs():
    from starbench.experiment.plan import long_game_notes
    from starbench.games.spec import GameSpec

    class Settings:
        seed, node_budget = 0, None
        tree = GameSpec(game="einstein_wurfelt_nicht", depth=2, position="")

    (line,) = long_game_notes(Settings())
    assert "may visit about" in line and "node_budget=N" in line
    Settings.tree = GameSpec(game="pig", depth=2, position="")
    assert long_game_notes(Settings()) == []
