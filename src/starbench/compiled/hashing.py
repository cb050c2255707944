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


# ---------------------------------------------------------------- the generator versions
# ``trees.generators``: each quantity under version 1 (``draw`` and a remainder) or version 2
# (one round per child, multiply-shift ranges).  ``version`` is an int; ``r1d``, ``wd`` are
# ``divisor`` bundles (their first field is the range itself).

SALT_POOL_LEVEL = np.uint64(_h.SALT_POOL_LEVEL)
SALT_OFFSET = np.uint64(_h.SALT_OFFSET)
SALT_NOISE = np.uint64(_h.SALT_NOISE)
S32 = np.uint64(32)


@njit(cache=True)
def rotl32(h):
    """``trees.hashing.rotl32``."""
    return (h << S32) | (h >> S32)


@njit(cache=True)
def child_id2(parent, index):
    """``trees.hashing.child_id2`` (both np.uint64)."""
    return splitmix64(parent + index * GOLDEN)


@njit(cache=True)
def child(version, parent, index):
    """The id of child ``index`` (a np.uint64) of node ``parent``."""
    if version == 2:
        return child_id2(parent, index)
    return mix(parent, index)


@njit(cache=True)
def increment(version, tseed, cid, r1d):
    """The increment on the edge into node ``cid``, in 0..r1-1 (a np.uint64)."""
    if version == 2:
        return mulhi(cid, r1d[0])
    return fastmod(draw(tseed, cid, P_INCREMENT), r1d)


@njit(cache=True)
def leaf_value(version, tseed, nid, r1d):
    """An independent leaf value in 0..r1-1 (value_model=uniform)."""
    if version == 2:
        return mulhi(nid, r1d[0])
    return fastmod(draw(tseed, nid, P_VALUE), r1d)


@njit(cache=True)
def weight(version, tseed, cid, wd):
    """An outcome's random weight, 1..weight_max (an int64)."""
    if version == 2:
        return 1 + np.int64(mulhi(rotl32(cid), wd[0]))
    return 1 + np.int64(fastmod(draw(tseed, cid, P_WEIGHT), wd))


@njit(cache=True)
def pooled(version, tseed, parent, index, level, pool):
    """``trees.hashing.pool_child`` or ``pool_child2`` (every argument but version a uint64)."""
    if version == 2:
        slot = mulhi(child_id2(parent, index), pool)
        level_seed = splitmix64((tseed ^ SALT_POOL_LEVEL) + level * GOLDEN)
        return splitmix64(level_seed + slot * GOLDEN)
    return pool_child(tseed, parent, index, level, pool)


@njit(cache=True)
def offset(version, tseed, node_id, level, r1):
    """``trees.hashing.pool_offset`` or ``pool_offset2`` (``level`` an int)."""
    if version == 2:
        total = np.int64(0)
        for lv in range(1, level + 1):
            h = splitmix64((node_id ^ SALT_OFFSET) + np.uint64(lv) * GOLDEN)
            total += np.int64(mulhi(h, r1))
        return total
    return pool_offset(tseed, node_id, level, r1)


@njit(cache=True)
def noise(version, tseed, node_id, s):
    """The ``s``-th (an int) of a node's twelve noise uniforms."""
    if version == 2:
        return unit_float(splitmix64((node_id ^ SALT_NOISE) + np.uint64(s) * GOLDEN))
    return unit_float(draw(tseed, node_id, np.uint64(P_NOISE * 16 + s)))
