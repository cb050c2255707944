"""Test-only plugin: ``raiser``, whose search raises a plain ``ValueError``; ``quitter``, whose
search calls ``sys.exit(3)``; ``sleeper``, whose search never looks at the clock (it blocks for
an hour); ``deaf`` and ``stubborn``, which block past the deadline too (one ignores ``SIGALRM``,
the other catches what it raises); ``vanisher``, which ends its process with ``os._exit(3)``;
``alternating``, wrong on every other search."""

import contextlib
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


class Deaf(Star1):
    """Ignores ``SIGALRM`` (the deadline's signal) and blocks for an hour: only a process
    limit stops it."""

    def _root(self):
        import signal

        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(3600)
        return super()._root()


class Stubborn(Star1):
    """Catches every exception the deadline raises and goes on blocking."""

    def _root(self):
        end = time.monotonic() + 3600
        while time.monotonic() < end:
            with contextlib.suppress(BaseException):  # the point of this plugin
                time.sleep(3600)
        return super()._root()


class Vanisher(Star1):
    """Ends its process with ``os._exit(3)`` in its search: no exception, no exit handlers."""

    def _root(self):
        import os

        os._exit(3)


register_algorithm("deaf", Deaf, doc="test-only: ignores SIGALRM and blocks for an hour")
register_algorithm("stubborn", Stubborn, doc="test-only: catches the deadline and blocks on")
register_algorithm("vanisher", Vanisher, doc="test-only: its search calls os._exit(3)")
