"""Expectimax compiled over a game model (``starbench.games.models``): the model's functions
handed to the search as one value, as mctx hands its search an environment function, so one
compiled search serves every game that has a model (none is written per game).

``expectimax(model, state, depth, heuristic, root_player)`` searches ``depth`` decision plies
from a model state (chance nodes are free; at the horizon any node is a leaf, as
``games.adapter.GameTree`` has it): a leaf is worth the root player's return where the game is
over, else the named heuristic.  It counts as the Python engine counts a game search
(``search.stats``): every node entered, a leaf where evaluated, each inner node by its kind,
and nodes and leaves per level (the root 0, chance levels counted); values are summed in the
outcomes' order, so value, best move and every counter equal the Python engine's on the same
position (``tests/test_game_models.py``).

A first step of the compiled engine over models: expectimax only, with node budgets, without
tables or iterative deepening.  ``engine=compiled`` chooses it for a game with a model
(``engines``); ``engine=auto`` keeps games on the Python engine, since numba cannot cache a
function specialized on functions: the search is compiled anew in every process (about 3 s of
CPU), which pays only for searches of more than about a million nodes.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit
from numba.core.errors import NumbaExperimentalFeatureWarning

from starbench.errors import BudgetExceeded
from starbench.games.models import CHANCE, CONTRACT, TERMINAL, GameModel, model_of
from starbench.search.arith import agree
from starbench.search.stats import STAT_FIELDS, LevelCounts, SearchResult, SearchStats

#: Slots of the counters (``search.stats.STAT_FIELDS`` order) this search counts, and one past
#: them, set when the node budget stops the search.
NODES, LEAVES, MAX_NODES, MIN_NODES, CHANCE_NODES = 0, 1, 2, 3, 4
BUDGET = len(STAT_FIELDS)
#: The deepest level a search may reach (a model state per level on its stack).
MAX_LEVELS = 512


@njit(cache=True)
def _seen(flat, v):  # noqa: ANN001, ANN202
    """One more child value: ``flat`` = [the first value, 1 while every value equals it, 2 once
    one differs] (``GameTree.flat_value``: a heuristic that tells no position apart)."""
    if flat[1] == 0:
        flat[0], flat[1] = v, 1
    elif flat[1] == 1 and v != flat[0]:
        flat[1] = 2


@njit  # not cached: numba cannot cache a function specialized on functions (vanished refs)
def _value(s, left, lv, cfg, bufs, fns):  # noqa: ANN001, ANN202
    """The value of model state ``s``, entered at level ``lv`` with ``left`` decision plies
    (past the node budget: ``stats[BUDGET]`` set, and every caller returns at once)."""
    p, root, code, budget = cfg
    stack, stats, by_level, flat = bufs
    player, n_moves, move, n_outcomes, outcome, probability, apply, returns, heuristic, _ = fns
    stats[NODES] += 1
    by_level[0, lv] += 1
    pl = player(p, s)
    leaf = pl == TERMINAL or left == 0
    if leaf:
        stats[LEAVES] += 1
        by_level[1, lv] += 1
    elif pl == CHANCE:
        stats[CHANCE_NODES] += 1
    else:
        stats[MAX_NODES if pl == root else MIN_NODES] += 1
    if budget >= 0 and stats[NODES] > budget:
        stats[BUDGET] = 1
        return 0.0
    if leaf:
        return returns(p, s, root) if pl == TERMINAL else heuristic(p, s, code, root)
    out = stack[lv + 1]
    if pl == CHANCE:
        total = 0.0
        for i in range(n_outcomes(p, s)):
            apply(p, s, outcome(p, s, i), out)
            v = _value(out, left, lv + 1, cfg, bufs, fns)
            if stats[BUDGET]:
                return 0.0
            _seen(flat, v)
            total += probability(p, s, i) * v
        return total
    best = -np.inf if pl == root else np.inf
    for i in range(n_moves(p, s)):
        apply(p, s, move(p, s, i), out)
        v = _value(out, left - 1, lv + 1, cfg, bufs, fns)
        if stats[BUDGET]:
            return 0.0
        _seen(flat, v)
        if (pl == root and v > best) or (pl != root and v < best):
            best = v
    return best


@njit  # not cached, as _value
def _root(s, left, cfg, bufs, fns, values):  # noqa: ANN001, ANN202
    """The root's value and best move (the first of the best; -1 at a chance root or a leaf),
    each root move's value into ``values``."""
    p, root, code, budget = cfg
    stack, stats, by_level, flat = bufs
    player, n_moves, move, _, _, _, apply, _, _, _ = fns
    pl = player(p, s)
    if pl == TERMINAL or pl == CHANCE or left == 0:  # noqa: SIM109 - numba
        return _value(s, left, 0, cfg, bufs, fns), -1
    stats[NODES] += 1
    by_level[0, 0] += 1
    stats[MAX_NODES if pl == root else MIN_NODES] += 1
    if budget >= 0 and stats[NODES] > budget:
        stats[BUDGET] = 1
        return 0.0, -1
    out = stack[1]
    best, best_move = (-np.inf if pl == root else np.inf), -1
    for i in range(n_moves(p, s)):
        apply(p, s, move(p, s, i), out)
        v = _value(out, left - 1, 1, cfg, bufs, fns)
        if stats[BUDGET]:
            return 0.0, -1
        _seen(flat, v)
        values[i] = v
        if (pl == root and v > best) or (pl != root and v < best):
            best, best_move = v, i
    return best, best_move


