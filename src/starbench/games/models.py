"""Native game models: a game's rules as compiled functions over a fixed-size int64 state, the
one contract through which a compiled search reads a game (the games at native speed).

**The contract.**  A model of one game string is a ``GameModel``: the game's parameters as an
int64 array ``p`` and these numba functions, each of ``(p, s)`` with ``s`` the state, an int64
array of ``size`` numbers:

* ``player(p, s)``: the player to move (0 or 1), ``CHANCE`` (-1) at a chance node, ``TERMINAL``
  (-4) when the game is over (OpenSpiel's ids);
* ``n_moves(p, s)`` and ``move(p, s, i)``: the number of legal moves and the i-th move's
  OpenSpiel action id, in OpenSpiel's order;
* ``n_outcomes(p, s)``, ``outcome(p, s, i)`` and ``probability(p, s, i)``: a chance node's
  outcomes (OpenSpiel action ids) and their probabilities, in OpenSpiel's order;
* ``apply(p, s, action, out)``: the state after ``action`` (a move or an outcome) written into
  ``out`` (the search owns the memory: no allocation per node);
* ``returns(p, s, player)``: the player's return at a terminal state (0 elsewhere);
* ``heuristic(p, s, code, root_player)``: the named heuristic ``HEURISTIC_CODES[code]`` of a
  state, computed from its numbers (never from text), as the project's heuristic of that name
  gives it (``games.heuristics``), from the root player's point of view;
* ``key(p, s)``: a 64-bit transposition key (equal keys: equal states);

and, in Python, ``from_state(pyspiel_state) -> s``: a position as a model state.

A model speaks OpenSpiel action ids, so a search's best move maps to the game's own action
as the Python engine's does (``GameSource.action``).  No state survives a call: a model is
pure functions of ``(p, s)``.  Models by game (``MODELS``): OpenSpiel's ``pig`` for every
``winscore``, ``diceoutcomes`` and ``horizon`` (``piglet`` stays on the Python engine).

The compiled search over models comes after this contract (the kernel over a model as the
environment, as mctx hands its search an environment function and pgx steps a game over
arrays); the contract is tested now against OpenSpiel itself, move by move, outcome by outcome
(``tests/test_game_models.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from starbench.errors import InputError

CHANCE = -1  # OpenSpiel's kChancePlayerId
TERMINAL = -4  # OpenSpiel's kTerminalPlayerId
#: The named heuristics a model computes, by code (the names of ``games.heuristics``).
HEURISTIC_CODES = ("zero", "score_difference", "score_share")


@dataclass(frozen=True)
class GameModel:
    """One game's model: its parameters ``params`` (int64), the state's ``size`` and the
    contract's functions (see the module docstring)."""

    game: str
    params: Any
    size: int
    player: Callable[..., int]
    n_moves: Callable[..., int]
    move: Callable[..., int]
    n_outcomes: Callable[..., int]
    outcome: Callable[..., int]
    probability: Callable[..., float]
    apply: Callable[..., None]
    returns: Callable[..., float]
    heuristic: Callable[..., float]
    key: Callable[..., int]
    from_state: Callable[[Any], Any]
    heuristics: tuple[str, ...]

    def heuristic_code(self, name: str) -> int:
        """The code of the heuristic ``name`` (one line naming the ones this model computes)."""
        if name not in self.heuristics:
            raise InputError(
                f"heuristic: {name!r} is not computed by {self.game}'s model (it computes "
                f"{', '.join(self.heuristics)})"
            )
        return HEURISTIC_CODES.index(name)


# --------------------------------------------------------------------------- pig
# p = [winscore, diceoutcomes, horizon]
# s = [score 0, score 1, turn total, turn player, player to move (-1: rolling), total moves]
PIG_SIZE = 6


@njit(cache=True)
def pig_terminal(p, s):  # noqa: ANN001, ANN201
    return s[5] >= p[2] or s[0] >= p[0] or s[1] >= p[0]


@njit(cache=True)
def pig_player(p, s):  # noqa: ANN001, ANN201
    if pig_terminal(p, s):
        return TERMINAL
    return s[4]


