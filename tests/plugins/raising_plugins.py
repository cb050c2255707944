"""Test-only plugin: registers ``fragile``, whose constructor raises."""

from starbench import register_algorithm
from starbench.search.star1 import Star1


class Fragile(Star1):
    def __init__(self, *args, **kwargs):
        raise RuntimeError("no tables today")


register_algorithm("fragile", Fragile, doc="test-only: its constructor raises")
