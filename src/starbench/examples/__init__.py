"""Example trees shipped with starbench (``seed-abstract.json`` is the seeds' worked example)."""

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent


def example_path(name: str) -> Path:
    """The path of a shipped example tree, e.g. ``example_path("seed-abstract")``."""
    return EXAMPLES / f"{name}.json"
