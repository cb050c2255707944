"""Real games searched through an OpenSpiel-style state API (see ``adapter``)."""

from starbench.games.adapter import GameState, GameTree
from starbench.games.tictactoe import TicTacToeState

__all__ = ["GameState", "GameTree", "TicTacToeState"]
