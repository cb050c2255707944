"""Named heuristics: the value of a non-terminal game state at the search horizon.

A heuristic gives the value from the root player's point of view, and declares its bounds for a
game (the search's [L, U] is the union of those and the game's own utility range).  Every game
has a default heuristic (``DEFAULT_HEURISTIC``, else ``zero``); ``--heuristic`` / ``tree.heuristic``
names another one from ``HEURISTICS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from starbench.errors import InputError
from starbench.games.backgammon import equity_value  # gnubg-nn is imported only when used


@dataclass(frozen=True)
class Heuristic:
    """``value(state, root_player)``; ``bounds(game)`` -> (lowest, highest) value it gives;
    ``games``: the game short names it applies to (empty: any game)."""

    name: str
    value: Callable[[Any, int], Any]
    bounds: Callable[[Any], tuple[Any, Any]]
    games: tuple[str, ...]
    description: str


_PIG_SCORES = re.compile(r"Scores: (\d+) (\d+),")


def pig_score_difference(state: Any, root_player: int) -> int:
    """The root player's banked score minus the opponent's (the turn total not counted), read
    from OpenSpiel's text of a two-player pig state (``Scores: a b, Turn total: t``)."""
    m = _PIG_SCORES.match(str(state))
    if m is None:  # pragma: no cover - OpenSpiel changed pig's text
        raise InputError(f"score_difference: cannot read the scores of pig state {str(state)!r}")
    scores = (int(m.group(1)), int(m.group(2)))
    return scores[root_player] - scores[1 - root_player]


def pig_score_share(state: Any, root_player: int) -> Fraction:
    """``pig_score_difference`` divided by the game's ``winscore`` (read from the state's
    game): in (-1, 1), the units of pig's returns, so that a win (+1) is worth more to a search
    than any lead at its horizon.  An exact fraction (the adapter's float mode keeps it)."""
    w = int(state.get_game().get_parameters()["winscore"])
    return Fraction(pig_score_difference(state, root_player), w)


def _pig_bounds(game: Any) -> tuple[int, int]:
    w = int(game.get_parameters()["winscore"])
    return -w, w


def einstein_progress(state: Any, root_player: int) -> Fraction:
    """Einstein wurfelt nicht: the race to the far corner and the cube count, from OpenSpiel's
    board text (``|b1||__|...``, black, player 0, runs to the bottom right, white, player 1, to
    the top left; a cube moves one square a move, so a cube's distance to its corner is the
    larger of its row and column distances).  With d_b, d_w the distances of each side's
    nearest cube and n_b, n_w the cubes left, black's value is
    (d_w - d_b) / 8 + (n_b - n_w) / 12, in (-1, 1); white's is its negative."""
    rows = [line for line in str(state).splitlines() if line.startswith("|")]
    best = {"b": 4, "w": 4}
    count = {"b": 0, "w": 0}
    for r, line in enumerate(rows):
        for c, cell in enumerate(line.strip("|").split("||")):
            side = cell[:1]
            if side in best:
                count[side] += 1
                far = max(4 - r, 4 - c) if side == "b" else max(r, c)
                best[side] = min(best[side], far)
    if len(rows) != 5:  # pragma: no cover - OpenSpiel changed the game's text
        raise InputError(f"einstein_progress: cannot read the board of {str(state)!r}")
    black = Fraction(best["w"] - best["b"], 8) + Fraction(count["b"] - count["w"], 12)
    return black if root_player == 0 else -black


def _utility_bounds(game: Any) -> tuple[Any, Any]:
    return game.min_utility(), game.max_utility()


HEURISTICS: dict[str, Heuristic] = {
    "score_difference": Heuristic(
        "score_difference",
        pig_score_difference,
        _pig_bounds,
        ("pig",),
        "pig: banked score difference, root player minus opponent, in [-winscore, winscore]",
    ),
    "score_share": Heuristic(
        "score_share",
        pig_score_share,
        lambda game: (-1, 1),
        ("pig",),
        "pig: the banked score difference divided by winscore, in (-1, 1): the returns' units "
        "(a win, +1, beats any lead at the horizon; score_difference's points do not)",
    ),
    "equity": Heuristic(
        "equity",
        equity_value,
        lambda game: (-3, 3),
        ("backgammon",),
        "backgammon: GNU Backgammon's 0-ply cubeless money equity, in [-3, 3]",
    ),
    "einstein_progress": Heuristic(
        "einstein_progress",
        einstein_progress,
        lambda game: (-1, 1),
        ("einstein_wurfelt_nicht",),
        "Einstein wurfelt nicht: the nearest cube's distance to its corner against the "
        "opponent's, /8, plus the difference in cubes left, /12, in (-1, 1)",
    ),
    "zero": Heuristic(
        "zero",
        lambda state, root_player: 0,
        _utility_bounds,
        (),
        "0 for every state at the horizon (only terminals within the horizon count)",
    ),
}

#: Each game's heuristic when none is named (by OpenSpiel short name).
#: pig decides in the returns' units: a win (+1) outweighs any lead at the horizon
DEFAULT_HEURISTIC: dict[str, str] = {"pig": "score_share", "backgammon": "equity"}
#: The defaults up to starbench 0.2.0: a match recorded without its players' heuristics was
#: played with these (``starbench.commands.match``), and committed cells name them explicitly.
FORMER_DEFAULTS: dict[str, str] = {"pig": "score_difference"}


def get_heuristic(name: str | None, game_name: str, key: str = "--heuristic") -> Heuristic:
    """The heuristic ``name`` (or the game's default), checked to apply to ``game_name``."""
    name = name or DEFAULT_HEURISTIC.get(game_name, "zero")
    h = HEURISTICS.get(name)
    if h is None:
        raise InputError(f"{key}: unknown heuristic {name!r}; known: {', '.join(HEURISTICS)}")
    if h.games and game_name not in h.games:
        raise InputError(
            f"{key}: heuristic {name!r} applies to {', '.join(h.games)}, not to {game_name}"
        )
    return h
