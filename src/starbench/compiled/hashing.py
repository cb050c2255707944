"""The generator's hash (``starbench.trees.hashing``) compiled with numba, on uint64 only.

Every integer that reaches these functions must be a ``np.uint64`` (a plain int gives another
hash under numba); the tests check them against the Python functions and ``TEST_VECTORS``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

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


@intrinsic
def mulhi(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64 (one ``mul`` on x86-64)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@njit(cache=True)
def divisor(d):
    """``d`` (a uint64 >= 1) with what ``fastmod`` needs to divide by it without a division
    instruction (Granlund and Montgomery 1994, "Division by invariant integers using
    multiplication", figure 4.1): l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1, and the
    shifts min(l, 1), max(l - 1, 0).  The quotient is found by long division, 64 steps."""
    one = np.uint64(1)
    log2d = 0  # l
    while log2d < 64 and (one << np.uint64(log2d)) < d:
        log2d += 1
    # (2^l - d) * 2^64 / d, with 2^l - d < d: the remainder r stays below d
    r = (one << np.uint64(log2d)) - d if log2d < 64 else np.uint64(0) - d
    q = np.uint64(0)
    for _ in range(64):
        carry = r >> np.uint64(63)
        r = r << one
        q = q << one
        if carry or r >= d:
            r -= d
            q |= one
    return d, q + one, np.uint64(min(log2d, 1)), np.uint64(max(log2d - 1, 0))


@njit(cache=True)
def fastmod(x, dv):
    """``x % d`` for uint64 ``x`` and ``dv = divisor(d)``: the same number, with a
    multiplication where ``%`` by a run-time value costs a 64-bit division."""
    d, m, sh1, sh2 = dv
    t = mulhi(m, x)
    q = (t + ((x - t) >> sh1)) >> sh2
    return x - q * d
