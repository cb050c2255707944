"""Exact oracles of real games, one entry per game (``ORACLES``), and the one place that finds
the oracle of a game string (``oracle_for``).

* ``pig``: OpenSpiel's pig for two players, any ``winscore``, solved by value iteration
  (``starbench.oracles.pig``; Neller and Presser 2004);
* random trees need no entry: their oracle is the exact full-depth expectimax of the tree, the
  ``expectimax`` row of the same instance (``starbench.oracles.decisions``).

Backgammon has none: ``gnubg-nn`` ships GNU Backgammon's two-sided bear-off database
(``gnubg_ts0.bd``: both sides' checkers on their six home points, a few each, values stored in
16 bits) but reads it only through its position evaluator (``probabilities(board,
p_bearoff)``), and larger bear-offs through one-sided data (an approximation).
``tests/test_backgammon.py`` checks the evaluator against an exact two-sided solution on every
position of at most two checkers a side; an oracle over it is not built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starbench.errors import InputError
from starbench.oracles.base import Oracle, cache_dir


@dataclass(frozen=True)
class OracleEntry:
    """A registered oracle: does it solve a loaded game, and how to build (or load) it."""

    name: str
    about: str
    applies: Callable[[Any], bool]
    build: Callable[..., Oracle]


def _pig_applies(game: Any) -> bool:
    from starbench.oracles.pig import applies

    return applies(game)


def _pig_build(
    game: Any, folder: Path | None = None, recompute: bool = False, replace_stale: bool = False
) -> Oracle:
    from starbench.oracles.pig import build

    return build(game, folder, recompute, replace_stale)


ORACLES: dict[str, OracleEntry] = {
    "pig": OracleEntry(
        "pig",
        "OpenSpiel's pig (two players, any winscore), value iteration",
        _pig_applies,
        _pig_build,
    ),
}


def find(game: str, key: str = "oracle") -> OracleEntry | None:
    """The oracle entry of an OpenSpiel game string, or None (no oracle for that game); a bad
    game string is an ``InputError`` naming ``key``."""
    from starbench.games.source import OPENSPIEL_PREFIX, load_openspiel

    if game == "backgammon":
        return None
    loaded = load_openspiel(game.removeprefix(OPENSPIEL_PREFIX), key)
    return next((e for e in ORACLES.values() if e.applies(loaded)), None)


def oracle_for(
    game: str,
    *,
    folder: Path | None = None,
    recompute: bool = False,
    key: str = "oracle",
    replace_stale: bool = False,
) -> Oracle:
    """The oracle of ``game`` (an OpenSpiel game string), loaded from its cache or computed and
    cached; ``InputError`` naming ``key`` where no oracle solves the game, and for a stale
    cache unless ``replace_stale`` (then it is recomputed, with one line saying so)."""
    from starbench.games.source import OPENSPIEL_PREFIX, load_openspiel

    entry = find(game, key)
    if entry is None:
        known = ", ".join(ORACLES)
        raise InputError(f"{key}: no exact oracle for {game!r} (oracles: {known})")
    loaded = load_openspiel(game.removeprefix(OPENSPIEL_PREFIX), key)
    return entry.build(loaded, folder, recompute, replace_stale)


__all__ = ["ORACLES", "Oracle", "OracleEntry", "cache_dir", "find", "oracle_for"]