@dataclass(frozen=True)
class ModelTree:
    """A game tree in the compiled engine's form: the game's model, the root as a model state,
    the decision plies searched, the heuristic and the tree's bounds, and the ``GameTree`` it
    came from (told what leaves the search saw, ``GameTree.saw_leaves``)."""

    model: GameModel
    state: Any
    depth: int
    heuristic: str
    bounds: tuple[float, float]
    tree: Any = None

    @classmethod
    def of(cls, tree: Any) -> ModelTree | None:
        """The model form of a ``GameTree``, or None where the compiled engine cannot search it
        (no model of its game, a heuristic the model does not compute, no horizon, exact)."""
        state, depth = tree.root
        if depth is None or getattr(tree, "exact", False) or not hasattr(state, "get_game"):
            return None
        model = model_of(state.get_game())
        if model is None or getattr(tree, "heuristic_name", None) not in model.heuristics:
            return None
        return cls(model, model.from_state(state), depth, tree.heuristic_name, tree.bounds, tree)


def search(form: ModelTree, spec: Any = None, node_budget: int | None = None) -> SearchResult:
    """Expectimax of ``form`` (see the module docstring; ``spec``: the resolved request, whose
    settings the result names); ``BudgetExceeded`` (with the statistics where it stopped,
    counted as the Python engine counts them) past ``node_budget``."""
    model, L, U = form.model, float(form.bounds[0]), float(form.bounds[1])
    s = np.asarray(form.state, np.int64)
    root_player = max(int(model.player(model.params, s)), 0)
    budget = np.int64(-1 if node_budget is None else node_budget)
    cfg = (model.params, np.int64(root_player), np.int64(model.heuristic_code(form.heuristic)),
           budget)  # fmt: skip
    fns = tuple(getattr(model, name) for name in CONTRACT)
    stack = np.zeros((MAX_LEVELS, model.size), np.int64)
    stats = np.zeros(len(STAT_FIELDS) + 1, np.int64)
    by_level = np.zeros((4, MAX_LEVELS), np.int64)
    flat = np.zeros(2, np.float64)
    values = np.zeros(64, np.float64)
    with warnings.catch_warnings():  # the functions handed as one value: numba says it is new
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        # a one-node search first: it compiles the search for this model outside the timing
        _root(s, 0, cfg, (stack.copy(), stats.copy(), by_level.copy(), flat.copy()), fns, values)
        t0, c0 = time.perf_counter(), time.process_time()
        value, best = _root(s, form.depth, cfg, (stack, stats, by_level, flat), fns, values)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    counted = SearchStats.of([int(x) for x in stats[: len(STAT_FIELDS)]])
    if stats[BUDGET]:
        stop = BudgetExceeded(f"node budget of {node_budget} nodes exceeded")
        stop.stats = counted  # type: ignore[attr-defined]
        raise stop
    if form.tree is not None and flat[1] > 0:
        form.tree.saw_leaves(float(flat[0]) if flat[1] == 1 else None)
    tied = root_values = None
    if best >= 0:
        root_values = tuple(float(v) for v in values[: model.n_moves(model.params, s)])
        tied = tuple(m for m, v in enumerate(root_values) if agree(v, value, L, U, False))
    return SearchResult(
        "expectimax",
        {} if spec is None else dict(spec.settings),
        float(value),
        None if best < 0 else int(best),
        tied,
        counted,
        False,
        seconds,
        cpu,
        root_values,
        LevelCounts.of(by_level),
    )


def expectimax(
    model: GameModel, state: Any, depth: int, heuristic: str, bounds: tuple[float, float]
) -> SearchResult:
    """Expectimax of model state ``state`` (a decision root's player is the root player,
    player 0 at a chance root) searched ``depth`` decision plies deep with the model's
    ``heuristic``; ``bounds``: the tree's (L, U), for the tied moves' tolerance."""
    return search(ModelTree(model, state, depth, heuristic, bounds))