@njit(cache=True)
def pig_n_moves(p, s):  # noqa: ANN001, ANN201
    if pig_terminal(p, s) or s[4] == CHANCE:
        return 0
    return 1 if s[s[4]] + s[2] >= p[0] else 2  # at the win score: stop only


@njit(cache=True)
def pig_move(p, s, i):  # noqa: ANN001, ANN201
    if pig_n_moves(p, s) == 1:
        return 1  # stop
    return i  # 0 roll, 1 stop


@njit(cache=True)
def pig_n_outcomes(p, s):  # noqa: ANN001, ANN201
    return p[1] if s[4] == CHANCE and not pig_terminal(p, s) else 0


@njit(cache=True)
def pig_outcome(p, s, i):  # noqa: ANN001, ANN201
    return i  # face i + 1


@njit(cache=True)
def pig_probability(p, s, i):  # noqa: ANN001, ANN201
    return 1.0 / p[1]


@njit(cache=True)
def pig_apply(p, s, action, out):  # noqa: ANN001, ANN201
    for j in range(PIG_SIZE):
        out[j] = s[j]
    if s[4] == CHANCE:
        if action == 0:  # a one: the turn total is lost, the turn passes
            out[2] = 0
            out[3] = 1 - s[3]
            out[4] = out[3]
        else:
            out[2] = s[2] + action + 1
            out[4] = s[3]
    elif action == 0:  # roll
        out[4] = CHANCE
        out[5] = s[5] + 1
    else:  # stop: bank the turn total
        out[s[3]] = s[s[3]] + s[2]
        out[2] = 0
        out[3] = 1 - s[3]
        out[4] = out[3]
        out[5] = s[5] + 1


@njit(cache=True)
def pig_returns(p, s, player):  # noqa: ANN001, ANN201
    if not pig_terminal(p, s):
        return 0.0
    for q in range(2):
        if s[q] >= p[0]:
            return 1.0 if q == player else -1.0
    return 0.0  # over the horizon, nobody won


@njit(cache=True)
def pig_heuristic(p, s, code, root_player):  # noqa: ANN001, ANN201
    if code == 0:
        return 0.0
    diff = s[root_player] - s[1 - root_player]  # banked scores, the turn total not counted
    if code == 1:
        return float(diff)
    return diff / p[0]  # score_share: in (-1, 1)


@njit(cache=True)
def pig_key(p, s):  # noqa: ANN001, ANN201
    k = np.uint64(14695981039346656037)  # FNV-1a over the state's numbers
    for j in range(PIG_SIZE):
        k = (k ^ np.uint64(s[j] & 0xFFFFFFFF)) * np.uint64(1099511628211)
    return np.int64(k >> np.uint64(1))


def pig_model(game: Any) -> GameModel:
    """The model of a loaded OpenSpiel pig game (two players; ``piglet`` is refused)."""
    params = game.get_parameters()
    if int(params.get("players", 2)) != 2 or bool(params.get("piglet", False)):
        raise InputError(f"{game}: pig's model plays two players without piglet")
    p = np.array(
        [int(params["winscore"]), int(params["diceoutcomes"]), int(params["horizon"])], np.int64
    )

    def from_state(state: Any) -> Any:
        """The model state of a pyspiel pig state, read from its history (no text): the
        actions replayed on the model from the start."""
        s = np.array([0, 0, 0, 0, 0, 0], np.int64)
        out = np.empty_like(s)
        for action in state.history():
            pig_apply(p, s, int(action), out)
            s, out = out, s
        return s

    return GameModel(
        str(game),
        p,
        PIG_SIZE,
        pig_player,
        pig_n_moves,
        pig_move,
        pig_n_outcomes,
        pig_outcome,
        pig_probability,
        pig_apply,
        pig_returns,
        pig_heuristic,
        pig_key,
        from_state,
        HEURISTIC_CODES,
    )


#: Models by OpenSpiel short name: the game's loaded pyspiel game -> its model.
MODELS: dict[str, Callable[[Any], GameModel]] = {"pig": pig_model}


def model_of(game: Any) -> GameModel | None:
    """The model of a loaded OpenSpiel game, or None where it has none (the Python engine
    searches it); a game a model refuses (pig's piglet) is None too."""
    make = MODELS.get(game.get_type().short_name)
    if make is None:
        return None
    try:
        return make(game)
    except InputError:
        return None
