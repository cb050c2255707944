"""Counter-based integer hashing: every random draw of a generated tree comes from here.

A generated tree is a pure function of integers.  Every draw is an unsigned 64-bit hash of
``(seed, node id, purpose)`` built from SplitMix64's finaliser (Steele, Lea and Flood, 2014),
never from a stateful stream, so the same tree comes out in every process, on every machine
and in the compiled engine.  Rules kept everywhere (the compiled engine must follow them too):

* every integer is reduced modulo 2**64 at each step (``& MASK64``);
* a child's id is ``mix(parent_id, child_index)``, so ids never overflow 64 bits;
* floats are derived from the top 53 bits of a hash only (``unit_float``); noise uses the sum of
  twelve such uniforms (Irwin-Hall) in one fixed order, with no libm-dependent transform.

Two generator versions (``tree.generator_version``, the registry ``GENERATORS``) draw the same
statistical model from different hashes; a version, once released, never changes:

* **version 1** (the committed studies): child ``j`` of node ``id`` is ``mix(id, j)`` and each
  random quantity ``draw(tree_seed, id, purpose) % n``: six SplitMix64 rounds and a division per
  child;
* **version 2**: child ``j`` of node ``id`` is output ``j`` of the SplitMix64 stream seeded with
  the node's id, ``splitmix64(id + j * golden)``: one round per child.  The tree seed enters
  through the root id, so every id depends on it.  A quantity in ``0..n-1`` is drawn from the
  id itself by multiply-shift, ``(id * n) >> 64`` (``bounded``; Lemire 2019, "Fast random
  integer generation in an interval"), no division: the increment on the edge into a node (or a
  uniform leaf's value) from the id as it is, an outcome's random weight from the id with its
  halves swapped (``rotl32``), so that weight and increment come from disjoint halves of the
  hash.  What is not on the per-child path (the pooled ids and offsets of ``tree.pool > 0``, the
  noise of ``ordering=noisy``) draws from further outputs of salted streams.

``TEST_VECTORS`` pins the functions; ``tests/test_hashing.py`` checks them.
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


def bounded(h: int, n: int) -> int:
    """A number in ``0..n-1`` from a 64-bit hash, by multiply-shift: ``(h * n) >> 64`` (no
    division; its bias, below ``n / 2**64``, is negligible for every range a tree uses)."""
    return (h * n) >> 64


def rotl32(h: int) -> int:
    """``h`` with its 32-bit halves swapped."""
    return ((h << 32) | (h >> 32)) & MASK64


def child_id2(parent: int, index: int) -> int:
    """Version 2: the id of child ``index`` of node ``parent``, output ``index`` of the SplitMix64
    stream seeded with ``parent`` (one round)."""
    return splitmix64((parent + index * GOLDEN) & MASK64)


#: Version 2's salts: the streams of what is drawn off the per-child path.
SALT_POOL_LEVEL = 0x5851F42D4C957F2D
SALT_OFFSET = 0x14057B7EF767814F
SALT_NOISE = 0xD1B54A32D192ED03


def pool_child2(tseed: int, parent: int, index: int, level: int, pool: int) -> int:
    """Version 2 of ``pool_child``: the edge's hash picks a slot, and the node (``level``, slot)
    is output ``slot`` of the level's stream (seeded from the tree seed and the level)."""
    slot = bounded(child_id2(parent, index), pool)
    level_seed = splitmix64(((tseed ^ SALT_POOL_LEVEL) + level * GOLDEN) & MASK64)
    return splitmix64((level_seed + slot * GOLDEN) & MASK64)


def pool_offset2(tseed: int, node_id: int, level: int, r1: int) -> int:
    """Version 2 of ``pool_offset``: ``level`` increments in 0..r1-1 from the node's salted
    stream, summed."""
    total = 0
    for lv in range(1, level + 1):
        total += bounded(splitmix64(((node_id ^ SALT_OFFSET) + lv * GOLDEN) & MASK64), r1)
    return total


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
    # version 2, pinned at its first release
    ("child_id2", (0, 0), 0xE220A8397B1DCDAF),  # output 0 of the stream seeded with 0
    ("child_id2", (0, 1), 0x6E789E6AA1B965F4),  # output 1: the reference stream's second
    ("child_id2", (12345, 7), 0x6E7411B06820371C),
    ("bounded", (MASK64, 1_000_001), 1_000_000),
    ("bounded", (1 << 63, 10), 5),
    ("rotl32", (0x0123456789ABCDEF,), 0x89ABCDEF01234567),
    ("pool_child2", (1, 2, 3, 4, 5), 0xCB4384881D3285CA),
    ("pool_offset2", (1, 2, 3, 1_000_001), 667703),
)
