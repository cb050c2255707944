"""Games as a tree source: a game name, a depth, a start position and a heuristic -> a GameTree.

Game names (``GAME_SOURCES``): an OpenSpiel ``load_game`` string (``pig``,
``pig(winscore=10)``), also written ``openspiel:<string>``.  The name ``backgammon`` is reserved
for GNU Backgammon's own evaluator (OpenSpiel's backgammon is ``openspiel:backgammon``).

OpenSpiel games need the ``games`` extra (``pip install -c constraints.txt -e ".[games]"``);
OpenSpiel is Apache-2.0 and is imported, never bundled.

Positions: for OpenSpiel games, a comma-separated action history from the initial state (chance
outcomes included, as OpenSpiel's ``history()`` lists them).  The search's root player is the
player to move there (player 0 when the position is a chance node).  ``depth`` counts decision
plies, as OpenSpiel's ``expectiminimax`` does (see ``starbench.games.adapter``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from starbench.errors import InputError
from starbench.games.adapter import GameTree
from starbench.games.heuristics import get_heuristic

GAMES_INSTALL = 'pip install -c constraints.txt -e ".[games]"'
OPENSPIEL_PREFIX = "openspiel:"


@dataclass(frozen=True)
class GameSource:
    """A game tree and what names it (the game, the position, the heuristic)."""

    tree: GameTree
    game: str
    position: str
    heuristic: str

    def action(self, move: int | None) -> int | None:
        """The game's action id of root child ``move`` (a best move)."""
        return None if move is None else self.tree.actions(self.tree.root)[move]


@contextmanager
def _captured_stderr() -> Iterator[Callable[[], str]]:
    """Capture what native code writes to file descriptor 2 (read it with the yielded call)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield lambda: (tmp.seek(0), tmp.read().decode(errors="replace"))[1]
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise InputError(f"OpenSpiel games need the games extra: {GAMES_INSTALL}") from None
    return pyspiel


def load_openspiel(spec: str, key: str = "--game") -> Any:
    """The pyspiel game of a ``load_game`` string, checked to be a two-player, zero-sum,
    sequential game of perfect information with explicit chance outcomes (what expectimax and
    the star algorithms search)."""
    pyspiel = _pyspiel()
    name = spec.split("(", 1)[0].strip()
    if name not in pyspiel.registered_names():
        raise InputError(
            f"{key}: {spec}: no OpenSpiel game {name!r} (pyspiel.registered_names() lists them)"
        )
    with _captured_stderr() as said:  # OpenSpiel's C++ writes its errors to stderr itself
        try:
            game = pyspiel.load_game(spec)
        except pyspiel.SpielError as e:
            first = (said() or str(e)).strip().splitlines()
            raise InputError(f"{key}: {spec}: {first[0] if first else 'not loadable'}") from None
    t = game.get_type()
    problems = []
    if t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        problems.append("chance outcomes are sampled, not listed with their probabilities")
    if t.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        problems.append("not sequential")
    if t.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        problems.append("not of perfect information")
    if game.num_players() != 2:
        problems.append(f"{game.num_players()} players")
    if t.utility not in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
        problems.append("not zero-sum")
    if problems:
        raise InputError(
            f"{key}: {spec}: {', '.join(problems)}; starbench searches two-player zero-sum "
            f"sequential games of perfect information"
        )
    return game


def openspiel_position(game: Any, position: str | None, key: str = "--position") -> Any:
    """The state after the comma-separated action history ``position`` (None: the start)."""
    state = game.new_initial_state()
    for i, text in enumerate((position or "").split(",") if position else []):
        try:
            action = int(text)
        except ValueError:
            raise InputError(f"{key}: item {i + 1} {text!r} is not an action id") from None
        if state.is_terminal():
            raise InputError(f"{key}: item {i + 1}: the game is already over")
        legal = (
            [a for a, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else list(state.legal_actions())
        )
        if action not in legal:
            raise InputError(
                f"{key}: item {i + 1}: action {action} is not legal there "
                f"(legal: {', '.join(map(str, legal))})"
            )
        state.apply_action(action)
    if state.is_terminal():
        raise InputError(f"{key}: the position is terminal: nothing to search")
    return state


def openspiel_source(
    spec: str, depth: int, position: str | None, heuristic: str | None, exact: bool
) -> GameSource:
    game = load_openspiel(spec)
    state = openspiel_position(game, position)
    short = game.get_type().short_name
    h = get_heuristic(heuristic, short)
    root_player = state.current_player() if not state.is_chance_node() else 0
    hL, hU = h.bounds(game)
    bounds = (min(hL, game.min_utility()), max(hU, game.max_utility()))
    tree = GameTree(
        state,
        bounds,
        horizon=depth,
        heuristic=lambda s: h.value(s, root_player),
        root_player=root_player,
        exact=exact,
    )
    return GameSource(
        tree,
        str(game),
        position or "",
        h.name,
    )


def _native_backgammon(*args: Any) -> GameSource:
    raise InputError(
        "--game: backgammon (GNU Backgammon's evaluator) is not available in this version; "
        "OpenSpiel's backgammon is openspiel:backgammon"
    )


#: Game sources by name; an unknown name is an OpenSpiel ``load_game`` string.
GAME_SOURCES: dict[str, Callable[..., GameSource]] = {"backgammon": _native_backgammon}


def game_source(
    game: str,
    depth: int,
    position: str | None = None,
    heuristic: str | None = None,
    *,
    exact: bool = False,
) -> GameSource:
    """The tree of ``game`` searched ``depth`` decision plies deep from ``position``."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InputError(f"--depth: must be an integer >= 1 (decision plies), got {depth!r}")
    if game in GAME_SOURCES:
        return GAME_SOURCES[game](depth, position, heuristic, exact)
    spec = game.removeprefix(OPENSPIEL_PREFIX)
    return openspiel_source(spec, depth, position, heuristic, exact)
