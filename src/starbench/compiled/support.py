"""What the compiled kernel serves, without loading it (no numba here: choosing an engine, as
``starbench.engines.choose`` does for every search a run plans, never imports the kernel)."""

from __future__ import annotations

import functools
import sys
from typing import Any

from starbench.compiled.codes import EXHAUSTIVE, PROBING, WINDOWED
from starbench.search.registry import get_algorithm
from starbench.trees.explicit import ExplicitTree
from starbench.trees.regular import RegularTree, RegularTreeSpec

#: The kernel's codes of the ways a registered algorithm declares it runs
#: (``AlgorithmInfo.kernel``).
_KERNEL_CODES = {"exhaustive": EXHAUSTIVE, "windowed": WINDOWED, "probing": PROBING}


def kernel_algo(name: str) -> int | None:
    """The kernel's code for a registered algorithm, as its registry entry declares it
    (``AlgorithmInfo.kernel``; None: the Python engine only)."""
    kernel = get_algorithm(name).kernel
    return None if kernel is None else _KERNEL_CODES[kernel]


def unsupported(
    name: str,
    *,
    exact: bool = False,
    debug: bool = False,
    time_budget: float | None = None,
    tree: Any = None,
) -> str | None:
    """Why the compiled engine cannot serve this request, or None if it can."""
    if exact:
        return "exact mode"
    if debug:
        return "debug mode"
    if time_budget is not None:
        return "time budgets"
    if kernel_algo(name) is None:
        return f"algorithm {name}"
    if tree is None or isinstance(tree, ExplicitTree) or _compiled(tree):
        return None
    spec = tree.spec if isinstance(tree, RegularTree) else tree
    if isinstance(spec, RegularTreeSpec):
        if spec.pool and spec.size > spec.full_pass_limit:
            return "pool trees over tree.full_pass_limit nodes (it unfolds them into arrays)"
        return None
    game_tree, game_spec = game_types()
    if isinstance(tree, game_tree | game_spec):
        return _game_unsupported(tree, game_tree)
    return f"trees of type {type(tree).__name__}"


@functools.cache
def game_types() -> tuple[type, type]:
    """(``games.adapter.GameTree``, ``games.spec.GameSpec``): a game's tree and a game cell's
    spec, imported the first time a request is not a random tree's (once: a game's search is
    short enough for an import per call to show)."""
    from starbench.games.adapter import GameTree
    from starbench.games.spec import GameSpec

    return GameTree, GameSpec


def _game_unsupported(tree: Any, game_tree: type) -> str | None:
    """Why the compiled engine cannot search this game request, or None: it searches a game
    with a model (``games.models``: pig, Einstein würfelt nicht) with any kernel algorithm and
    table, to a fixed depth or by iterative deepening, with a heuristic the model computes
    (``compiled.models``)."""
    if isinstance(tree, game_tree):
        return tree.model_refusal()
    from starbench.games.adapter import NO_MODEL

    model = spec_model(tree)  # a GameSpec: its game's model, and the heuristic it computes
    if model is None:
        return NO_MODEL
    name = tree.heuristic_name()
    if name not in model.heuristics:
        computes = ", ".join(model.heuristics)
        return f"the heuristic {name!r} on {model.game}'s model (it computes {computes})"
    return None


def spec_model(spec: Any) -> Any:
    """The ``GameModel`` of a ``GameSpec``'s game, or None where it has none."""
    from starbench.games.models import model_of
    from starbench.games.source import OPENSPIEL, OPENSPIEL_PREFIX, kind_of, load_openspiel

    if kind_of(spec.game) is not OPENSPIEL:
        return None
    return model_of(load_openspiel(spec.game.removeprefix(OPENSPIEL_PREFIX), "tree.game"))


def compiling_line(seconds: float) -> str:
    """The one line said when a search's kernel is compiled, the first time on a machine
    (``run``, ``solve``, and any first search, ``starbench.search`` included)."""
    return f"starbench: compiling the search kernel (once per machine, about {seconds:.0f} s)"


def _compiled(tree: Any) -> bool:
    """Is ``tree`` already in the kernel's form?  (Only if the engine module is loaded.)"""
    engine = sys.modules.get("starbench.compiled.engine")
    return engine is not None and isinstance(tree, engine.CompiledTree)
