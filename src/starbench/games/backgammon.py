"""Backgammon with GNU Backgammon's own evaluator (``gnubg-nn``), as a game tree.

The optional extra ``backgammon`` installs it: ``pip install -c constraints.txt -e
".[backgammon]"``.  ``gnubg-nn`` is GPL-2.0; starbench (MIT) imports it at run time and never
bundles or redistributes it.

Rules of the tree (one game state = one node; the state API is OpenSpiel's, so the adapter
``starbench.games.adapter.GameTree`` searches it like any OpenSpiel game):

* a **chance node** is a position with a player on roll before the roll: 21 outcomes, the 6
  doubles at 1/36 and the 15 other rolls at 1/18 (action id = index in ``ROLLS``);
* a **decision node** is a position and a roll: one move per distinct resulting position, in
  the order ``gnubg_nn.moves`` lists them (action id = that index); a roll with no legal move is
  a decision node with one move, the pass (position unchanged, the opponent on roll), a ply like
  any other;
* a position where the mover has borne off every checker is **terminal**, worth its money
  result to the winner: 1, 2 (gammon: the loser has borne off none) or 3 (backgammon: also a
  loser's checker on the bar or in the winner's home board);
* at the horizon, a position with a player on roll is worth gnubg's 0-ply **cubeless money
  equity** for that player, ``2*win - 1 + wg - lg + wbg - lbg`` (in [-3, 3]), negated when the
  player on roll is not the root player (heuristic ``equity``).

Depth counts decision plies (as for every game); chance nodes are free.  The root is the roll
unless ``dice`` fixes it (then the root is the move decision for that roll, as in Hauk et al.).

Move ordering (``move_order``): ``none`` keeps gnubg's order; ``equity`` orders each decision
node's moves by the 0-ply equity of the resulting position for the mover, best first (Hauk et
al.'s ordering); ``equity_inner`` does the same except at the decision nodes just above the
horizon, whose children are the leaves themselves (ordering them costs one evaluation per leaf,
as much as expectimax's whole frontier).  Ordering evaluations are counted in ``order_evals``,
apart from the leaves.

gnubg-nn caches evaluations (a repeated position costs ~0.6 us instead of ~4 us); a search
would then run faster after another search of the same position.  starbench loads its own copy
of the network with the cache **disabled** (``net_load(weights, 0)``), so every evaluation is
computed and no search profits from another's.  Values are identical with and without it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction

from starbench.errors import InputError

BACKGAMMON_INSTALL = 'pip install -c constraints.txt -e ".[backgammon]"'
START_POSITION = "4HPwATDgc/ABMA"

#: The 21 distinct rolls (d1 >= d2), doubles first within each d1.
ROLLS: tuple[tuple[int, int], ...] = tuple(
    (d1, d2) for d1 in range(1, 7) for d2 in range(d1, 0, -1)
)
ROLL_PROBS: tuple[float, ...] = tuple(1 / 36 if d1 == d2 else 1 / 18 for d1, d2 in ROLLS)
EXACT_ROLL_PROBS: list[Fraction] = [
    Fraction(1, 36) if d1 == d2 else Fraction(1, 18) for d1, d2 in ROLLS
]
_OUTCOMES = tuple(enumerate(ROLL_PROBS))
EQUITY_BOUNDS = (-3, 3)

Board = tuple[tuple[int, ...], tuple[int, ...]]  # (opponent, player on roll), 25 points each


class _Engine:
    """The gnubg-nn module and its cache-free network, loaded once per process."""

    _instance: _Engine | None = None

    def __init__(self) -> None:
        try:
            import gnubg_nn
        except ImportError:
            raise InputError(
                f"--game backgammon needs GNU Backgammon's evaluator: {BACKGAMMON_INSTALL}"
            ) from None
        self.g = gnubg_nn
        weights = os.path.join(os.path.dirname(gnubg_nn.__file__), "data", "gnubg.weights")
        gnubg_nn.net_use(gnubg_nn.net_load(weights, 0))  # cache size 0: no cached evaluations
        self.moves = gnubg_nn.moves
        self.from_key = gnubg_nn.board_from_position_key
        self.probabilities = gnubg_nn.probabilities

    @classmethod
    def get(cls) -> _Engine:
        if cls._instance is None:
            cls._instance = _Engine()
        return cls._instance


def version() -> str | None:
    """The installed gnubg-nn version (None when it is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as v

    try:
        return v("gnubg-nn")
    except PackageNotFoundError:
        return None


def equity(engine: _Engine, board: Board) -> float:
    """0-ply cubeless money equity for the player on roll (``board[1]``)."""
    w, wg, wbg, lg, lbg = engine.probabilities(board, 0)
    return 2.0 * w - 1.0 + wg - lg + wbg - lbg


def result_points(loser: Sequence[int]) -> int:
    """1, 2 (gammon) or 3 (backgammon) for a win against ``loser``'s checkers (loser's view:
    index 24 the bar, 18-23 the winner's home board)."""
    if sum(loser) < 15:
        return 1
    return 3 if any(loser[18:25]) else 2


class BackgammonState:
    """A backgammon node with OpenSpiel's state API (see the module docstring).

    ``board``: (opponent, player on roll); ``player``: 0 or 1, the player on roll; ``dice``: the
    roll (a decision node) or None (a chance node); ``won``: the mover's points when the mover
    has just borne off (terminal), else 0; ``game``: the shared ``Backgammon``."""

    __slots__ = ("board", "player", "dice", "won", "game", "ply", "_moves")

    def __init__(
        self,
        game: Backgammon,
        board: Board,
        player: int,
        dice: tuple[int, int] | None,
        won: int = 0,
        ply: int = 0,
    ):
        self.game = game
        self.board = board
        self.player = player
        self.dice = dice
        self.won = won
        self.ply = ply  # decision plies made since the search's root
        self._moves: list[str] | None = None

    # --- OpenSpiel's state API
    def current_player(self) -> int:
        return -4 if self.won else (-1 if self.dice is None else self.player)

    def is_terminal(self) -> bool:
        return self.won != 0

    def is_chance_node(self) -> bool:
        return self.dice is None and not self.won

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return _OUTCOMES

    def move_keys(self) -> list[str]:
        """The position keys after each legal move (the mover still in ``[1]``)."""
        if self._moves is None:
            self._moves = list(self.game.engine.moves(self.board, *self.dice))
        return self._moves

    def legal_actions(self) -> list[int]:
        keys = self.move_keys()
        if not keys:
            return [0]  # the pass
        order = self.game.move_order
        if order == "equity" or (order == "equity_inner" and self.ply < self.game.horizon - 1):
            return self.game.ordered(self, keys)
        return list(range(len(keys)))

    def child(self, action: int) -> BackgammonState:
        game, ply = self.game, self.ply
        if self.dice is None:
            return BackgammonState(game, self.board, self.player, ROLLS[action], 0, ply)
        keys = self.move_keys()
        if not keys:  # the pass
            board = (self.board[1], self.board[0])
            return BackgammonState(game, board, 1 - self.player, None, 0, ply + 1)
        after = game.engine.from_key(keys[action])
        won = 0
        if not any(after[1]):  # the mover bore off the last checker
            won = result_points(after[0]) * (1 if self.player == 0 else -1)
        return BackgammonState(game, (after[1], after[0]), 1 - self.player, None, won, ply + 1)

    def returns(self) -> list[int]:
        return [self.won, -self.won]  # won > 0: player 0 won

    # --- text
    def position_id(self) -> str:
        return self.game.engine.g.position_id([list(self.board[0]), list(self.board[1])])

    def history(self) -> list[str]:  # what GameTree.describe shows for a node
        d = "" if self.dice is None else f" dice {self.dice[0]}-{self.dice[1]}"
        return [f"position {self.position_id()} player {self.player} on roll{d}"]

    def __str__(self) -> str:
        return self.history()[0]


class Backgammon:
    """One backgammon tree's shared parts: the engine, the move order and ``order_evals``."""

    def __init__(self, move_order: str = "none", horizon: int = 0):
        if move_order not in MOVE_ORDERS:
            raise InputError(
                f"--move-order: must be one of {', '.join(MOVE_ORDERS)}, got {move_order!r}"
            )
        self.engine = _Engine.get()
        self.move_order = move_order
        self.horizon = horizon  # the search's depth (equity_inner needs it)
        self.order_evals = 0

    def ordered(self, state: BackgammonState, keys: list[str]) -> list[int]:
        """Move indices by the mover's 0-ply equity after each move, best first (stable)."""
        e = self.engine
        scores = []
        for key in keys:
            after = e.from_key(key)
            if not any(after[1]):
                scores.append(float(result_points(after[0])))
            else:
                self.order_evals += 1
                scores.append(-equity(e, (after[1], after[0])))
        return sorted(range(len(keys)), key=lambda i: -scores[i])

    def state(self, position: str | None, dice: tuple[int, int] | None) -> BackgammonState:
        """The state at gnubg position ID ``position`` (None: the start), player 0 on roll."""
        text = position or START_POSITION
        try:
            board = self.engine.g.board_from_position_id(text)
        except Exception:  # noqa: BLE001 - gnubg raises plain errors for bad IDs
            board = None
        if not board or len(board) != 2 or sum(board[0]) > 15 or sum(board[1]) > 15:
            raise InputError(
                f"--position: {text!r} is not a gnubg position ID (14 characters, e.g. "
                f"{START_POSITION}, the player on roll to move)"
            )
        b = (tuple(board[0]), tuple(board[1]))
        if not any(b[0]) or not any(b[1]):
            raise InputError(f"--position: {text}: the game is over (a side has no checkers)")
        return BackgammonState(self, b, 0, dice)

    def move_text(self, state: BackgammonState, action: int) -> str:
        """gnubg's notation of move ``action`` at a decision node ("24/18 13/8", "pass")."""
        if not state.move_keys():
            return "pass"
        notated = self.engine.moves(state.board, *state.dice, 1)
        steps = notated[action][1]
        return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in steps)


