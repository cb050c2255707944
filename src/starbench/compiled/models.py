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

A first step of the compiled engine over models: expectimax only, without tables, budgets or
iterative deepening, and not yet chosen by ``engine=compiled`` or ``auto`` (``engines``).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from numba import njit
from numba.core.errors import NumbaExperimentalFeatureWarning

from starbench.games.models import CHANCE, CONTRACT, TERMINAL, GameModel
from starbench.search.arith import agree
from starbench.search.stats import LevelCounts, SearchResult, SearchStats

#: Slots of the counters (``search.stats.STAT_FIELDS`` order) this search counts.
NODES, LEAVES, MAX_NODES, MIN_NODES, CHANCE_NODES = 0, 1, 2, 3, 4
#: The deepest level a search may reach (a model state per level on its stack).
MAX_LEVELS = 512


@njit(cache=True)
def _value(s, left, lv, cfg, bufs, fns):  # noqa: ANN001, ANN202
    """The value of model state ``s``, entered at level ``lv`` with ``left`` decision plies."""
    p, root, code = cfg
    stack, stats, by_level = bufs
    player, n_moves, move, n_outcomes, outcome, probability, apply, returns, heuristic, _ = fns
    stats[NODES] += 1
    by_level[0, lv] += 1
    pl = player(p, s)
    if pl == TERMINAL or left == 0:
        stats[LEAVES] += 1
        by_level[1, lv] += 1
        return returns(p, s, root) if pl == TERMINAL else heuristic(p, s, code, root)
    out = stack[lv + 1]
    if pl == CHANCE:
        stats[CHANCE_NODES] += 1
        total = 0.0
        for i in range(n_outcomes(p, s)):
            apply(p, s, outcome(p, s, i), out)
            total += probability(p, s, i) * _value(out, left, lv + 1, cfg, bufs, fns)
        return total
    stats[MAX_NODES if pl == root else MIN_NODES] += 1
    best = -np.inf if pl == root else np.inf
    for i in range(n_moves(p, s)):
        apply(p, s, move(p, s, i), out)
        v = _value(out, left - 1, lv + 1, cfg, bufs, fns)
        if (pl == root and v > best) or (pl != root and v < best):
            best = v
    return best


@njit(cache=True)
def _root(s, left, cfg, bufs, fns, values):  # noqa: ANN001, ANN202
    """The root's value and best move (the first of the best; -1 at a chance root or a leaf),
    each root move's value into ``values``."""
    p, root, code = cfg
    stack, stats, by_level = bufs
    player, n_moves, move, _, _, _, apply, _, _, _ = fns
    pl = player(p, s)
    if pl == TERMINAL or pl == CHANCE or left == 0:  # noqa: SIM109 - numba
        return _value(s, left, 0, cfg, bufs, fns), -1
    stats[NODES] += 1
    by_level[0, 0] += 1
    stats[MAX_NODES if pl == root else MIN_NODES] += 1
    out = stack[1]
    best, best_move = (-np.inf if pl == root else np.inf), -1
    for i in range(n_moves(p, s)):
        apply(p, s, move(p, s, i), out)
        v = _value(out, left - 1, 1, cfg, bufs, fns)
        values[i] = v
        if (pl == root and v > best) or (pl != root and v < best):
            best, best_move = v, i
    return best, best_move


def expectimax(
    model: GameModel, state: Any, depth: int, heuristic: str, bounds: tuple[float, float]
) -> SearchResult:
    """Expectimax of model state ``state`` (a decision root's player is the root player,
    player 0 at a chance root) searched ``depth`` decision plies deep with the model's
    ``heuristic``; ``bounds``: the tree's (L, U), for the tied moves' tolerance (see the module
    docstring)."""
    s = np.asarray(state, np.int64)
    root_player = max(int(model.player(model.params, s)), 0)
    fns = tuple(getattr(model, name) for name in CONTRACT)
    cfg = (model.params, np.int64(root_player), np.int64(model.heuristic_code(heuristic)))
    stack = np.zeros((MAX_LEVELS, model.size), np.int64)
    stats = np.zeros(len(SearchStats.__dataclass_fields__), np.int64)
    by_level = np.zeros((4, MAX_LEVELS), np.int64)
    values = np.zeros(64, np.float64)
    t0 = time.process_time()
    with warnings.catch_warnings():  # the functions handed as one value: numba says it is new
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        value, best = _root(s, depth, cfg, (stack, stats, by_level), fns, values)
    seconds = time.process_time() - t0
    levels = LevelCounts.of(by_level)
    tied = root_values = None
    if best >= 0:
        root_values = tuple(float(v) for v in values[: model.n_moves(model.params, s)])
        tied = tuple(m for m, v in enumerate(root_values) if agree(v, value, *bounds, False))
    return SearchResult(
        "expectimax",
        {},
        float(value),
        None if best < 0 else int(best),
        tied,
        SearchStats.of([int(x) for x in stats]),
        False,
        seconds,
        seconds,
        root_values,
        levels,
    )
