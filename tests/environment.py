"""The environment of a test's subprocess that needs folders of its own on ``PYTHONPATH`` (test
plugins): the session's environment, those folders put before the session's ``PYTHONPATH``,
never in its place.  Where a session runs a checkout's source without installing it
(``PYTHONPATH=CHECKOUT/src``, as ``scripts/time_tests.py`` does), replacing it would run the
installed checkout's starbench instead of the code under test, and compile that code's kernels
again into the session's numba cache (numba caches per source file)."""

from __future__ import annotations

import os
from pathlib import Path


def with_path(*folders: Path | str, **extra: str) -> dict[str, str]:
    """``os.environ`` with ``folders`` first on ``PYTHONPATH`` and ``extra`` set."""
    parts = [str(f) for f in folders]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return {**os.environ, **extra, "PYTHONPATH": os.pathsep.join(parts)}
