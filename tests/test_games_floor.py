"""``scripts/games_floor.py``: a search's own calls to the game, recorded and replayed alone."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from starbench.games.source import GAMES_INSTALL, game_source
from starbench.search import reference_search as search

pyspiel = pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def _floor(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("games_floor", SCRIPTS / "games_floor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _name(line):
    """The call a recorded line makes: ``h`` (the heuristic) or the state method's name."""
    return "h" if line.startswith("h(") else line.split("].", 1)[1].split("(")[0]


def test_the_replay_makes_the_searchs_calls_and_nothing_else(monkeypatch):
    gf = _floor(monkeypatch)
    before = {name: getattr(pyspiel.State, name) for name in gf.GAME_CALLS}
    src = game_source("einstein_wurfelt_nicht", 2, "0,0")
    lines, roots, result = gf.record(src, "star2", {})
    assert {name: getattr(pyspiel.State, name) for name in gf.GAME_CALLS} == before  # put back
    plain = search(game_source("einstein_wurfelt_nicht", 2, "0,0").tree, "star2")
    assert (result.value, result.stats) == (plain.value, plain.stats)
    recorded = [_name(line) for line in lines if "= K[" not in line]
    # a state for every node entered once (the root is given), none for a re-entry
    assert recorded.count("child") >= result.stats.nodes - result.stats.resumed - 1
    assert recorded.count("h") == result.stats.leaves  # no terminal within two plies here
    # the replay, traced in turn, makes the same calls in the same order
    seen = []
    for name, f in before.items():
        monkeypatch.setattr(
            pyspiel.State, name, lambda self, *a, n=name, f=f: (seen.append(n), f(self, *a))[1]
        )
    gf.compile_calls(lines)(roots, lambda state: seen.append("h") or 0)
    assert seen == recorded


def test_the_floor_report_gives_both_speed_ups(monkeypatch, tmp_path):
    gf = _floor(monkeypatch)
    monkeypatch.setattr(gf.bg, "SEARCHES", (("pig", None, 2),))
    out = tmp_path / "floor.md"
    assert gf.main(["--repeats", "2", "--out", str(out)]) == 0
    text = out.read_text()
    assert "| game calls | OpenSpiel s | search s | calls alone s | speed-up |" in text
    row = next(r for r in text.splitlines() if r.startswith("| pig() |"))
    assert row.split(" | ")[3] == str(search(game_source("pig", 2).tree, "star2").stats.nodes)
