"""Debug mode's reference: a node's value by an uncounted, full-window expectimax (not an
oracle of decision quality: those are ``starbench.oracles``).

Debug mode (``Search(debug=True)``) checks every windowed result against it.  It computes what
``expectimax.py`` computes, in the same arithmetic order (``sum_i p_i * value(child_i)`` in
child order at chance nodes, the largest / smallest child value at MAX / MIN), but counts
nothing and depends only on the tree protocol, so ``base.py`` needs no algorithm module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starbench.trees.protocol import Kind, Tree

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, CHANCE, LEAF = Kind.MAX, Kind.CHANCE, Kind.LEAF


def full_value(tree: Tree, node: Any, num: Callable[[Any], Any]) -> Any:
    """The expectimax value of ``node`` (``num`` converts to the search's arithmetic)."""
    kind = tree.kind(node)
    if kind == LEAF:
        return num(tree.evaluate(node))
    kids = tree.children(node)
    if kind == CHANCE:
        total = num(0)
        for p, child in zip(tree.probabilities(node), kids, strict=True):
            total += num(p) * full_value(tree, child, num)
        return total
    best = None
    for child in kids:
        v = full_value(tree, child, num)
        if best is None or (v > best if kind == MAX else v < best):
            best = v
    return best
