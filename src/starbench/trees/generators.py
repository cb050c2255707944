"""The generator versions (``tree.generator_version``): how a generated tree's ids and random
quantities come from the hash, one entry per version (``GENERATORS``).

Both versions draw the same statistical model (the same shapes, distributions and value models,
``starbench.trees.models``); they differ only in the hash, so the same seed gives other trees
under each.  Version 1 is the default and the version of every committed study; version 2 does
one mixing round per child and no division (``starbench.trees.hashing`` gives both in full).
The compiled engine follows the same rules (``starbench.compiled.hashing``); the tests check
the two engines counter for counter under both versions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starbench.trees.hashing import (
    GOLDEN,
    MASK64,
    PURPOSE_INCREMENT,
    PURPOSE_NOISE,
    PURPOSE_VALUE,
    PURPOSE_WEIGHT,
    SALT_NOISE,
    bounded,
    child_id,
    child_id2,
    draw,
    pool_child,
    pool_child2,
    pool_offset,
    pool_offset2,
    rotl32,
    splitmix64,
    unit_float,
)


@dataclass(frozen=True)
class Generator:
    """One version's draws: every random quantity of a generated tree, as a function of ints."""

    version: int
    about: str
    #: (parent id, generated index) -> the child's id
    child: Callable[[int, int], int]
    #: (tree seed, child id, r1) -> the increment on the edge into the child, 0..r1-1
    increment: Callable[[int, int, int], int]
    #: (tree seed, leaf id, r1) -> an independent leaf value, 0..r1-1 (value_model=uniform)
    leaf_value: Callable[[int, int, int], int]
    #: (tree seed, outcome id, weight_max) -> the outcome's weight, 1..weight_max
    weight: Callable[[int, int, int], int]
    #: (tree seed, parent id, generated index, child level, pool) -> the pooled child's id
    pooled: Callable[[int, int, int, int, int], int]
    #: (tree seed, pooled id, level, r1) -> the pooled node's offset
    offset: Callable[[int, int, int, int], int]
    #: (tree seed, node id, s) -> the s-th of the twelve uniforms of a node's ordering noise
    noise: Callable[[int, int, int], float]


V1 = Generator(
    1,
    "six SplitMix64 rounds and a division per child (every committed study)",
    child=child_id,
    increment=lambda ts, cid, r1: draw(ts, cid, PURPOSE_INCREMENT) % r1,
    leaf_value=lambda ts, nid, r1: draw(ts, nid, PURPOSE_VALUE) % r1,
    weight=lambda ts, cid, wmax: 1 + draw(ts, cid, PURPOSE_WEIGHT) % wmax,
    pooled=pool_child,
    offset=pool_offset,
    noise=lambda ts, nid, s: unit_float(draw(ts, nid, PURPOSE_NOISE * 16 + s)),
)

V2 = Generator(
    2,
    "one SplitMix64 round per child, multiply-shift ranges, no division",
    child=child_id2,
    increment=lambda ts, cid, r1: bounded(cid, r1),
    leaf_value=lambda ts, nid, r1: bounded(nid, r1),
    weight=lambda ts, cid, wmax: 1 + bounded(rotl32(cid), wmax),
    pooled=pool_child2,
    offset=pool_offset2,
    noise=lambda ts, nid, s: unit_float(splitmix64(((nid ^ SALT_NOISE) + s * GOLDEN) & MASK64)),
)

#: The generator versions by number (``tree.generator_version``).
GENERATORS: dict[int, Generator] = {g.version: g for g in (V1, V2)}
#: The version of a spec that names none (and of every committed study).
DEFAULT_VERSION = 1
