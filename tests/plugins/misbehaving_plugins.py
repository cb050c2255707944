"""Test-only plugin: ``raiser``, whose search raises a plain ``ValueError``, ``quitter``, whose
search calls ``sys.exit(3)``, and ``sleeper``,
whose search never looks at the clock (it blocks for an hour)."""

import time

from starbench import register_algorithm
from starbench.search.star1 import Star1


class Raiser(Star1):
    def _root(self):
        raise ValueError("the plugin's own bug")


class Sleeper(Star1):
    def _root(self):
        time.sleep(3600)
        return super()._root()


register_algorithm("raiser", Raiser, doc="test-only: its search raises ValueError")
register_algorithm("sleeper", Sleeper, doc="test-only: its search blocks for an hour")


class Alternating(Star1):
    """Wrong by one on every other search in this process: a nondeterministic plugin."""

    calls = 0

    def _root(self):
        value, best, tied = super()._root()
        Alternating.calls += 1
        return (value + 1 if Alternating.calls % 2 else value), best, tied


register_algorithm("alternating", Alternating, doc="test-only: wrong on every other search")


class Quitter(Star1):
    """Calls ``sys.exit(3)`` in its search (a plugin that ends the process its own way)."""

    def _root(self):
        import sys

        sys.exit(3)


register_algorithm("quitter", Quitter, doc="test-only: its search calls sys.exit(3)")
