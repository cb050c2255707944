"""The tree protocol every search algorithm uses.

A tree is reached through opaque node handles.  Every algorithm asks only for:

* ``kind(node)``: ``Kind.MAX``, ``Kind.MIN``, ``Kind.CHANCE`` or ``Kind.LEAF``;
* ``children(node)``: the ordered child handles of a decision or chance node (never empty);
* ``probabilities(node)``: the outcome probabilities of a chance node, as exact ``Fraction``s
  (or ints) summing to exactly 1, in the order of ``children``;
* ``evaluate(node)``: the value of a leaf, an exact number (``int`` or ``Fraction``) in [L, U];
* ``bounds``: ``(L, U)``, exact numbers with ``L < U``; every leaf and so every node value lies in
  [L, U];
* ``root``: the root handle; ``describe(node)``: a short human-readable name of a node, for errors.

Handles are whatever the source likes (an index into arrays, a tuple of integers, a game state);
the depth horizon is not part of the protocol (see ``starbench.trees.horizon``).

Optionally, ``search_class(cls, settings)``: the class that runs algorithm class ``cls`` on this
tree, for a tree that has a faster implementation of it (``GameTree`` fuses expectimax with the
game states' API); it must give the same values and counters as ``cls``, and the registry's
``make`` asks for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

Number = int | Fraction


class Kind(IntEnum):
    """Node kinds.  The integer codes are shared with the array-backed trees."""

    MAX = 0
    MIN = 1
    CHANCE = 2
    LEAF = 3


@runtime_checkable
class Tree(Protocol):
    """A game tree with chance nodes, seen through node handles."""

    @property
    def root(self) -> Any: ...

    @property
    def bounds(self) -> tuple[Number, Number]: ...

    def kind(self, node: Any) -> Kind: ...

    def children(self, node: Any) -> Sequence[Any]: ...

    def probabilities(self, node: Any) -> Sequence[Number]: ...

    def evaluate(self, node: Any) -> Number: ...

    def describe(self, node: Any) -> str: ...


def has_chance(tree: Tree, node: Any = None) -> Any | None:
    """The first chance node met in a depth-first walk, or None (small trees only)."""
    stack = [tree.root if node is None else node]
    while stack:
        n = stack.pop()
        k = tree.kind(n)
        if k == Kind.CHANCE:
            return n
        if k != Kind.LEAF:
            stack.extend(reversed(list(tree.children(n))))
    return None
