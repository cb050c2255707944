"""Where starbench's own Hydra configs are: the one config folder every command composes from.

``conf/`` at the top of the source checkout this package runs from (an editable install), else
the copy a wheel carries inside the package (``starbench/conf``, copied from ``conf/`` at build
time: ``conf/`` stays the one source).  A user's own folder (``-cd DIR``) is searched before it;
that folder is handed down as an argument wherever it matters, never read from a global.
"""

from __future__ import annotations

from pathlib import Path


def conf_dir() -> Path:
    """The packaged config folder (see the module's docstring)."""
    here = Path(__file__).resolve()  # src/starbench/ground/configs.py, or starbench/ground/...
    source = here.parents[3] / "conf"
    if source.is_dir() and (here.parents[3] / "pyproject.toml").is_file():
        return source
    return here.parents[1] / "conf"


#: ``conf_dir()``, computed once at import.
CONF_DIR = conf_dir()
