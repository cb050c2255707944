"""Run metadata recorded in every row: versions, git commit, machine, date."""

from __future__ import annotations

import datetime as _dt
import functools
import platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]


def _git(*args: str) -> str | None:
    """Read-only git: ``--no-optional-locks`` keeps ``git status`` from taking the index lock
    to refresh it, so a run killed mid-call never leaves a stale ``.git/index.lock``."""
    try:
        p = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(REPO), *args],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


@functools.cache
def git_state() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the source tree, or (None, None) outside a git checkout."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return commit, bool(status)


@functools.cache
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@functools.cache
def static_metadata() -> dict[str, Any]:
    import numpy

    from starbench.ground.version import version
    from starbench.trees.regular import GENERATOR_VERSION

    commit, dirty = git_state()
    return {
        "starbench_version": version(),
        "generator_version": GENERATOR_VERSION,
        "git_commit": commit,
        "git_dirty": dirty,
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,
        "hostname": socket.gethostname(),
        "cpu_model": cpu_model(),
        "platform": sys.platform,
    }


def metadata() -> dict[str, Any]:
    return {**static_metadata(), "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}
