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

and, in Python, ``from_state(pyspiel_state) -> s``: a position as a model state, ``initial()``:
the game's first state, and ``frame(s, depth)``: the most children a node has and the deepest
level (chance levels counted) of a search ``depth`` decision plies deep from ``s``.

A model speaks OpenSpiel action ids, so a search's best move maps to the game's own action
as the Python engine's does (``GameSource.action``).  No state survives a call: a model is
pure functions of ``(p, s)``.  Models by game (``MODELS``): OpenSpiel's ``pig`` for every
``winscore``, ``diceoutcomes`` and ``horizon`` (``piglet`` stays on the Python engine), and
Einstein würfelt nicht (its two set-up draws, the die, captures of either colour, both ways to
win), with ``einstein_progress`` computed from the board.

The compiled kernel searches a model as its environment (``compiled.models``, as mctx hands
its search an environment function and pgx steps a game over arrays); the contract is tested
against OpenSpiel itself, move by move, outcome by outcome, and the kernel over it against the
Python engine (``tests/test_game_models.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from starbench.errors import InputError

CHANCE = -1  # OpenSpiel's kChancePlayerId
TERMINAL = -4  # OpenSpiel's kTerminalPlayerId
#: The named heuristics a model computes, by code (the names of ``games.heuristics``).
HEURISTIC_CODES = ("zero", "score_difference", "score_share", "einstein_progress")


@dataclass(frozen=True)
class GameModel:
    """One game's model: its parameters ``params`` (int64), the state's ``size`` and the
    contract's functions (see the module docstring)."""

    game: str
    #: the model's family, by which the compiled kernel finds the contract's functions: its
    #: game's OpenSpiel short name in ``MODELS`` (pig for every rule setting, whose rules are
    #: in ``params``), so one compiled kernel serves a family
    family: str
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
    #: ``frame(s, depth)``: (the most children a node searched ``depth`` decision plies from
    #: state ``s`` has, the deepest level such a search reaches, chance levels counted): what a
    #: search's stack holds
    frame: Callable[[Any, int], tuple[int, int]]
    #: ``initial()``: the game's first state
    initial: Callable[[], Any]

    def heuristic_code(self, name: str) -> int:
        """The code of the heuristic ``name`` (one line naming the ones this model computes)."""
        if name not in self.heuristics:
            raise InputError(
                f"heuristic: {name!r} is not computed by {self.game}'s model (it computes "
                f"{', '.join(self.heuristics)})"
            )
        return HEURISTIC_CODES.index(name)


#: The contract's compiled functions, in ``GameModel``'s order: a model ``x`` names them
#: ``x_player``, ``x_n_moves``, ... in this module.
CONTRACT = (
    "player",
    "n_moves",
    "move",
    "n_outcomes",
    "outcome",
    "probability",
    "apply",
    "returns",
    "heuristic",
    "key",
)


def _contract(prefix: str) -> tuple[Any, ...]:
    """Model ``prefix``'s functions of the contract, in ``CONTRACT`` order."""
    return tuple(globals()[f"{prefix}_{name}"] for name in CONTRACT)


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
    if code == 0 or code == 3:  # zero (einstein_progress is not pig's)
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


@njit(cache=True)
def pig_replay(p, s, history):  # noqa: ANN001, ANN201
    """The state after ``history`` (action ids) from ``s``."""
    out = np.empty_like(s)
    for a in history:
        pig_apply(p, s, a, out)
        s, out = out, s
    return s


def pig_model(game: Any) -> GameModel:
    """The model of a loaded OpenSpiel pig game (two players; ``piglet`` is refused)."""
    params = game.get_parameters()
    if int(params.get("players", 2)) != 2 or bool(params.get("piglet", False)):
        raise InputError(f"{game}: pig's model plays two players without piglet")
    return pig_model_of(
        int(params["winscore"]), int(params["diceoutcomes"]), int(params["horizon"]), str(game)
    )


def pig_model_of(winscore: int, diceoutcomes: int, horizon: int, name: str = "") -> GameModel:
    """Pig's model for these rules (two players, no piglet): OpenSpiel's parameters."""
    p = np.array([winscore, diceoutcomes, horizon], np.int64)

    def initial() -> Any:
        return np.zeros(PIG_SIZE, np.int64)

    def from_state(state: Any) -> Any:
        """The model state of a pyspiel pig state, read from its history (no text): the
        actions replayed on the model from the start, in one compiled call."""
        return pig_replay(p, initial(), np.asarray(state.history(), np.int64))

    def frame(s: Any, depth: int) -> tuple[int, int]:
        return max(2, diceoutcomes), 2 * depth + 1  # a roll's chance node after each ply

    heuristics = ("zero", "score_difference", "score_share")
    name = name or f"pig(diceoutcomes={diceoutcomes},horizon={horizon},winscore={winscore})"
    return GameModel(
        name, "pig", p, PIG_SIZE, *MODELS["pig"].functions, from_state, heuristics, frame, initial
    )


# --------------------------------------------------------------------------- Einstein
# s = 25 cells (row by row; 0 empty, +v a black cube of value v, -v a white one), then the
# player to move (-1: chance), the player who moved last, the die, the turns (-1 and 0: the
# two set-up draws), the winner (-1: none) and each side's cubes.
E_CELLS, E_TO_MOVE, E_PREV, E_DIE, E_TURNS, E_WINNER, E_BLACK, E_WHITE = range(25, 33)
EINSTEIN_SIZE = 33
_E_DR = np.array([1, 1, 0, -1, -1, 0], np.int64)  # directions: black's 0-2, white's 3-5
_E_DC = np.array([1, 0, 1, 0, -1, -1], np.int64)


@njit(cache=True)
def einstein_terminal(p, s):  # noqa: ANN001, ANN201
    return s[E_WINNER] >= 0 or s[E_BLACK] == 0 or s[E_WHITE] == 0


@njit(cache=True)
def einstein_player(p, s):  # noqa: ANN001, ANN201
    if einstein_terminal(p, s):
        return TERMINAL
    return s[E_TO_MOVE]


@njit(cache=True)
def _einstein_cubes(s):  # noqa: ANN001, ANN202
    """(how many, the first cell, the second cell or -1) of the cubes the die lets the player
    to move move, in board order: the cube of the die's value, else the nearest values below
    and above it (no array: a model allocates nothing per node)."""
    sign = 1 if s[E_TO_MOVE] == 0 else -1
    die = s[E_DIE]
    low, low_at, high, high_at = 0, -1, 7, -1
    for cell in range(25):
        v = sign * s[cell]
        if v <= 0:
            continue
        if v == die:
            return 1, cell, -1
        if low < v < die:
            low, low_at = v, cell
        elif die < v < high:
            high, high_at = v, cell
    if low_at >= 0 and high_at >= 0:
        return 2, min(low_at, high_at), max(low_at, high_at)
    if low_at >= 0:
        return 1, low_at, -1
    if high_at >= 0:
        return 1, high_at, -1
    return 0, -1, -1


@njit(cache=True)
def _einstein_move_at(s, i):  # noqa: ANN001, ANN202
    """(the legal moves counted, the i-th one's OpenSpiel action id or -1), the moves in
    OpenSpiel's order; ``i`` = -1 counts them all."""
    n, first, second = _einstein_cubes(s)
    player = s[E_TO_MOVE]
    k = 0
    for j in range(n):
        cell = first if j == 0 else second
        r, c = cell // 5, cell % 5
        for o in range(3):
            d = player * 3 + o
            r2, c2 = r + _E_DR[d], c + _E_DC[d]
            if 0 <= r2 < 5 and 0 <= c2 < 5:
                if k == i:
                    cap = 1 if s[r2 * 5 + c2] != 0 else 0
                    return k, ((r * 5 + c) * 6 + d) * 2 + cap
                k += 1
    return k, -1


@njit(cache=True)
def einstein_n_moves(p, s):  # noqa: ANN001, ANN201
    if einstein_terminal(p, s) or s[E_TO_MOVE] == CHANCE:
        return 0
    return _einstein_move_at(s, -1)[0]


@njit(cache=True)
def einstein_move(p, s, i):  # noqa: ANN001, ANN201
    return _einstein_move_at(s, i)[1]


@njit(cache=True)
def einstein_n_outcomes(p, s):  # noqa: ANN001, ANN201
    if einstein_terminal(p, s) or s[E_TO_MOVE] != CHANCE:
        return 0
    return 720 if s[E_TURNS] <= 0 else 6  # the set-up draws: a permutation of the cubes


@njit(cache=True)
def einstein_outcome(p, s, i):  # noqa: ANN001, ANN201
    return i


@njit(cache=True)
def einstein_probability(p, s, i):  # noqa: ANN001, ANN201
    return 1.0 / 720 if s[E_TURNS] <= 0 else 1.0 / 6


#: The set-up cells of each side, in board order: black's r + c <= 2, white's r + c >= 6.
_E_SETUP = np.array([[0, 1, 2, 5, 6, 10], [14, 18, 19, 22, 23, 24]], np.int64)


@njit(cache=True)
def einstein_apply(p, s, action, out):  # noqa: ANN001, ANN201
    for j in range(EINSTEIN_SIZE):
        out[j] = s[j]
    if s[E_TO_MOVE] == CHANCE:
        if s[E_TURNS] <= 0:  # a set-up draw: permutation ``action`` of 1..6, lexicographic
            side = s[E_TURNS] + 1  # -1: black's, 0: white's
            rank, fact, used = action, 120, 0  # used: a bit per value placed
            for k in range(6):
                q = rank // fact
                rank -= q * fact
                v = 0  # the q-th value of 1..6 not placed yet
                for cand in range(1, 7):
                    if not (used >> cand) & 1:
                        if q == 0:
                            v = cand
                            break
                        q -= 1
                used |= 1 << v
                out[_E_SETUP[side, k]] = v if side == 0 else -v
                if k < 5:
                    fact //= 5 - k
            out[E_TURNS] = s[E_TURNS] + 1
        else:  # the die: the other player moves
            out[E_TO_MOVE] = 1 - s[E_PREV]
            out[E_PREV] = out[E_TO_MOVE]
            out[E_DIE] = action + 1
            out[E_TURNS] = s[E_TURNS] + 1
        return
    d = (action // 2) % 6
    cell = action // 12
    r, c = cell // 5, cell % 5
    r2, c2 = r + _E_DR[d], c + _E_DC[d]
    to = r2 * 5 + c2
    if s[to] > 0:
        out[E_BLACK] -= 1
    elif s[to] < 0:
        out[E_WHITE] -= 1
    out[to] = s[cell]
    out[cell] = 0
    player = s[E_TO_MOVE]
    if (player == 0 and r2 == 4 and c2 == 4) or out[E_WHITE] == 0:
        out[E_WINNER] = 0
    elif (player == 1 and r2 == 0 and c2 == 0) or out[E_BLACK] == 0:
        out[E_WINNER] = 1
    out[E_TO_MOVE] = CHANCE
    out[E_TURNS] = s[E_TURNS] + 1


@njit(cache=True)
def einstein_returns(p, s, player):  # noqa: ANN001, ANN201
    if s[E_WINNER] == 0 or s[E_WHITE] == 0:
        black = 1.0
    elif s[E_WINNER] == 1 or s[E_BLACK] == 0:
        black = -1.0
    else:
        return 0.0
    return black if player == 0 else -black


@njit(cache=True)
def einstein_heuristic(p, s, code, root_player):  # noqa: ANN001, ANN201
    if code != 3:  # zero
        return 0.0
    # einstein_progress (games.heuristics): each side's nearest cube's distance to its corner
    # (black's the bottom right, white's the top left) and its cubes on the board
    best_b = best_w = 4
    n_b = n_w = 0
    for cell in range(25):
        r, c = cell // 5, cell % 5
        if s[cell] > 0:
            n_b += 1
            best_b = min(best_b, max(4 - r, 4 - c))
        elif s[cell] < 0:
            n_w += 1
            best_w = min(best_w, max(r, c))
    black = (3 * (best_w - best_b) + 2 * (n_b - n_w)) / 24  # one rounding, as the fraction's
    return black if root_player == 0 else -black


@njit(cache=True)
def einstein_key(p, s):  # noqa: ANN001, ANN201
    k = np.uint64(14695981039346656037)  # FNV-1a over the state, the turn count as its phase
    for j in range(EINSTEIN_SIZE):
        v = s[j]
        if j == E_TURNS:
            v = min(v, 1)  # past the set-up, the count does not change the subtree
        elif j == E_DIE and s[E_TO_MOVE] == CHANCE:
            v = 0  # a die already used
        k = (k ^ np.uint64(v & 0xFFFFFFFF)) * np.uint64(1099511628211)
    return np.int64(k >> np.uint64(1))


@njit(cache=True)
def einstein_replay(p, s, history):  # noqa: ANN001, ANN201
    """The state after ``history`` (action ids) from ``s``."""
    out = np.empty_like(s)
    for a in history:
        einstein_apply(p, s, a, out)
        s, out = out, s
    return s


def einstein_model(game: Any) -> GameModel:
    """The model of OpenSpiel's Einstein würfelt nicht (no parameters)."""
    p = np.zeros(1, np.int64)

    def initial() -> Any:
        s = np.zeros(EINSTEIN_SIZE, np.int64)
        s[E_TO_MOVE], s[E_PREV], s[E_TURNS], s[E_WINNER] = CHANCE, 0, -1, -1
        s[E_BLACK] = s[E_WHITE] = 6
        return s

    def from_state(state: Any) -> Any:
        """The model state of a pyspiel state, its history replayed on the model in one
        compiled call."""
        return einstein_replay(p, initial(), np.asarray(state.history(), np.int64))

    def frame(s: Any, depth: int) -> tuple[int, int]:
        # the set-up draws (720 placements each, three chance levels in a row with the first
        # roll), then a roll of 6 and at most 6 moves (the die's cube or its two neighbours,
        # three directions each) per ply
        return (720 if s[E_TURNS] < 1 else 6), 2 * depth + 3

    heuristics = ("zero", "einstein_progress")
    family = "einstein_wurfelt_nicht"
    functions = MODELS[family].functions
    return GameModel(
        str(game), family, p, EINSTEIN_SIZE, *functions, from_state, heuristics, frame, initial
    )


@dataclass(frozen=True)
class ModelKind:
    """A game's native model in the registry: the contract's compiled functions (``CONTRACT``
    order), and ``make(game)``: the ``GameModel`` of a loaded game of it (its parameters read
    from the game; ``InputError`` for rules the model does not play)."""

    functions: tuple[Any, ...]
    make: Callable[[Any], GameModel]


#: The games with a native model, by OpenSpiel short name (also the model's ``family``: the
#: compiled kernel finds the family's functions here).  A new game is one module with its
#: functions and its ``make``, plus one line here.
MODELS: dict[str, ModelKind] = {
    "pig": ModelKind(_contract("pig"), pig_model),
    "einstein_wurfelt_nicht": ModelKind(_contract("einstein"), einstein_model),
}


def model_key(game: Any) -> Callable[[Any], int] | None:
    """The transposition key of a pyspiel state of ``game`` by its model (``key`` of the state
    ``from_state`` reads), or None where the game has no model: the one key both engines use,
    so that their tables hold the same entries in the same slots."""
    model = model_of(game)
    if model is None:
        return None
    key, params, from_state = model.key, model.params, model.from_state
    return lambda state: int(key(params, from_state(state)))


def model_of(game: Any) -> GameModel | None:
    """The model of a loaded OpenSpiel game, or None where it has none (the Python engine
    searches it); a game a model refuses (pig's piglet) is None too.  Made once per game
    string (a model is pure: its functions and parameters)."""
    kind = MODELS.get(game.get_type().short_name)
    if kind is None:
        return None
    return _made(kind.make, _ByName(game))


class _ByName:
    """A loaded game keyed by its string (pyspiel's games are not hashable)."""

    __slots__ = ("game", "name")

    def __init__(self, game: Any):
        self.game, self.name = game, str(game)

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByName) and other.name == self.name


@functools.lru_cache(maxsize=64)
def _made(make: Callable[[Any], GameModel], game: _ByName) -> GameModel | None:
    try:
        return make(game.game)
    except InputError:
        return None
