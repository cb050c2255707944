"""Where starbench keeps what it computes once and reuses (one place for every cache folder).

* numba's compiled kernel: ``NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/starbench/numba``,
  else ``~/.cache/starbench/numba``; ``import starbench`` sets ``NUMBA_CACHE_DIR`` to it (unless
  it is set) before numba is first imported, so local runs, every launcher and an installed
  wheel share one per-user folder and never write into site-packages or a results folder (a
  process that imported numba before starbench keeps numba's own choice);
* exact oracles: ``STARBENCH_ORACLE_CACHE`` if set, else ``$XDG_CACHE_HOME/starbench/oracles``,
  else ``~/.cache/starbench/oracles``.
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache(name: str) -> Path:
    """``$XDG_CACHE_HOME/starbench/<name>`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "starbench" / name


def numba_cache_dir() -> Path:
    """numba's cache folder for starbench's kernel (module docstring)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else user_cache("numba")


def use_numba_cache() -> None:
    """Point numba at ``numba_cache_dir()`` unless ``NUMBA_CACHE_DIR`` is set already."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_dir())
