"""Trees for the compiled kernel: lazy generator parameters and array trees.

``materialize`` builds a generated tree into arrays in searched order (numba), computing the exact
node values first when an ordering or ``bounds=tree`` needs them, exactly as the Python full pass
does (floats, children in generated order, one explicit loop order).  ``explicit_arrays`` turns an
``ExplicitTree`` into the same arrays (breadth-first, children contiguous).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from starbench.compiled.hashing import (
    child,
    divisor,
    increment,
    leaf_value,
    noise,
    offset,
    pooled,
    weight,
)
from starbench.compiled.kernel import CHANCE, LEAF, MAX, MIN, stable_sort, static_level

# orderings (codes shared with the kernel for 0..2, 6 and 7)
ORDERING_CODES = {
    "generated": 0,
    "reversed": 1,
    "static": 2,
    "perfect": 3,
    "worst": 4,
    "noisy": 5,
    "static-interior": 6,
    "static-middle": 7,
}
OUTCOME_CODES = {"generated": 0, "probable": 1, "refuting": 2, "supporting": 3}


@njit(cache=True)
def _generate(
    levels,
    level_kind,
    level_arity,
    tseed,
    rid,
    incremental,
    r1,
    r1d,
    dist_random,
    const_probs,
    wd,
    pool,
    version,
):
    """``materialize``'s first part: every node's id (``gid``), path sum (``gps``, incremental
    values) and probability (``gprob``) in generated order, level by level (``off[lv]``: the
    first node of level ``lv``; ``W[lv]``: its width)."""
    W = np.ones(levels + 1, np.int64)
    for lv in range(levels):
        W[lv + 1] = W[lv] * level_arity[lv]
    off = np.zeros(levels + 2, np.int64)
    for lv in range(levels + 1):
        off[lv + 1] = off[lv] + W[lv]
    N = off[levels + 1]
    gid = np.empty(N, np.uint64)
    gps = np.zeros(N, np.int64)
    gprob = np.zeros(N)
    gid[0] = rid
    for lv in range(levels):
        a = level_arity[lv]
        for q in range(W[lv]):
            par = off[lv] + q
            base = off[lv + 1] + q * a
            for j in range(a):
                c = base + j
                if pool > 0:
                    cid = pooled(version, tseed, gid[par], np.uint64(j), np.uint64(lv + 1), pool)
                    gid[c] = cid
                    if incremental:
                        gps[c] = offset(version, tseed, cid, lv + 1, r1)
                    continue
                cid = child(version, gid[par], np.uint64(j))
                gid[c] = cid
                if incremental:
                    gps[c] = gps[par] + np.int64(increment(version, tseed, cid, r1d))
            if level_kind[lv] == CHANCE:
                if dist_random:
                    total = 0
                    for j in range(a):
                        w = weight(version, tseed, gid[base + j], wd)
                        gprob[base + j] = w
                        total += w
                    for j in range(a):
                        gprob[base + j] = gprob[base + j] / float(total)
                else:
                    for j in range(a):
                        gprob[base + j] = const_probs[j]
    return W, off, gid, gps, gprob


@njit(cache=True)
def _values(levels, level_kind, level_arity, W, off, gid, gps, gprob, incremental, tseed, r1d,
            version):  # fmt: skip
    """``materialize``'s second part: the leaves' values, then every interior node's value
    backed up level by level (``gval``: expectimax), and the smallest and largest leaf."""
    gval = np.zeros(off[levels + 1])
    lo_leaf = np.int64(0)
    hi_leaf = np.int64(0)
    for q in range(W[levels]):
        c = off[levels] + q
        if incremental:
            v = gps[c]
        else:
            v = np.int64(leaf_value(version, tseed, gid[c], r1d))
        if q == 0 or v < lo_leaf:
            lo_leaf = v
        if q == 0 or v > hi_leaf:
            hi_leaf = v
        gval[c] = float(v)
    for lv in range(levels - 1, -1, -1):
        a = level_arity[lv]
        kind = level_kind[lv]
        for q in range(W[lv]):
            base = off[lv + 1] + q * a
            if kind == CHANCE:
                acc = 0.0
                for j in range(a):
                    acc = acc + gprob[base + j] * gval[base + j]
            else:
                acc = gval[base]
                for j in range(1, a):
                    v2 = gval[base + j]
                    if (kind == MAX and v2 > acc) or (kind == MIN and v2 < acc):
                        acc = v2
            gval[off[lv] + q] = acc
    return gval, lo_leaf, hi_leaf


@njit(cache=True)
def _order_children(perm, key, a, kind, lv, levels, level_kind, base, gid, gps, gprob, gval,
                    ordering, outcome, noise_sd, tseed, version):  # fmt: skip
    """The order (``perm[:a]``) in which the children ``base .. base + a - 1`` of a node of
    ``kind`` at level ``lv`` are searched: the tree's move ordering or outcome ordering."""
    parent_max = lv == 0 or level_kind[lv - 1] != MIN
    for j in range(a):
        perm[j] = j
    if kind == CHANCE:
        if outcome == 1:
            for j in range(a):
                key[j] = -gprob[base + j]
            stable_sort(perm, key, a)
        elif outcome >= 2:
            ascending = parent_max == (outcome == 2)
            for j in range(a):
                key[j] = gval[base + j] if ascending else -gval[base + j]
            stable_sort(perm, key, a)
    elif ordering == 1:
        for j in range(a):
            perm[j] = a - 1 - j
    elif (2 <= ordering <= 5) or static_level(ordering, lv, levels):
        scale = 0.0
        if ordering == 5:  # noise_sd times the children's spread (models.spread, step for step)
            mean = 0.0
            for j in range(a):
                mean += gval[base + j]
            mean /= a
            var = 0.0
            for j in range(a):
                d = gval[base + j] - mean
                var += d * d
            scale = noise_sd * np.sqrt(var / a)
        for j in range(a):
            c = base + j
            if ordering == 2 or ordering >= 6:
                kv = float(gps[c])
            elif ordering == 5:
                total = 0.0
                for s in range(12):
                    total += noise(version, tseed, gid[c], s)
                kv = gval[c] + scale * (total - 6.0)
            else:
                kv = gval[c]
            key[j] = kv
        best_first = ordering != 4
        ascending = (kind == MIN) == best_first
        if not ascending:
            for j in range(a):
                key[j] = -key[j]
        stable_sort(perm, key, a)