MOVE_ORDERS = ("none", "equity", "equity_inner")


def parse_dice(text: str | None, key: str = "--dice") -> tuple[int, int] | None:
    """``"D1,D2"`` -> (high, low); None -> None."""
    if text is None or text == "":
        return None
    parts = str(text).replace("-", ",").split(",")
    try:
        d = tuple(int(p) for p in parts)
    except ValueError:
        d = ()
    if len(d) != 2 or not all(1 <= x <= 6 for x in d):
        raise InputError(f"{key}: must be two dice D1,D2 from 1 to 6 (e.g. 6,5), got {text!r}")
    return (max(d), min(d))


def equity_value(state: BackgammonState, root_player: int) -> float:
    """The ``equity`` heuristic: gnubg 0-ply money equity from ``root_player``'s view."""
    e = equity(state.game.engine, state.board)
    return e if state.player == root_player else -e


def self_play_position(seed: int, instance: int, *, drawn_dice: bool) -> tuple[str, str | None]:
    """Position ``instance`` of ``seed``: a game of 0-ply self-play (gnubg's best move by our
    equity, dice from numpy's PCG64 seeded by (seed, instance)), stopped after a drawn number of
    plies in [4, 60]; a game that ends before restarts with the next dice.  Returns the position ID
    (the player on roll to move) and, with ``drawn_dice``, the drawn root roll "D1,D2"."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, instance])))
    game = Backgammon("equity")
    plies = int(rng.integers(4, 61))
    while True:
        state = game.state(None, None)
        for _ in range(plies):
            d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
            state = BackgammonState(game, state.board, state.player, (max(d1, d2), min(d1, d2)))
            keys = state.move_keys()
            state = state.child(game.ordered(state, keys)[0] if keys else 0)
            if state.is_terminal():
                break
        if not state.is_terminal():
            break
    dice = None
    if drawn_dice:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        dice = f"{max(d1, d2)},{min(d1, d2)}"
    return state.position_id(), dice


def position_class(position: str) -> str:
    """gnubg's class of a position: ``contact``, ``crashed`` (contact with a broken board),
    ``race`` (no contact) or ``bear-off`` (every checker home, gnubg's bear-off databases)."""
    g = _Engine.get().g
    c = g.classify(g.board_from_position_id(position))
    names = {g.c_contact: "contact", g.c_crashed: "crashed", g.c_race: "race"}
    return names.get(c, "bear-off" if c > g.c_over else "over")
