"""Seeded start positions for decision-quality studies (``tree.sampler``), as OpenSpiel action
histories.

* ``uniform``: uniformly over the reachable decision states of the game that offer a choice
  (pig: every (scores, turn total, player to move) that play can reach, with the score plus the
  turn total below ``winscore``; a state where the only legal move is to stop is left out); the
  position is built by a canonical history that reaches it (each score banked in one turn of
  rolls, then the turn total rolled);
* ``optimal``: a state reached by the oracle's optimal play: one game of the oracle against
  itself, chance outcomes drawn by their probabilities, and one of its decision states with a
  choice, uniformly.

Instance ``i`` of a cell with seed ``s`` draws from numpy's PCG64 seeded by ``(s, i, tag)``
(``tag`` 1 for uniform, 2 for optimal), so instances are independent and reproducible.

A game cell's trees are made here when its positions come from an oracle (``sources``,
``source``): ``starbench.games.spec`` names no oracle, and takes the drawn position as an
argument.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from starbench.errors import ConfigError, InputError
from starbench.games.source import load_openspiel
from starbench.games.spec import ORACLE_SAMPLERS, GameSpec, draw_outcome


def _rng(seed: int, instance: int, tag: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, instance, tag])))


def _pig_parts(oracle: Any) -> list[int]:
    """The turn-total increments of a roll that does not lose the turn."""
    return [1] if oracle.piglet else list(range(2, oracle.dice + 1))


def _decompose(n: int, parts: list[int]) -> list[int] | None:
    """``n`` as a sum of ``parts`` (largest first where it can), or None when it is not one."""
    best: list[list[int] | None] = [[]] + [None] * n
    for m in range(1, n + 1):
        for r in sorted(parts, reverse=True):
            if r <= m and best[m - r] is not None:
                best[m] = [*best[m - r], r]  # type: ignore[misc]
                break
    return best[n]


def pig_states(oracle: Any) -> list[tuple[int, int, int, int]]:
    """Every reachable pig decision state with a choice: (score 0, score 1, turn total, player
    to move)."""
    W = oracle.winscore
    parts = _pig_parts(oracle)
    sums = [n for n in range(W) if _decompose(n, parts) is not None]
    out = []
    for p in (0, 1):
        for s0 in sums:
            for s1 in sums:
                own = (s0, s1)[p]
                out.extend((s0, s1, k, p) for k in sums if own + k < W)
    return out


def pig_history(oracle: Any, s0: int, s1: int, k: int, p: int) -> list[int]:
    """An action history reaching the pig state (s0, s1, k, p): player 0 banks s0 in one turn,
    player 1 banks s1, (player 0 passes if p is 1), then player p rolls k."""
    roll, stop = 0, 1

    def rolls(n: int) -> list[int]:
        out = []
        for r in _decompose(n, _pig_parts(oracle)) or []:
            out += [roll, 1 if oracle.piglet else r - 1]  # chance action: the die shows r
        return out

    history = [*rolls(s0), stop, *rolls(s1), stop]
    if p == 1:
        history.append(stop)  # player 0 passes with a turn total of 0
    return history + rolls(k)


@functools.cache
def _pig(game: str) -> tuple[Any, list[tuple[int, int, int, int]]]:
    """The oracle of a pig game string and its reachable states with a choice (once each)."""
    from starbench.oracles.decisions import game_oracle

    oracle = game_oracle(game)
    if oracle is None or oracle.name != "pig":
        raise InputError(f"tree.sampler: uniform samples pig's states only, not {game}")
    return oracle, pig_states(oracle)


def uniform_position(game: str, seed: int, instance: int) -> str:
    """Instance ``instance``'s start position, uniformly over the reachable decision states with
    a choice (pig only)."""
    oracle, states = _pig(game)
    pick = states[int(_rng(seed, instance, 1).integers(len(states)))]
    return ",".join(map(str, pig_history(oracle, *pick)))


def optimal_position(game: str, seed: int, instance: int) -> str:
    """Instance ``instance``'s start position: a decision state with a choice on the path of a
    seeded game of the oracle's optimal play against itself."""
    from starbench.oracles.decisions import game_oracle

    oracle = game_oracle(game)
    if oracle is None:
        raise InputError(f"tree.sampler: optimal needs a game with an exact oracle, not {game}")
    rng = _rng(seed, instance, 2)
    while True:
        state = load_openspiel(game.removeprefix("openspiel:"), "tree.game").new_initial_state()
        seen = []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(draw_outcome(state, rng))
                continue
            if len(state.legal_actions()) > 1:
                seen.append(list(state.history()))
            state.apply_action(oracle.optimal_actions(state)[0])
        if seen:
            return ",".join(map(str, seen[int(rng.integers(len(seen)))]))


#: ``tree.sampler`` -> game string, seed, instance -> the start position's action history.
SAMPLERS = {"uniform": uniform_position, "optimal": optimal_position}
assert set(SAMPLERS) == set(ORACLE_SAMPLERS)


def check_sampler(spec: GameSpec, prefix: str = "tree.") -> GameSpec:
    """``spec`` (validated), refused in one line when its sampler needs an oracle the game does
    not have."""
    if spec.oracle_sampled:
        from starbench.oracles import find

        if find(spec.game, f"{prefix}game") is None:
            raise ConfigError(
                f"{prefix}sampler: {spec.sampler} needs a game with an exact oracle (pig), not "
                f"{spec.game}"
            )
    return spec


def drawn_position(spec: GameSpec, seed: int, instance: int) -> str | None:
    """The start position the spec's oracle sampler draws for ``instance``, or None (a given
    position, or a seeded playout: ``GameSpec.sources`` makes those itself)."""
    if not spec.oracle_sampled:
        return None
    assert spec.sampler is not None
    return SAMPLERS[spec.sampler](spec.game, seed, instance)


def sources(spec: GameSpec, seed: int, instance: int, exact: bool) -> Any:
    """``spec.sources`` with the start position drawn by its sampler, whichever it is."""
    return spec.sources(seed, instance, exact, drawn_position(spec, seed, instance))


def source(spec: GameSpec, seed: int, instance: int, exact: bool) -> Any:
    """The ``GameSource`` of instance ``instance``, whichever sampler draws its position."""
    return sources(spec, seed, instance, exact)(spec.depth)
