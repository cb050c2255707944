"""Test-only plugin: registers ``broken``, Star1 with a root value that is off by one."""

from starbench import register_algorithm
from starbench.search.star1 import Star1


class Broken(Star1):
    def _root(self):
        value, best, tied = super()._root()
        return value + 1, best, tied


register_algorithm("broken", Broken, doc="test-only: wrong by one")
