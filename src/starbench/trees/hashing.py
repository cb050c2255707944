"""Counter-based integer hashing: every random draw of a generated tree comes from here.

A generated tree is a pure function of integers.  Every draw is an unsigned 64-bit hash of
``(seed, node id, purpose)`` built from SplitMix64's finaliser (Steele, Lea and Flood, 2014),
never from a stateful stream, so the same tree comes out in every process, on every machine
and in the compiled engine.  Rules kept everywhere (the compiled engine must follow them too):

* every integer is reduced modulo 2**64 at each step (``& MASK64``);
* a child's id is ``mix(parent_id, child_index)``, so ids never overflow 64 bits;
* floats are derived from the top 53 bits of a hash only (``unit_float``); noise uses the sum of
  twelve such uniforms (Irwin-Hall) in one fixed order, with no libm-dependent transform.

``TEST_VECTORS`` pins the function; ``tests/test_hashing.py`` checks it.
"""

from __future__ import annotations

import functools

MASK64 = 0xFFFFFFFFFFFFFFFF
GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53

# Purposes of draws: one constant per kind of random quantity.
PURPOSE_VALUE = 1  # independent leaf value
PURPOSE_INCREMENT = 2  # increment on the edge into a node (incremental model)
PURPOSE_WEIGHT = 3  # integer weight of a chance outcome (random distribution)
PURPOSE_NOISE = 4  # ordering noise (12 sub-draws: purpose NOISE * 16 + j)
PURPOSE_POOL = 5  # which pool id a child edge leads to (tree.pool > 0)
#: tree.pool > 0, incremental model: a node's offset is the sum of ``level`` draws of purpose
#: POOL_OFFSET + l (l = 1..level) from its own id (never along the path)
PURPOSE_POOL_OFFSET = 6 << 32


def splitmix64(x: int) -> int:
    """SplitMix64 finaliser of ``x + golden gamma`` (mod 2**64)."""
    z = (x + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def mix(a: int, b: int) -> int:
    """Combine two 64-bit integers into one (order matters)."""
    return splitmix64((a & MASK64) ^ splitmix64(b & MASK64))


def draw(seed: int, node_id: int, purpose: int) -> int:
    """The random 64-bit integer of ``(seed, node id, purpose)``."""
    return mix(mix(seed, node_id), purpose)


def unit_float(h: int) -> float:
    """A float in [0, 1) from the top 53 bits of a hash (exact, platform independent)."""
    return (h >> 11) * _TWO_M53


@functools.lru_cache(maxsize=1 << 16)
def tree_seed(seed: int, instance: int) -> int:
    """The seed of instance ``instance`` of a cell whose seed is ``seed`` (remembered: every
    search of an instance asks for it)."""
    return mix(seed, instance)


def root_id(tseed: int) -> int:
    """The id of the root node of the tree with seed ``tseed``."""
    return splitmix64(tseed)


def child_id(parent: int, index: int) -> int:
    """The id of child ``index`` (0-based, generated order) of node ``parent``."""
    return mix(parent, index)


def pool_child(tseed: int, parent: int, index: int, level: int, pool: int) -> int:
    """The id of child ``index`` (generated order) of node ``parent`` when every level holds at
    most ``pool`` distinct nodes: the edge draws a slot in 0..pool-1 and the child is the node
    (``level``, slot), whose id is ``mix(level, slot)``; the child's ``level`` is its own."""
    slot = draw(tseed, child_id(parent, index), PURPOSE_POOL) % pool
    return mix(level, slot)


def pool_offset(tseed: int, node_id: int, level: int, r1: int) -> int:
    """A pooled node's offset under the incremental model: ``level`` increments in 0..r1-1,
    each drawn from the node's own id, summed (the path sum's distribution, not its path)."""
    total = 0
    for lv in range(1, level + 1):
        total += draw(tseed, node_id, PURPOSE_POOL_OFFSET + lv) % r1
    return total


# (function, arguments, expected) triples that pin the hash; the compiled engine uses them too.
TEST_VECTORS: tuple[tuple[str, tuple[int, ...], int], ...] = (
    # The first four outputs of the reference SplitMix64 stream seeded with 0.
    ("splitmix64", (0,), 0xE220A8397B1DCDAF),
    ("splitmix64", (GOLDEN,), 0x6E789E6AA1B965F4),
    ("splitmix64", ((2 * GOLDEN) & MASK64,), 0x06C45D188009454F),
    ("splitmix64", ((3 * GOLDEN) & MASK64,), 0xF88BB8A8724C81EC),
    # starbench's own combinations, pinned at their first release.
    ("splitmix64", (MASK64,), 0xE4D971771B652C20),
    ("mix", (0, 0), 0xA706DD2F4D197E6F),
    ("mix", (12345, 7), 0x19BD65D14C45ECF7),
    ("draw", (1, 2, 3), 0x05B42CDF42184245),
)
