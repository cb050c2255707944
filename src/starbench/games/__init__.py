"""Real games searched through an OpenSpiel-style state API (see ``adapter``); ``source`` turns a
game name, depth, position and heuristic into a tree through the game's kind (``GameKind``:
OpenSpiel's or backgammon's)."""

from starbench.games.adapter import GameState, GameTree
from starbench.games.source import GameSource, game_source
from starbench.games.tictactoe import TicTacToeState

__all__ = ["GameSource", "GameState", "GameTree", "TicTacToeState", "game_source"]
