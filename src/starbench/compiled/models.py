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

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from starbench.compiled.kernel import NO_ARRAYS, NO_LAZY
from starbench.games.models import GameModel


@dataclass(frozen=True)
class ModelTree:
    """A game tree in the compiled engine's form: the game's model, the root as a model state,
    the decision plies searched, the heuristic and the tree's bounds, and the ``GameTree`` it
    came from (told what leaves the search saw, ``GameTree.saw_leaves``).  It offers what
    ``compiled.engine.execute`` reads of a tree (``CompiledTree``'s names) and the kernel's
    ``Game`` bundle (``game_bundle``)."""

    model: GameModel
    state: Any
    depth: int
    heuristic: str
    bounds: tuple[float, float]
    tree: Any = None

    lazy = False
    levels = 0

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
            form = cls(model, state, tree.root[1], tree.heuristic_name, tree.bounds, tree)
        tree.__dict__["_model_form"] = (tree.root, form)
        return form

    @property
    def L(self) -> float:  # noqa: N802 - the kernel's name
        return float(self.bounds[0])

    @property
    def U(self) -> float:  # noqa: N802 - the kernel's name
        return float(self.bounds[1])

    @functools.cached_property
    def shape(self) -> tuple[int, int]:
        """(the most children a node has, the deepest level below the root): the model's
        ``frame`` of this root and depth."""
        arity, levels = self.model.frame(np.asarray(self.state, np.int64), self.depth)
        return max(int(arity), 1), int(levels)

    @property
    def max_arity(self) -> int:
        return self.shape[0]

    @property
    def max_depth(self) -> int:
        return self.shape[1]

    @property
    def has_chance(self) -> bool:
        return True

    @property
    def bundles(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return tuple(NO_LAZY), tuple(NO_ARRAYS)

    table_bundles = bundles

    @functools.cached_property
    def root_player(self) -> int:
        """The root player: the ``GameTree``'s (the player to move at a decision root, player 0
        at a chance root, as ``games.source`` makes a game's tree), else read from the state."""
        if self.tree is not None:
            return int(self.tree.root_player)
        return max(int(self.model.player(self.model.params, np.asarray(self.state, np.int64))), 0)

    def game_bundle(self) -> tuple[Any, ...]:
        """The kernel's ``Game`` bundle, as the plain tuple ``kernel.entry_game`` takes (a fresh
        state stack and leaf record per search)."""
        m = self.model
        # a child's state is written before it is read: no need to clear the stack
        states = np.empty((self.max_depth + 2, self.max_arity, m.size), np.int64)
        states[0, 0] = self.state
        return (
            m.params,
            self.root_player,
            m.heuristic_code(self.heuristic),
            int(self.depth),
            states,
            np.zeros(2, np.float64),
        )

    def saw(self, flat: Any) -> None:
        """Tell the ``GameTree`` what leaves the search saw (``flat``: the kernel's record)."""
        if self.tree is not None and flat[1] > 0:
            self.tree.saw_leaves(float(flat[0]) if flat[1] == 1 else None)
