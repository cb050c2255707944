"""Tic-tac-toe as a tiny game with the OpenSpiel-style state API (X = player 0 maximises).

Cells are numbered 0..8 row by row ((row, col) = divmod(cell, 3)); a win for X is +1, for O -1,
a full board without a line 0.  Used for the seeds' worked endgame (XXO/OOX/..., X to move).
"""

from __future__ import annotations

from dataclasses import dataclass

_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@dataclass(frozen=True)
class TicTacToeState:
    board: str = "........."  # 9 cells of 'X', 'O' or '.'
    to_move: str = "X"

    @classmethod
    def from_rows(cls, *rows: str, to_move: str = "X") -> TicTacToeState:
        board = "".join(r.replace(" ", "").replace("|", "") for r in rows)
        if len(board) != 9 or set(board) - set("XO."):
            raise ValueError(f"not a tic-tac-toe board: {rows!r}")
        return cls(board, to_move)

    def winner(self) -> str | None:
        b = self.board
        for a, c, d in _LINES:
            if b[a] != "." and b[a] == b[c] == b[d]:
                return b[a]
        return None

    def current_player(self) -> int:
        return -4 if self.is_terminal() else (0 if self.to_move == "X" else 1)

    def is_terminal(self) -> bool:
        return self.winner() is not None or "." not in self.board

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [i for i, c in enumerate(self.board) if c == "."]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def child(self, action: int) -> TicTacToeState:
        if self.board[action] != ".":
            raise ValueError(f"cell {action} is taken")
        b = self.board[:action] + self.to_move + self.board[action + 1 :]
        return TicTacToeState(b, "O" if self.to_move == "X" else "X")

    def returns(self) -> list[int]:
        w = self.winner()
        r = 0 if w is None else (1 if w == "X" else -1)
        return [r, -r]

    def min_utility(self) -> int:
        return -1

    def max_utility(self) -> int:
        return 1

    def __str__(self) -> str:
        b = self.board
        return f"{b[0:3]}/{b[3:6]}/{b[6:9]} {self.to_move} to move"