@njit(cache=True)
def _searched_order(levels, level_kind, level_arity, off, gid, gps, gprob, gval, ordering,
                    outcome, noise_sd, tseed, version):  # fmt: skip
    """``materialize``'s third part: the arrays (kind, first, nchild, prob, value, key) with
    the nodes renumbered level by level in the order they are searched (``_order_children``)."""
    N = off[levels + 1]
    a_kind = np.empty(N, np.int64)
    a_first = np.zeros(N, np.int64)
    a_nchild = np.zeros(N, np.int64)
    a_prob = np.zeros(N)
    a_value = np.zeros(N)
    src = np.empty(N, np.int64)
    src[0] = 0
    amax = 1
    for lv in range(levels):
        if level_arity[lv] > amax:
            amax = level_arity[lv]
    perm = np.empty(amax, np.int64)
    key = np.empty(amax)
    for lv in range(levels):
        a = level_arity[lv]
        kind = level_kind[lv]
        nxt = off[lv + 1]
        for t in range(off[lv], off[lv + 1]):
            g = src[t]
            base = off[lv + 1] + (g - off[lv]) * a
            _order_children(perm, key, a, kind, lv, levels, level_kind, base, gid, gps, gprob,
                            gval, ordering, outcome, noise_sd, tseed, version)  # fmt: skip
            a_kind[t] = kind
            a_first[t] = nxt
            a_nchild[t] = a
            for j in range(a):
                src[nxt] = base + perm[j]
                nxt += 1
    for t in range(off[levels], N):
        a_kind[t] = LEAF
    a_key = np.empty(N, np.uint64)  # transposition keys: the node ids
    for t in range(N):
        a_prob[t] = gprob[src[t]]
        a_value[t] = gval[src[t]]
        a_key[t] = gid[src[t]]
    return a_kind, a_first, a_nchild, a_prob, a_value, a_key


@njit(cache=True)
def materialize(
    levels,
    level_kind,
    level_arity,
    tseed,
    rid,
    incremental,
    r1,
    ordering,
    outcome,
    dist_random,
    const_probs,
    wmax,
    noise_sd,
    pool,
    version,
):
    """The whole tree as arrays (kind, first, nchild, prob, value, key) in searched order, with the
    smallest and largest leaf: generated (``_generate``), valued (``_values``) and renumbered
    in searched order (``_searched_order``).  ``pool > 0``: every level's ids come from a pool
    (a DAG, see ``starbench.trees.regular``), materialised as the tree it unfolds to.
    ``version``: the generator version (``trees.generators``)."""
    r1d, wd = divisor(r1), divisor(wmax)
    W, off, gid, gps, gprob = _generate(
        levels, level_kind, level_arity, tseed, rid, incremental, r1, r1d, dist_random,
        const_probs, wd, pool, version,
    )  # fmt: skip
    gval, lo_leaf, hi_leaf = _values(
        levels, level_kind, level_arity, W, off, gid, gps, gprob, incremental, tseed, r1d, version
    )
    a_kind, a_first, a_nchild, a_prob, a_value, a_key = _searched_order(
        levels, level_kind, level_arity, off, gid, gps, gprob, gval, ordering, outcome,
        noise_sd, tseed, version,
    )  # fmt: skip
    return a_kind, a_first, a_nchild, a_prob, a_value, a_key, lo_leaf, hi_leaf


def explicit_arrays(tree) -> tuple[np.ndarray, ...]:
    """(kind, first, nchild, prob, value, key) of an ExplicitTree (numbered breadth first),
    floats; a node's transposition key is its number."""
    a_kind = np.frombuffer(tree.codes, np.uint8).astype(np.int64)
    a_first = np.array(tree.first, np.int64)
    a_nchild = np.array(tree.nchild, np.int64)
    if tree.exact:
        a_prob = np.fromiter((float(p) for p in tree.probs), np.float64, len(tree.probs))
        a_value = np.fromiter((float(v) for v in tree.values), np.float64, len(tree.values))
    else:
        a_prob = np.array(tree.probs, np.float64)
        a_value = np.array(tree.values, np.float64)
    return a_kind, a_first, a_nchild, a_prob, a_value, np.arange(len(a_kind), dtype=np.uint64)
