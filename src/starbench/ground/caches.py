"""Where starbench keeps what it computes once and reuses (one place for every cache folder).

* numba's compiled kernel: ``NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/starbench/numba``,
  else ``~/.cache/starbench/numba``, in a subfolder named by a digest of the sources numba
  compiles (``COMPILED_SOURCES``); ``import starbench`` sets ``NUMBA_CACHE_DIR`` to it (unless
  it is set) before numba is first imported, so local runs, every launcher and an installed
  wheel share one per-user folder and never write into site-packages or a results folder (a
  process that imported numba before starbench keeps numba's own choice).  numba checks only
  the source file of the function it caches, not those of the functions it calls (a game
  model's rules compiled into the kernel, the tree generator's hash): the digest makes an edit
  of any of them a new folder, compiled afresh, never a stale kernel loaded;
* exact oracles: ``STARBENCH_ORACLE_CACHE`` if set, else ``$XDG_CACHE_HOME/starbench/oracles``,
  else ``~/.cache/starbench/oracles``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def user_cache(name: str) -> Path:
    """``$XDG_CACHE_HOME/starbench/<name>`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "starbench" / name


#: The package's sources numba compiles, relative to the package: every module with a jitted
#: function (``tests/test_layers.py`` checks that none is missing).
COMPILED_SOURCES = ("compiled", "games/models.py", "oracles/pig.py", "commands/bench.py")


def compiled_digest() -> str:
    """A short digest of ``COMPILED_SOURCES`` (every ``.py`` file of a folder, by name)."""
    package = Path(__file__).resolve().parent.parent
    h = hashlib.sha1()
    for source in COMPILED_SOURCES:
        path = package / source
        for f in sorted(path.glob("*.py")) if path.is_dir() else [path]:
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


def numba_cache_dir() -> Path:
    """numba's cache folder for starbench's kernel (module docstring)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else user_cache("numba") / f"src-{compiled_digest()}"


def use_numba_cache() -> None:
    """Point numba at ``numba_cache_dir()`` unless ``NUMBA_CACHE_DIR`` is set already."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_dir())
