"""Room on CPython's frame stack for the recursive reference searches.

CPython (3.11 and later) keeps Python frames in chunks of at least 16 KB and frees a chunk as
soon as its first frame returns.  A recursion that keeps crossing a chunk boundary maps and
unmaps a chunk at every crossing.  Where a chunk boundary falls depends on how deep the caller
already is, so a search of a deep tree whose leaves happen to lie just past a boundary pays one
``mmap``/``munmap`` pair per leaf visit.  Measured on a depth-12 tree (branching 3, three outcomes,
Star2 under a 30,000-node budget): 65,727 pairs and 35 us per node when called from the top of a
script, 1,400 pairs and 10 us per node when called 20 frames deeper (``strace -c``); the same
happened to Star1 and expectimax at other depths.

``with_room(fn)`` calls ``fn()`` from a frame so large that it starts a fresh chunk with about
70 KB left after it: a search of a few hundred Python frames then never crosses a boundary, and
its speed no longer depends on its caller.  The large frame costs about 60 us of CPU per search
on the development machine (a 20,000-call loop; mostly the first touches of the fresh chunk's
pages): noticeable only on searches of a few hundred nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Local variables of the large frame: CPython allocates a chunk of the next power of two above
#: 8 * (frame words + 1000) bytes, so 7,200 locals (57.6 KB) get a 128 KB chunk of their own.
ROOM_LOCALS = 7200


def _make_roomy() -> Callable[[Callable[[], T]], T]:
    names = " = ".join(f"_{i}" for i in range(ROOM_LOCALS))
    source = f"def roomy(fn):\n    if False:\n        {names} = None\n    return fn()\n"
    namespace: dict = {}
    exec(compile(source, "<starbench.search.pystack>", "exec"), namespace)  # noqa: S102
    return namespace["roomy"]


_roomy = _make_roomy()


def with_room(fn: Callable[[], T]) -> T:
    """``fn()``, called from the start of a fresh frame-stack chunk (see the module docstring)."""
    return _roomy(fn)
