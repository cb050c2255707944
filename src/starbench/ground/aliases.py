"""The old import paths of modules moved in 0.3 (``MOVED``), kept working for one release.

``import starbench.cli`` (or any old path below) gives the moved module itself, the same
object as ``starbench.commands.cli``, with a ``DeprecationWarning`` naming the new path.  The
finder is installed once, by ``starbench/__init__.py``; it answers only the names of ``MOVED``
and only when no file of that name exists (``python -m starbench.run`` keeps a file of its own,
``starbench/run.py``, since ``-m`` needs one).  The table is the changelog's list of moves.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any

#: old path -> new path (every module moved in 0.3)
MOVED: dict[str, str] = {
    **{f"starbench.{m}": f"starbench.ground.{m}" for m in
       ("limits", "caches", "textable", "files", "version", "configs", "overrides")},
    **{f"starbench.{m}": f"starbench.commands.{m}" for m in
       ("cli", "run", "solve", "bench", "latency", "match", "reference")},
    "starbench.experiment.help": "starbench.commands.help",
    "starbench.analysis.catalog": "starbench.commands.catalog",
    **{f"starbench.{m}": f"starbench.external.{m}" for m in
       ("conform", "conformtrees", "corpus", "shrink")},
    "starbench.experiment.export": "starbench.external.export",
    **{f"starbench.experiment.{m}": f"starbench.record.{m}" for m in
       ("storage", "integrity", "rows", "tablefile", "metadata", "coverage", "repair")},
    "starbench.analysis.inexact": "starbench.analysis.decisions",
}  # fmt: skip


def moved(old: str) -> Any:
    """The module now at ``MOVED[old]``, with a ``DeprecationWarning`` naming its new path."""
    new = MOVED[old]
    warnings.warn(
        f"{old} moved to {new}; the old path works until the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    return importlib.import_module(new)


class _Alias(importlib.abc.Loader):
    def __init__(self, old: str):
        self.old = old

    def create_module(self, spec: Any) -> Any:
        return moved(self.old)  # the moved module itself, not a copy

    def exec_module(self, module: Any) -> None:
        pass  # already executed under its new name

    def get_code(self, fullname: str) -> Any:
        """What ``python -m OLD`` runs: the command line for the old ``starbench.cli`` (as
        ``python -m starbench``), else one line saying the module is not a command (exit 2)."""
        if MOVED[fullname] == "starbench.commands.cli":
            source = (  # argv[0] as the command names itself (runpy leaves None: no file)
                "import sys\nsys.argv[0] = sys.argv[0] or 'starbench'\n"
                "from starbench.commands.cli import main\nsys.exit(main())\n"
            )
        else:
            line = (
                f"starbench: {fullname} is a module (now {MOVED[fullname]}), not a command: "
                f"run the starbench command (starbench --help)"
            )
            source = f"import sys\nprint({line!r}, file=sys.stderr)\nsys.exit(2)\n"
        return compile(source, f"<{fullname}>", "exec")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(fullname))


def install() -> None:
    """Answer the old paths (once per process)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
