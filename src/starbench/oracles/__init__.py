"""Exact oracles of real games, one entry per game (``ORACLES``), and the one place that finds
the oracle of a game string (``oracle_for``).

* ``pig``: OpenSpiel's pig for two players, any ``winscore``, solved by value iteration
  (``starbench.oracles.pig``; Neller and Presser 2004);
* ``backgammon-bearoff``: backgammon (starbench's ``backgammon``, GNU Backgammon's engine)
  bear-off positions with at most six checkers a side on the home points, from gnubg's
  two-sided bear-off database (``starbench.oracles.backgammon``); other positions unscored;
* random trees need no entry: their oracle is the exact full-depth expectimax of the tree, the
  ``expectimax`` row of the same instance (``starbench.oracles.decisions``).
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
    game: Any,
    folder: Path | None = None,
    recompute: bool = False,
    replace_stale: bool = False,
    memory_limit: int | None = None,
    key: str = "oracle",
) -> Oracle:
    from starbench.oracles.pig import build

    return build(game, folder, recompute, replace_stale, memory_limit, key)


def _bearoff_build(*args: Any, **kw: Any) -> Oracle:
    from starbench.oracles.backgammon import build

    return build()


ORACLES: dict[str, OracleEntry] = {
    "pig": OracleEntry(
        "pig",
        "OpenSpiel's pig (two players, any winscore), value iteration",
        _pig_applies,
        _pig_build,
    ),
    "backgammon-bearoff": OracleEntry(
        "backgammon-bearoff",
        "backgammon bear-offs of at most six checkers a side (gnubg's two-sided database)",
        lambda game: False,  # serves the backgammon kind (games.source.GameKind.oracle)
        _bearoff_build,
    ),
}


def find(game: str, key: str = "oracle") -> OracleEntry | None:
    """The oracle entry of an OpenSpiel game string, or None (no oracle for that game); a bad
    game string is an ``InputError`` naming ``key``."""
    from starbench.games.source import OPENSPIEL, OPENSPIEL_PREFIX, kind_of, load_openspiel

    kind = kind_of(game)
    if kind.oracle is not None:  # the entry that serves every game of its kind
        return ORACLES[kind.oracle]
    if kind is not OPENSPIEL:
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
    memory_limit: int | None = None,
) -> Oracle:
    """The oracle of ``game`` (an OpenSpiel game string), loaded from its cache or computed and
    cached; ``InputError`` naming ``key`` where no oracle solves the game, for a stale cache
    unless ``replace_stale`` (then it is recomputed, with one line saying so), and where
    computing it would take more than ``memory_limit`` bytes (``limits.ORACLE_MEMORY_LIMIT``)."""
    from starbench.games.source import OPENSPIEL_PREFIX, kind_of, load_openspiel

    entry = find(game, key)
    if entry is None:
        known = ", ".join(ORACLES)
        raise InputError(f"{key}: no exact oracle for {game!r} (oracles: {known})")
    if kind_of(game).oracle == entry.name:  # a kind's own: built without a loaded game
        return entry.build()
    loaded = load_openspiel(game.removeprefix(OPENSPIEL_PREFIX), key)
    return entry.build(loaded, folder, recompute, replace_stale, memory_limit, key)


__all__ = ["ORACLES", "Oracle", "OracleEntry", "cache_dir", "find", "oracle_for"]
