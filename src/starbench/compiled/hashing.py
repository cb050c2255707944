"""The generator's hash (``starbench.trees.hashing``) compiled with numba, on uint64 only.

Every integer that reaches these functions must be a ``np.uint64`` (a plain int gives another
hash under numba); the tests check them against the Python functions and ``TEST_VECTORS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from starbench.trees import hashing as _h

GOLDEN = np.uint64(_h.GOLDEN)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S11 = np.uint64(11)
S27 = np.uint64(27)
S30 = np.uint64(30)
S31 = np.uint64(31)
TWO_M53 = 1.0 / 9007199254740992.0
P_VALUE = np.uint64(_h.PURPOSE_VALUE)
P_INCREMENT = np.uint64(_h.PURPOSE_INCREMENT)
P_WEIGHT = np.uint64(_h.PURPOSE_WEIGHT)
P_NOISE = _h.PURPOSE_NOISE
P_POOL = np.uint64(_h.PURPOSE_POOL)
P_POOL_OFFSET = np.uint64(_h.PURPOSE_POOL_OFFSET)


@njit(cache=True)
def splitmix64(x):
    z = x + GOLDEN
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@njit(cache=True)
def mix(a, b):
    return splitmix64(a ^ splitmix64(b))


@njit(cache=True)
def draw(seed, node_id, purpose):
    return mix(mix(seed, node_id), purpose)


@njit(cache=True)
def unit_float(h):
    return float(h >> S11) * TWO_M53


@njit(cache=True)
def pool_child(tseed, parent, index, level, pool):
    """``trees.hashing.pool_child`` (every argument a np.uint64)."""
    slot = draw(tseed, mix(parent, index), P_POOL) % pool
    return mix(level, slot)


@njit(cache=True)
def pool_offset(tseed, node_id, level, r1):
    """``trees.hashing.pool_offset``: ``level`` (an int) increments drawn from the node's id."""
    total = np.int64(0)
    for lv in range(1, level + 1):
        total += np.int64(draw(tseed, node_id, P_POOL_OFFSET + np.uint64(lv)) % r1)
    return total
