"""Game sources as kinds (``games.source.GameKind``): a new kind of game is one module (its
states, its kind) plus one registry line, and ``solve``'s and ``run``'s paths take it as they
take OpenSpiel's and backgammon's, with its own extras refused where it has none.

The toy kind here, ``race``: two players take turns moving a counter towards 3, each turn
either one step or a gamble (a chance node: 0 or 2 steps, one half each); the first to reach 3
wins (+1 to the winner, -1 to the other).  Its states speak OpenSpiel's state API."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pandas as pd
import pytest

from starbench.commands import cli
from starbench.engines import search
from starbench.errors import InputError
from starbench.games import source
from starbench.games.adapter import GameTree
from starbench.games.source import GAME_KINDS, GameKind, GameSource, game_source, kind_of
from starbench.games.spec import GameSpec

GOAL = 3


@dataclass(frozen=True)
class Race:
    scores: tuple[int, int] = (0, 0)
    to_move: int = 0
    gamble: bool = False  # a chance node: the mover's gamble, rolled

    def current_player(self) -> int:
        return -1 if self.gamble else self.to_move

    def is_terminal(self) -> bool:
        return max(self.scores) >= GOAL

    def is_chance_node(self) -> bool:
        return self.gamble

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() or self.gamble else [0, 1]  # 0: a step, 1: a gamble

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (2, 0.5)] if self.gamble else []

    def _moved(self, steps: int) -> Race:
        s = list(self.scores)
        s[self.to_move] += steps
        return Race((s[0], s[1]), 1 - self.to_move, False)

    def child(self, action: int) -> Race:
        if self.gamble:
            return self._moved(action)
        return self._moved(1) if action == 0 else Race(self.scores, self.to_move, True)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        win = 1.0 if self.scores[0] >= GOAL else -1.0
        return [win, -win]

    def __str__(self) -> str:
        return f"{self.scores} {self.to_move} {self.gamble}"


def _make(game, depth, position, heuristic, exact, dice, move_order) -> GameSource:  # noqa: ANN001
    lead = lambda s: (s.scores[0] - s.scores[1]) / GOAL  # noqa: E731 - in (-1, 1)
    tree = GameTree(Race(), (-1, 1), horizon=depth, heuristic=lambda s: lead(s), exact=exact)
    return GameSource(tree, game, position or "", heuristic or "lead", version="race-1")


RACE = GameKind("race", lambda game: game == "race", _make, lambda *a: ("", None), lambda: "race-1")


@pytest.fixture
def race(monkeypatch):
    monkeypatch.setitem(GAME_KINDS, "race", RACE)  # the one registry line


def test_a_new_kind_is_one_registry_line_and_searches_as_any_game(race):
    assert kind_of("race") is RACE and kind_of("pig") is source.OPENSPIEL
    src = game_source("race", 4)
    ex = search(src.tree, "expectimax", engine="python")
    for name, params in (("star1", {}), ("star2", {}), ("star2.5-cyclic", {"k": 2})):
        r = search(src.tree, name, engine="python", **params)
        assert r.value == pytest.approx(ex.value) and r.stats.leaves <= ex.stats.leaves
    exact = search(game_source("race", 4, exact=True).tree, "star2", exact=True)
    assert isinstance(exact.value, Fraction) and float(exact.value) == pytest.approx(ex.value)
    with pytest.raises(InputError, match=r"^--dice: only backgammon takes dice, not race"):
        game_source("race", 2, dice="6,5")
    with pytest.raises(InputError, match=r"orders backgammon moves only, not race"):
        game_source("race", 2, move_order="equity")


def test_a_new_kind_runs_as_a_cell(race, tmp_path, capsys):
    spec = GameSpec("race", depth=3).validate()
    assert spec.version == "race-1"
    folder = tmp_path / "cell"
    code = cli.main(
        [
            "run",
            "tree=game",
            "tree.game=race",
            "tree.depth=3",
            "trees=2",
            "algorithms=[expectimax,star2]",
            "progress=false",
            f"hydra.run.dir={folder}",
        ]
    )
    assert code == 0, capsys.readouterr().err
    df = pd.read_parquet(folder / "table.parquet")
    assert set(df["status"]) == {"ok"} and set(df["game"]) == {"race"}
    assert set(df["game_version"]) == {"race-1"}
