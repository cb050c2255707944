"""OpenSpiel's own Python ``expectiminimax`` behind starbench's conform protocol.

    starbench conform --engine "python -m starbench.examples.openspiel_engine" \
        --algorithm expectimax

An engine program, not part of starbench's searches: it reads one request a line
(``{"tree": TREE, "algorithm": LABEL, "params": {...}}``, ``docs/reference/protocol.md``),
makes the tree a small game behind OpenSpiel's state API (``TreeState``: MAX nodes are player
0, MIN nodes player 1, chance nodes OpenSpiel's chance player, leaves terminals whose returns
are (v, -v)), runs ``open_spiel.python.algorithms.minimax.expectiminimax`` on it with the
root's player as the maximizing player and a depth past the deepest leaf, and answers
``{"value": V, "best_move": M}`` from MAX's point of view (V exact as ``"a/b"``: the tree's
probabilities and leaves are fractions, which OpenSpiel's sums keep exact).  It answers
``{"unsupported": ...}`` for another algorithm than expectimax and for trees whose MAX and MIN
levels do not alternate (a decision node followed, through chance nodes, by one of its own
kind), which a two-player game of OpenSpiel's kind does not have.  It imports OpenSpiel only
(the ``games`` extra) and nothing of starbench's.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import Any

MAX_PLAYER, MIN_PLAYER, CHANCE_PLAYER, TERMINAL = 0, 1, -1, -4


class TreeState:
    """A node of the tree with the state API OpenSpiel's algorithms use."""

    def __init__(self, node: Any):
        self.node = node

    def _kind(self) -> str | None:
        if not isinstance(self.node, dict):
            return None
        ((kind, _children),) = self.node.items()
        return kind

    def _children(self) -> list[Any]:
        ((_kind, children),) = self.node.items()
        return children

    def is_terminal(self) -> bool:
        return self._kind() is None

    def is_chance_node(self) -> bool:
        return self._kind() == "chance"

    def current_player(self) -> int:
        kind = self._kind()
        return {None: TERMINAL, "chance": CHANCE_PLAYER, "max": MAX_PLAYER}.get(kind, MIN_PLAYER)

    def legal_actions(self) -> list[int]:
        return list(range(len(self._children())))

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        return [(i, Fraction(str(p))) for i, (p, _c) in enumerate(self._children())]

    def clone(self) -> TreeState:
        return TreeState(self.node)

    def apply_action(self, action: int) -> None:
        child = self._children()[action]
        self.node = child[1] if self.is_chance_node() else child

    def player_return(self, player: int) -> Fraction:
        v = Fraction(str(self.node))
        return v if player == MAX_PLAYER else -v

    def returns(self) -> list[Fraction]:
        return [self.player_return(MAX_PLAYER), self.player_return(MIN_PLAYER)]


def _alternates(node: Any, above: str | None = None) -> bool:
    """Do MAX and MIN alternate on every path (chance nodes between them skipped)?"""
    if not isinstance(node, dict):
        return True
    ((kind, children),) = node.items()
    if kind == "chance":
        return all(_alternates(c, above) for _p, c in children)
    if kind == above:
        return False
    return all(_alternates(c, kind) for c in children)


def _depth(node: Any) -> int:
    if not isinstance(node, dict):
        return 0
    ((kind, children),) = node.items()
    below = [c[1] if kind == "chance" else c for c in children]
    return (kind != "chance") + max(_depth(c) for c in below)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    from open_spiel.python.algorithms.minimax import expectiminimax

    name = str(request.get("algorithm", "")).split(":")[0]
    if name != "expectimax":
        return {"unsupported": f"OpenSpiel's expectiminimax answers expectimax, not {name}"}
    root = request["tree"]["root"]
    if not _alternates(root):
        return {"unsupported": "MAX and MIN levels do not alternate (not a two-player game)"}
    state = TreeState(root)
    player = state.current_player()
    maximizer = MIN_PLAYER if player == MIN_PLAYER else MAX_PLAYER
    value, action = expectiminimax(state, _depth(root) + 1, None, maximizer)
    value = Fraction(value) if maximizer == MAX_PLAYER else -Fraction(value)
    text = (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
    return {"value": text, "best_move": action}


def main() -> int:
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
