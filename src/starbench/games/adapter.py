"""Games as trees: an adapter over an OpenSpiel-style state API.

A game state offers the names OpenSpiel's ``pyspiel.State`` uses, so pyspiel games plug in:
``current_player()`` (0 maximises, 1 minimises), ``is_terminal()``, ``is_chance_node()``,
``legal_actions()``, ``chance_outcomes()`` -> ``[(action, probability), ...]``, ``child(action)``,
``returns()`` (player 0's return first); its game offers ``min_utility()`` and ``max_utility()``
(the bounds [L, U]).

The depth horizon is a search parameter: with ``horizon=h`` decision nodes ``h`` plies below the
root become leaves evaluated by ``heuristic(state)`` (chance nodes are free, as in OpenSpiel's
expectiminimax).  Best moves are reported as child indices; ``actions(node)`` maps them back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Protocol

from starbench.errors import EvaluationError, InputError
from starbench.trees.protocol import Kind, Number


class GameState(Protocol):
    def current_player(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def legal_actions(self) -> Sequence[int]: ...
    def chance_outcomes(self) -> Sequence[tuple[int, Any]]: ...
    def child(self, action: int) -> GameState: ...
    def returns(self) -> Sequence[Any]: ...


def _exact(x: Any) -> Number:
    return x if isinstance(x, int | Fraction) else Fraction(str(x))


class GameTree:
    """The tree protocol over game states.  A node is ``(state, plies_left)``."""

    def __init__(
        self,
        state: GameState,
        bounds: tuple[Any, Any],
        horizon: int | None = None,
        heuristic: Callable[[GameState], Any] | None = None,
    ):
        try:
            self.L, self.U = _exact(bounds[0]), _exact(bounds[1])
        except (ValueError, OverflowError, ZeroDivisionError):
            raise InputError(f"game bounds must be finite numbers, got {bounds!r}") from None
        self.horizon = horizon
        self.heuristic = heuristic
        self.root = (state, horizon)

    @property
    def bounds(self) -> tuple[Number, Number]:
        return (self.L, self.U)

    def kind(self, node: tuple[GameState, int | None]) -> Kind:
        state, left = node
        if state.is_terminal():
            return Kind.LEAF
        if state.is_chance_node():
            return Kind.CHANCE
        if left is not None and left <= 0:
            return Kind.LEAF
        return Kind.MAX if state.current_player() == 0 else Kind.MIN

    def actions(self, node: tuple[GameState, int | None]) -> list[int]:
        state = node[0]
        if state.is_chance_node():
            return [a for a, _ in state.chance_outcomes()]
        return list(state.legal_actions())

    def children(self, node: tuple[GameState, int | None]) -> list[tuple[GameState, int | None]]:
        state, left = node
        if state.is_chance_node():
            return [(state.child(a), left) for a, _ in state.chance_outcomes()]
        nxt = None if left is None else left - 1
        return [(state.child(a), nxt) for a in state.legal_actions()]

    def probabilities(self, node: tuple[GameState, int | None]) -> list[Number]:
        return [_exact(p) for _, p in node[0].chance_outcomes()]

    def evaluate(self, node: tuple[GameState, int | None]) -> Number:
        state = node[0]
        if state.is_terminal():
            return _exact(state.returns()[0])
        if self.heuristic is None:
            raise EvaluationError(f"{self.describe(node)}: horizon reached but no heuristic given")
        return _exact(self.heuristic(state))

    def describe(self, node: tuple[GameState, int | None]) -> str:
        return f"game state {node[0]!s}"

    def first_chance(self) -> Any:
        from starbench.trees.protocol import has_chance

        return has_chance(self)
