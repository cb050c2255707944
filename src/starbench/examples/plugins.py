"""A worked example of a plugin: an algorithm registered from outside starbench's own code.

``expectimax-probable`` is expectimax that searches a chance node's outcomes most probable first
(``order=probable``, the default) or in the given order (``order=given``).  Its values equal
expectimax's, so ``starbench run`` verifies it like any algorithm; it runs on the Python engine.

Use it with ``starbench run plugins=[starbench.examples.plugins]
"algorithms=[expectimax,expectimax-probable]"`` or ``starbench solve TREE.json --plugin
starbench.examples.plugins -a expectimax-probable:order=given``.  A package can also declare it
under the entry-point group ``starbench.algorithms`` (then no ``plugins=`` is needed)::

    [project.entry-points."starbench.algorithms"]
    probable = "starbench.examples.plugins:register"
"""

from __future__ import annotations

from typing import Any

from starbench import Param, register_algorithm
from starbench.errors import InputError
from starbench.search.expectimax import Expectimax
from starbench.trees.protocol import Kind


def _order(name: str, value: Any) -> str:
    if value not in ("probable", "given"):
        raise InputError(f"{name} must be probable or given, got {value!r}")
    return str(value)


class ExpectimaxProbable(Expectimax):
    """Expectimax, chance outcomes most probable first (ties in the given order)."""

    name = "expectimax-probable"

    def __init__(self, tree: Any, *, order: str = "probable", **options: Any):
        super().__init__(tree, **options)
        self.order = order

    @property
    def params(self) -> dict[str, Any]:
        return {"order": self.order}

    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:
        if self.order == "given" or self.tree.kind(node) != Kind.CHANCE:
            return super()._search(node, alpha, beta)
        self._enter(node)
        pairs = list(zip(self._probs(node), self.tree.children(node), strict=True))
        total = self.num(0)
        for p, child in sorted(pairs, key=lambda pc: -pc[0]):
            total += p * self._child(child, alpha, beta)  # one level down (counted by level)
        return total


def register() -> None:
    """Register the example (idempotent)."""
    register_algorithm(
        "expectimax-probable",
        ExpectimaxProbable,
        params=(Param("order", "probable", _order, "probable or given"),),
        doc="example plugin: expectimax, most probable outcomes first",
    )


register()
