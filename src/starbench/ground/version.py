"""starbench's version, read from the installed package's metadata when first asked for.

``importlib.metadata`` costs a fifth of ``import starbench``, so it is read on the first call
only (``starbench.__version__`` calls it).  A source tree run without installing reads
``0.0.0+unknown``.
"""

from __future__ import annotations

import functools

UNKNOWN = "0.0.0+unknown"


@functools.cache
def version() -> str:
    """The installed starbench's version (``pyproject.toml``'s, as pip recorded it)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("starbench")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return UNKNOWN
