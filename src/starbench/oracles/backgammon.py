"""Backgammon bear-offs: exact values from GNU Backgammon's two-sided bear-off database.

``gnubg-nn`` ships ``gnubg_ts0.bd``, GNU Backgammon's two-sided bear-off database for positions
where each side has at most ``CHECKERS`` (6) checkers left, all on its six home points (924
positions a side, 924 x 924 pairs, four 16-bit values each: the file's 6,830,248 bytes are its
40-byte header and those), and reads it through its evaluator, ``probabilities(board,
p_bearoff)``, the win probability of the player on roll before the roll.  No other access to it
is exposed; positions with more checkers are evaluated from one-sided data, an approximation,
so this oracle answers only the covered positions (``covers``) and leaves the others unscored.

In a covered position each side has borne off at least nine checkers, so no gammon is possible:
the player on roll's cubeless equity is exactly ``2p - 1``.  A move's value to the mover is 1
when it bears off the last checker, else minus the opponent's equity on roll after it.  The
values are exact to the database's 16-bit storage: two moves within ``TOLERANCE`` (1e-4 in
equity) are both optimal.  ``tests/test_backgammon.py`` checks the values against an exact
two-sided solution on every position of at most two checkers a side.
"""

from __future__ import annotations

from typing import Any

from starbench.errors import InputError
from starbench.oracles.base import Oracle

CHECKERS = 6
POINTS = 6
TOLERANCE = 1e-4


def covers(board: Any) -> bool:
    """Is a board (two 25-point sides) in the two-sided database: every checker of both sides
    on its six home points, at most ``CHECKERS`` a side, and one at least?"""
    return all(not any(side[POINTS:]) and 0 < sum(side[:POINTS]) <= CHECKERS for side in board)


class BearoffOracle(Oracle):
    """Backgammon bear-off positions (``covers``) through gnubg's two-sided database."""

    name = "backgammon-bearoff"
    units = "cubeless equity of the player to move (+1 win, -1 loss; no gammon is possible)"
    tolerance = TOLERANCE
    game = "backgammon"

    def __init__(self) -> None:
        try:
            import gnubg_nn
        except ImportError:
            from starbench.games.backgammon import BACKGAMMON_INSTALL

            raise InputError(f"backgammon needs gnubg-nn: {BACKGAMMON_INSTALL}") from None
        self._g = gnubg_nn

    def covers(self, state: Any) -> bool:
        return not state.is_terminal() and covers(state.board)

    def _equity_on_roll(self, board: Any) -> float:
        """The equity of the player on roll (``board[1]``) before the roll."""
        p = self._g.probabilities([list(board[0]), list(board[1])], self._g.p_bearoff)[0]
        return 2.0 * float(p) - 1.0

    def action_values(self, state: Any) -> dict[int, float]:
        if state.is_terminal() or state.is_chance_node():
            raise InputError("the oracle's action values need a decision state (dice rolled)")
        if not covers(state.board):
            raise InputError(
                f"{state}: not a bear-off position of gnubg's two-sided database (at most "
                f"{CHECKERS} checkers a side, all on the home points)"
            )
        out = {}
        for a in state.legal_actions():
            child = state.child(a)
            out[a] = 1.0 if child.is_terminal() else -self._equity_on_roll(child.board)
        return out

    def value_for(self, state: Any, player: int) -> float:
        """The exact equity of ``player`` (a chance node: before the roll)."""
        if state.is_terminal():
            return float(state.returns()[player])
        if state.is_chance_node():
            v = self._equity_on_roll(state.board)
        else:
            v = self.value(state)
        return v if player == state.player else -v

    def describe(self) -> dict[str, Any]:
        return {
            "covers": f"bear-off positions with at most {CHECKERS} checkers a side, all on the "
            f"home points (gnubg's two-sided database, read through gnubg-nn's evaluator); "
            f"values exact to its 16-bit storage (ties within {TOLERANCE:g})",
        }


def build(*_: Any, **__: Any) -> BearoffOracle:
    return BearoffOracle()
