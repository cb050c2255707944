"""The compiled kernel over a game model (``starbench.games.models``): a game's model handed to
the one search kernel as one value, as mctx hands its search an environment, so every kernel
algorithm (expectimax, Star1, Star2, Star2.5) searches every game that has a model, and no
search is written per game.

The model reaches the kernel typed by its family (``compiled.contract``): numba compiles the
kernel once per family, with the family's functions called directly, and caches it on disk.

The game tree is the one ``games.adapter.GameTree`` defines: ``depth`` decision plies from the
root (chance nodes are free; at the horizon any node is a leaf), a leaf worth the root player's
return where the game is over, else the named heuristic from the root player's point of view;
table entries keyed by the model's ``key`` at the plies left.  The kernel counts as the Python
engine counts (``search.stats``), so values, best moves and every counter, per level too, equal
the Python engine's on the same position (``tests/test_game_models.py``), with and without a
table: both engines key a game with a model by the model's ``key`` (``games.models.model_key``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from starbench.games.models import GameModel


class ModelTree(NamedTuple):
    """A game tree in the compiled engine's form: the game's model, the root as a model state,
    the decision plies searched, the heuristic (its name and ``HEURISTIC_CODES`` code), the
    tree's bounds (L, U), the stack's shape (the model's ``frame``), the root player, and the
    ``GameTree`` it came from (told what leaves the search saw, ``GameTree.saw_leaves``).  It
    offers what ``compiled.engine.execute`` reads of a tree (``CompiledTree``'s names) and the
    kernel's ``Game`` bundle (``game_bundle``).  Made by ``make`` (or ``of`` a ``GameTree``),
    everything a search reads worked out there: a plain tuple, built and read in C, since a
    game's search is short enough for its Python to show (``docs/benchmark.md``)."""

    model: GameModel
    state: Any
    depth: int
    heuristic: str
    code: int
    L: float  # noqa: N815 - the kernel's name
    U: float  # noqa: N815 - the kernel's name
    bounds: tuple[float, float]
    max_arity: int
    max_depth: int
    root_player: int
    tree: Any

    @classmethod
    def make(
        cls,
        model: GameModel,
        state: Any,
        depth: int,
        heuristic: str,
        bounds: tuple[float, float],
        tree: Any = None,
    ) -> ModelTree:
        """The form of ``state`` (a model state) searched ``depth`` plies with the named
        heuristic within ``bounds``; ``tree``: the ``GameTree`` it comes from, whose root
        player it takes (the player to move at a decision root, player 0 at a chance root, as
        ``games.source`` makes a game's tree), else read from the state."""
        state = np.asarray(state, np.int64)
        arity, levels = model.frame(state, depth)
        if tree is not None:
            root = int(tree.root_player)
        else:
            root = max(int(model.player(model.params, state)), 0)
        L, U = float(bounds[0]), float(bounds[1])  # noqa: N806 - the kernel's names
        code = model.heuristic_code(heuristic)
        return cls(
            model, state, int(depth), heuristic, code, L, U, bounds,
            max(int(arity), 1), int(levels), root, tree,
        )  # fmt: skip

    @classmethod
    def of(cls, tree: Any) -> ModelTree | None:
        """The model form of a ``GameTree``, or None where the compiled engine cannot search it
        (``GameTree.model_root``: no model of its game, a heuristic the model does not compute,
        no horizon, exact)."""
        cached = tree.__dict__.get("_model_form")
        if cached is not None and cached[0] is tree.root:  # made once per root
            return cached[1]
        made = tree.model_root()
        form = None
        if made is not None:
            model, state = made
            form = cls.make(model, state, tree.root[1], tree.heuristic_name, tree.bounds, tree)
        tree.__dict__["_model_form"] = (tree.root, form)
        return form

    lazy = False
    levels = 0
    has_chance = True

    def game_bundle(self) -> tuple[Any, ...]:
        """The kernel's ``Game`` bundle, as the plain tuple ``kernel.entry_game`` takes (a fresh
        state stack and leaf record per search)."""
        m = self.model
        # a child's state is written before it is read: no need to clear the stack
        states = np.empty((self.max_depth + 2, self.max_arity, m.size), np.int64)
        states[0, 0] = self.state
        return (m.params, self.root_player, self.code, self.depth, states, np.zeros(2))

    def saw(self, flat: Any) -> None:
        """Tell the ``GameTree`` what leaves the search saw (``flat``: the kernel's record)."""
        if self.tree is not None and flat[1] > 0:
            self.tree.saw_leaves(float(flat[0]) if flat[1] == 1 else None)
