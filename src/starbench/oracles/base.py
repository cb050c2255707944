"""What an exact oracle answers, and where it keeps what it computed.

An oracle knows a game's exact values: for a state, the exact value of each legal action to the
player to move (``action_values``) and so the state's value and its exactly optimal actions.
Values are in the game's return units (OpenSpiel's ``returns()`` of the player to move: +1 a
win, -1 a loss), equal within the oracle's ``tolerance``; two actions whose values differ by at
most ``tolerance`` are both optimal.

Cache files (``cache_dir()``, ``$STARBENCH_ORACLE_CACHE`` or ``~/.cache/starbench/oracles``)
are numpy ``.npz`` archives with a JSON header naming the oracle, the game string it solves, its
parameters, its tolerance and the starbench version that computed it; a file whose game or
version differs from the request is refused in one line, never silently used (where an oracle
is used on the way, by a run, a sampler or a match, a stale file is recomputed and replaced,
with one line saying so).  A file that cannot be read (truncated, damaged) is always computed
again, with one line saying so.
"""

from __future__ import annotations

import hashlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from starbench.errors import InputError, first_line

#: The cache format's version (the header's ``format``).
CACHE_FORMAT = 1


class StaleCache(InputError):
    """A cache file of the right game made by another starbench version or cache format."""


class CorruptCache(InputError):
    """A cache file that cannot be read (truncated, damaged): always computed again."""


class Oracle(ABC):
    """The exact values of a game's states (see the module docstring)."""

    #: the registry's name of the oracle (``starbench.oracles.ORACLES``)
    name: str = ""
    #: what the values are: the return of the player to move, in the game's units
    units: str = "return of the player to move"
    #: values are exact to within this, and actions within it of the best are all optimal
    tolerance: float = 1e-9
    #: the game string the oracle solves (its canonical form)
    game: str = ""

    @abstractmethod
    def action_values(self, state: Any) -> dict[int, float]:
        """The exact value of each legal action at a decision state, to the player to move."""

    def value(self, state: Any) -> float:
        """The exact value of a decision state to the player to move (its best action's)."""
        return max(self.action_values(state).values())

    def optimal_actions(self, state: Any) -> list[int]:
        """The legal actions whose value is within ``tolerance`` of the best, in id order."""
        values = self.action_values(state)
        best = max(values.values())
        return sorted(a for a, v in values.items() if best - v <= self.tolerance)

    def win_probability(self, value: float) -> float:
        """A win/loss game's value (a return in [-1, 1]) as the mover's win probability."""
        return (value + 1.0) / 2.0

    def describe(self) -> dict[str, Any]:
        """What ``starbench oracle`` prints about the oracle beside the initial value."""
        return {}


def cache_dir() -> Path:
    """Where oracles are cached: ``$STARBENCH_ORACLE_CACHE``, else ``$XDG_CACHE_HOME`` (or
    ``~/.cache``) ``/starbench/oracles``."""
    from starbench.ground.caches import user_cache

    env = os.environ.get("STARBENCH_ORACLE_CACHE")
    return Path(env) if env else user_cache("oracles")


def cache_path(name: str, game: str, folder: Path | None = None) -> Path:
    """The cache file of oracle ``name`` for ``game`` (its canonical string)."""
    digest = hashlib.sha256(game.encode()).hexdigest()[:12]
    safe = "".join(c if c.isalnum() else "_" for c in game)[:40].strip("_")
    return (folder or cache_dir()) / f"{name}_{safe}_{digest}.npz"


def _version() -> str:
    from starbench.ground.version import version

    return version()


def save(path: Path, header: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Write an oracle's arrays with its header, atomically."""
    from starbench.ground.files import atomic_write

    head = {**header, "format": CACHE_FORMAT, "starbench_version": _version()}
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, header=np.array(json.dumps(head, sort_keys=True)), **arrays)

    atomic_write(path, write)


def load(path: Path, name: str, game: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(header, arrays) of a cache file made for oracle ``name`` and ``game`` by this
    starbench; ``InputError`` (one line) for a file of another game, another version or
    another format, or one that cannot be read."""
    import zipfile

    try:
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:  # (a file numpy
            head = json.loads(str(z["header"]))  # opens itself stays open on a bad zip)
            arrays = {k: z[k] for k in z.files if k != "header"}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        raise CorruptCache(
            f"{path}: not a readable oracle cache ({type(e).__name__}: {first_line(e)[:120]})"
        ) from None
    again = f"recompute it with: starbench oracle '{game}' --recompute"
    if head.get("oracle") != name or head.get("game") != game:
        raise InputError(
            f"{path}: a cache of {head.get('oracle')!r} for {head.get('game')!r}, not of "
            f"{name!r} for {game!r}; {again}"
        )
    if head.get("format") != CACHE_FORMAT or head.get("starbench_version") != _version():
        raise StaleCache(
            f"{path}: made by starbench {head.get('starbench_version')} (cache format "
            f"{head.get('format')}), this is starbench {_version()} (format {CACHE_FORMAT}): "
            f"stale; {again}"
        )
    return head, arrays
