"""The compiled search kernel: every algorithm of the registry in one iterative numba function.

The kernel runs the same procedures as the readable modules in ``starbench.search`` (which stay
the reference), in float64, with an explicit stack instead of recursion (numba segfaults when it
loads cached, mutually recursive jitted functions).  Each stack frame is one node on the current
path; a frame's program counter says where it resumes when a child returns.  Every arithmetic
expression is written in the reference's order, so values, best moves and every statistics
counter agree exactly with the Python engine (tests compare them on thousands of trees).

Trees come in two forms: *lazy* generated trees (children computed from the hash at each entry,
orderings that need no full pass) and *array* trees (explicit trees, or generated trees
materialised with ``materialize`` when an ordering or bound needs exact values), children of node
``x`` being ``first[x] .. first[x] + nchild[x] - 1`` in searched order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from starbench.compiled.codes import (  # noqa: E402  (the kernel's named codes)
    BAD_EVAL,
    BUDGET,
    CHANCE,
    CYC_AFTER,
    CYC_STEP,
    DEC_AFTER,
    DEC_LOOP,
    ENTER,
    EXHAUSTIVE,
    EXP_AFTER,
    EXP_STEP,
    LEAF,
    MAX,
    MIN,
    N_STATS,
    NORMAL,
    OK,
    PROBE,
    PROBING,
    RESUME,
    S_CCUT,
    S_CHANCE,
    S_DCUT,
    S_LEAVES,
    S_MAX,
    S_MIN,
    S_NODES,
    S_PCUT,
    S_PLEAVES,
    S_PNODES,
    S_RESUMED,
    SEARCH_AFTER,
    SEARCH_INIT,
    SEARCH_STEP,
    SEQ_AFTER,
    SEQ_STEP,
)
from starbench.compiled.hashing import P_INCREMENT, P_VALUE, P_WEIGHT, draw, mix

# lazy orderings
ORD_GENERATED, ORD_REVERSED, ORD_STATIC = 0, 1, 2
OUT_GENERATED, OUT_PROBABLE = 0, 1


@njit(cache=True)
def stable_sort(perm, key, n):
    """Insertion sort of perm[:n] by key[perm[j]] ascending; stable (ties keep their order)."""
    for a in range(1, n):
        p = perm[a]
        kp = key[p]
        b = a - 1
        while b >= 0 and key[perm[b]] > kp:
            perm[b + 1] = perm[b]
            b -= 1
        perm[b + 1] = p


@njit(cache=True)
def lazy_children(
    level,
    nid,
    ps,
    levels,
    level_kind,
    level_arity,
    tseed,
    incremental,
    r1,
    ordering,
    outcome,
    dist_random,
    const_probs,
    wmax,
    out_id,
    out_ps,
    out_prob,
    out_kind,
    tmp_id,
    tmp_ps,
    tmp_prob,
    key,
    perm,
):
    """Children of a lazy generated node, in searched order, into the out_* rows; returns n."""
    n = level_arity[level]
    kind = level_kind[level]
    ckind = LEAF if level + 1 == levels else level_kind[level + 1]
    for j in range(n):
        cid = mix(nid, np.uint64(j))
        tmp_id[j] = cid
        if incremental:
            tmp_ps[j] = ps + np.int64(draw(tseed, cid, P_INCREMENT) % r1)
        else:
            tmp_ps[j] = 0
        perm[j] = j
    if kind == CHANCE:
        if dist_random:
            total = 0
            for j in range(n):
                w = 1 + np.int64(draw(tseed, tmp_id[j], P_WEIGHT) % wmax)
                key[j] = w
                total += w
            for j in range(n):
                tmp_prob[j] = key[j] / float(total)
        else:
            for j in range(n):
                tmp_prob[j] = const_probs[j]
        if outcome == OUT_PROBABLE:
            for j in range(n):
                key[j] = -tmp_prob[j]
            stable_sort(perm, key, n)
    else:
        if ordering == ORD_REVERSED:
            for j in range(n):
                perm[j] = n - 1 - j
        elif ordering == ORD_STATIC:
            for j in range(n):
                key[j] = float(tmp_ps[j]) if kind == MIN else -float(tmp_ps[j])
            stable_sort(perm, key, n)
    for j in range(n):
        q = perm[j]
        out_id[j] = tmp_id[q]
        out_ps[j] = tmp_ps[q]
        out_prob[j] = tmp_prob[q] if kind == CHANCE else 0.0
        out_kind[j] = ckind
    return n


@njit(cache=True)
def lazy_child(nid, ps, g, tseed, incremental, r1):
    """(id, path sum) of child ``g`` (generated index) of a lazy node."""
    cid = mix(nid, np.uint64(g))
    if incremental:
        return cid, ps + np.int64(draw(tseed, cid, P_INCREMENT) % r1)
    return cid, np.int64(0)


@njit(cache=True)
def search_kernel(
    algo,
    k,
    sequential,
    research,
    L,
    U,
    budget,
    lazy,
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
    a_kind,
    a_first,
    a_nchild,
    a_prob,
    a_value,
    max_arity,
    max_depth,
    stats,
    root_vals,
):
    """Search the tree from its root with window (-inf, +inf).

    Returns (status, value, best move or -1, bad node); fills ``stats`` (STAT_FIELDS order) and,
    for the exhaustive algorithm at a decision root, ``root_vals`` with every root child's value.
    """
    D = max_depth + 1
    A = max_arity if max_arity > 0 else 1
    inf = np.inf
    # frames
    f_kind = np.zeros(D, np.int64)
    f_idx = np.zeros(D, np.int64)
    f_id = np.zeros(D, np.uint64)
    f_ps = np.zeros(D, np.int64)
    f_level = np.zeros(D, np.int64)
    f_alpha = np.zeros(D)
    f_beta = np.zeros(D)
    f_pc = np.zeros(D, np.int64)
    f_mode = np.zeros(D, np.int64)
    f_owner = np.zeros(D, np.int64)
    f_stop = np.zeros(D, np.int64)
    f_inprobe = np.zeros(D, np.bool_)
    f_n = np.zeros(D, np.int64)
    f_best = np.zeros(D)
    f_bm = np.zeros(D, np.int64)
    f_next = np.zeros(D, np.int64)
    f_m = np.zeros(D, np.int64)
    f_i = np.zeros(D, np.int64)
    f_r = np.zeros(D, np.int64)
    f_t = np.zeros(D, np.int64)
    f_prog = np.zeros(D, np.bool_)
    f_nt = np.zeros(D, np.int64)
    f_x = np.zeros(D)
    f_tlo = np.zeros(D)
    f_thi = np.zeros(D)
    f_slo = np.zeros(D)
    f_shi = np.zeros(D)
    f_ai = np.zeros(D)
    f_bi = np.zeros(D)
    f_pre = np.zeros(D, np.bool_)
    # children of the node of each frame
    c_idx = np.zeros((D, A), np.int64)
    c_id = np.zeros((D, A), np.uint64)
    c_ps = np.zeros((D, A), np.int64)
    c_prob = np.zeros((D, A))
    c_kind = np.zeros((D, A), np.int64)
    # chance-node bounds and the probed successors' decision states
    lo = np.zeros((D, A))
    hi = np.zeros((D, A))
    st_has = np.zeros((D, A), np.bool_)
    st_best = np.zeros((D, A))
    st_bm = np.zeros((D, A), np.int64)
    st_next = np.zeros((D, A), np.int64)
    st_n = np.zeros((D, A), np.int64)
    targets = np.zeros((D, A), np.int64)
    # scratch for lazy children
    tmp_id = np.zeros(A, np.uint64)
    tmp_ps = np.zeros(A, np.int64)
    tmp_prob = np.zeros(A)
    key = np.zeros(A)
    perm = np.zeros(A, np.int64)

    for s in range(N_STATS):
        stats[s] = 0

    # root frame
    sp = 0
    if lazy:
        f_kind[0] = level_kind[0] if levels > 0 else LEAF
        f_id[0] = rid
        f_ps[0] = 0
        f_level[0] = 0
    else:
        f_kind[0] = a_kind[0]
        f_idx[0] = 0
    f_alpha[0] = -inf
    f_beta[0] = inf
    f_pc[0] = ENTER
    f_mode[0] = NORMAL
    f_inprobe[0] = False
    ret = 0.0
    root_bm = -1
    # the float tolerance 1e-9 * max(1, |L|, |U|), as starbench.search.arith.tolerance
    root_margin = 0.0
    if algo != EXHAUSTIVE:
        root_margin = 1e-9 * max(1.0, abs(L), abs(U))

    while sp >= 0:
        d = sp
        pc = f_pc[d]
        kind = f_kind[d]
        if pc == ENTER:
            # ---- enter the node: count it
            stats[S_NODES] += 1
            if kind == LEAF:
                stats[S_LEAVES] += 1
            elif kind == MAX:
                stats[S_MAX] += 1
            elif kind == MIN:
                stats[S_MIN] += 1
            else:
                stats[S_CHANCE] += 1
            if f_inprobe[d]:
                stats[S_PNODES] += 1
                if kind == LEAF:
                    stats[S_PLEAVES] += 1
            if budget >= 0 and stats[S_NODES] > budget:
                return BUDGET, np.nan, -1, -1
            if kind == LEAF:
                if lazy:
                    if incremental:
                        v = float(f_ps[d])
                    else:
                        v = float(np.int64(draw(tseed, f_id[d], P_VALUE) % r1))
                else:
                    v = a_value[f_idx[d]]
                if not (L <= v <= U):
                    return BAD_EVAL, v, -1, f_idx[d]
                ret = v
                sp -= 1
                continue
            # ---- children
            if lazy:
                lv = f_level[d]
                if (kind == CHANCE and (dist_random or outcome != OUT_GENERATED)) or (
                    kind != CHANCE and ordering == ORD_STATIC
                ):
                    f_pre[d] = True
                    n = lazy_children(
                        lv,
                        f_id[d],
                        f_ps[d],
                        levels,
                        level_kind,
                        level_arity,
                        tseed,
                        incremental,
                        r1,
                        ordering,
                        outcome,
                        dist_random,
                        const_probs,
                        wmax,
                        c_id[d],
                        c_ps[d],
                        c_prob[d],
                        c_kind[d],
                        tmp_id,
                        tmp_ps,
                        tmp_prob,
                        key,
                        perm,
                    )
                else:
                    # children are computed one at a time when searched (no sort needed)
                    f_pre[d] = False
                    n = level_arity[lv]
                    ck = LEAF if lv + 1 == levels else level_kind[lv + 1]
                    for j in range(n):
                        c_kind[d, j] = ck
                    if kind == CHANCE:
                        for j in range(n):
                            c_prob[d, j] = const_probs[j]
            else:
                x0 = f_idx[d]
                n = a_nchild[x0]
                first = a_first[x0]
                for j in range(n):
                    c_idx[d, j] = first + j
                    c_prob[d, j] = a_prob[first + j]
                    c_kind[d, j] = a_kind[first + j]
            f_n[d] = n
            if kind == CHANCE:
                if algo == EXHAUSTIVE:
                    f_x[d] = 0.0
                    f_i[d] = 0
                    f_pc[d] = EXP_STEP
                    continue
                for j in range(n):
                    lo[d, j] = L
                    hi[d, j] = U
                    st_has[d, j] = False
                if algo == PROBING and k > 0:
                    nt = 0
                    for j in range(n):
                        if c_kind[d, j] == MAX or c_kind[d, j] == MIN:
                            targets[d, nt] = j
                            nt += 1
                    f_nt[d] = nt
                    if nt > 0 and f_alpha[d] < U and f_beta[d] > L:
                        s_lo = 0.0
                        s_hi = 0.0
                        for j in range(n):
                            s_lo += c_prob[d, j] * L
                            s_hi += c_prob[d, j] * U
                        f_slo[d] = s_lo
                        f_shi[d] = s_hi
                        f_t[d] = 0
                        f_r[d] = 0
                        f_prog[d] = False
                        f_pc[d] = SEQ_STEP if sequential else CYC_STEP
                        continue
                f_pc[d] = SEARCH_INIT
                continue
            # decision node: its alpha-beta state
            mode = f_mode[d]
            if mode == NORMAL or not st_has[d - 1, f_owner[d]]:
                f_best[d] = -inf if kind == MAX else inf
                f_bm[d] = -1
                f_next[d] = 0
            else:
                o = f_owner[d]
                f_best[d] = st_best[d - 1, o]
                f_bm[d] = st_bm[d - 1, o]
                f_next[d] = st_next[d - 1, o]
            if mode == PROBE:
                f_stop[d] = f_stop[d] if f_stop[d] < n else n
            else:
                f_stop[d] = n
            f_pc[d] = DEC_LOOP
            continue

        # ------------------------------------------------------------ decision nodes
        if pc == DEC_AFTER:
            v = ret
            if d == 0 and algo == EXHAUSTIVE:
                root_vals[f_m[d]] = v
            margin = root_margin if d == 0 else 0.0  # see AlphaBeta._root
            if kind == MAX:
                if v > f_best[d] + margin:
                    f_best[d] = v
                    f_bm[d] = f_m[d]
            else:
                if v < f_best[d] - margin:
                    f_best[d] = v
                    f_bm[d] = f_m[d]
            f_pc[d] = DEC_LOOP
            pc = DEC_LOOP
        if pc == DEC_LOOP:
            best = f_best[d]
            if f_next[d] < f_stop[d]:
                if algo != EXHAUSTIVE and (
                    (kind == MAX and best >= f_beta[d]) or (kind == MIN and best <= f_alpha[d])
                ):
                    stats[S_DCUT] += 1
                else:
                    m = f_next[d]
                    f_next[d] = m + 1
                    f_m[d] = m
                    e = d + 1
                    if algo == EXHAUSTIVE:
                        f_alpha[e] = -inf
                        f_beta[e] = inf
                    elif kind == MAX:
                        f_alpha[e] = f_alpha[d] if f_alpha[d] > best else best
                        f_beta[e] = f_beta[d]
                    else:
                        f_alpha[e] = f_alpha[d]
                        f_beta[e] = f_beta[d] if f_beta[d] < best else best
                    f_kind[e] = c_kind[d, m]
                    f_idx[e] = c_idx[d, m]
                    if lazy and not f_pre[d]:
                        g = f_n[d] - 1 - m if ordering == ORD_REVERSED and kind != CHANCE else m
                        f_id[e], f_ps[e] = lazy_child(f_id[d], f_ps[d], g, tseed, incremental, r1)
                    else:
                        f_id[e] = c_id[d, m]
                        f_ps[e] = c_ps[d, m]
                    f_level[e] = f_level[d] + 1
                    f_mode[e] = NORMAL
                    f_inprobe[e] = f_inprobe[d]
                    f_pc[e] = ENTER
                    f_pc[d] = DEC_AFTER
                    sp = e
                    continue
            # finished (all moves up to stop, or a cut-off)
            if f_mode[d] != NORMAL:
                o = f_owner[d]
                st_has[d - 1, o] = True
                st_best[d - 1, o] = f_best[d]
                st_bm[d - 1, o] = f_bm[d]
                st_next[d - 1, o] = f_next[d]
                st_n[d - 1, o] = f_n[d]
            if d == 0:
                root_bm = f_bm[d]
            ret = f_best[d]
            sp -= 1
            continue

        # ------------------------------------------------------------ chance nodes
        n = f_n[d]
        if pc == EXP_AFTER:
            f_x[d] += c_prob[d, f_i[d]] * ret
            f_i[d] += 1
            pc = EXP_STEP
        if pc == EXP_STEP:
            i = f_i[d]
            if i >= n:
                ret = f_x[d]
                sp -= 1
                continue
            e = d + 1
            f_alpha[e] = -inf
            f_beta[e] = inf
            f_kind[e] = c_kind[d, i]
            f_idx[e] = c_idx[d, i]
            if lazy and not f_pre[d]:
                f_id[e], f_ps[e] = lazy_child(f_id[d], f_ps[d], i, tseed, incremental, r1)
            else:
                f_id[e] = c_id[d, i]
                f_ps[e] = c_ps[d, i]
            f_level[e] = f_level[d] + 1
            f_mode[e] = NORMAL
            f_inprobe[e] = f_inprobe[d]
            f_pc[e] = ENTER
            f_pc[d] = EXP_AFTER
            sp = e
            continue

        if pc == CYC_AFTER or pc == SEQ_AFTER:  # noqa: SIM109 - numba
            i = targets[d, f_t[d] - 1]
            p = c_prob[d, i]
            b = st_best[d, i]
            if c_kind[d, i] == MAX:
                if b > lo[d, i]:
                    f_slo[d] += p * (b - lo[d, i])
                    lo[d, i] = b
            else:
                if b < hi[d, i]:
                    f_shi[d] += p * (b - hi[d, i])
                    hi[d, i] = b
            cut = False
            if f_slo[d] >= f_beta[d]:
                ret = f_slo[d]
                cut = True
            elif f_shi[d] <= f_alpha[d]:
                ret = f_shi[d]
                cut = True
            if cut:
                stats[S_PCUT] += 1
                stats[S_CCUT] += 1
                sp -= 1
                continue
            pc = CYC_STEP if pc == CYC_AFTER else SEQ_STEP
        if pc == CYC_STEP or pc == SEQ_STEP:  # noqa: SIM109 - numba
            nt = f_nt[d]
            chosen = -1
            stop = 0
            while True:
                if f_t[d] >= nt:
                    if pc == SEQ_STEP or not f_prog[d]:
                        break
                    f_r[d] += 1
                    if f_r[d] >= k:
                        break
                    f_t[d] = 0
                    f_prog[d] = False
                    continue
                i = targets[d, f_t[d]]
                f_t[d] += 1
                if pc == SEQ_STEP:
                    chosen = i
                    stop = k
                    break
                if st_has[d, i]:
                    if st_next[d, i] >= st_n[d, i]:
                        continue
                    if c_kind[d, i] == MAX and not lo[d, i] < U:
                        continue
                    if c_kind[d, i] == MIN and not hi[d, i] > L:
                        continue
                f_prog[d] = True
                chosen = i
                stop = (st_next[d, i] if st_has[d, i] else 0) + 1
                break
            if chosen < 0:
                f_pc[d] = SEARCH_INIT
                pc = SEARCH_INIT
            else:
                i = chosen
                p = c_prob[d, i]
                e = d + 1
                if c_kind[d, i] == MAX:
                    bi = (f_beta[d] - (f_slo[d] - p * lo[d, i])) / p
                    f_alpha[e] = L
                    f_beta[e] = bi if bi < U else U
                    if not f_beta[e] > L:  # closed by float rounding (see star2)
                        f_beta[e] = U
                else:
                    ai = (f_alpha[d] - (f_shi[d] - p * hi[d, i])) / p
                    f_alpha[e] = ai if ai > L else L
                    f_beta[e] = U
                    if not f_alpha[e] < U:  # closed by float rounding (see star2)
                        f_alpha[e] = L
                f_kind[e] = c_kind[d, i]
                f_idx[e] = c_idx[d, i]
                if lazy and not f_pre[d]:
                    f_id[e], f_ps[e] = lazy_child(f_id[d], f_ps[d], i, tseed, incremental, r1)
                else:
                    f_id[e] = c_id[d, i]
                    f_ps[e] = c_ps[d, i]
                f_level[e] = f_level[d] + 1
                f_mode[e] = PROBE
                f_owner[e] = i
                f_stop[e] = stop
                f_inprobe[e] = True
                f_pc[e] = ENTER
                f_pc[d] = CYC_AFTER if pc == CYC_STEP else SEQ_AFTER
                sp = e
                continue

        if pc == SEARCH_INIT:
            tlo = 0.0
            thi = 0.0
            for j in range(n):
                tlo += c_prob[d, j] * lo[d, j]
                thi += c_prob[d, j] * hi[d, j]
            if thi <= f_alpha[d]:
                stats[S_CCUT] += 1
                ret = thi
                sp -= 1
                continue
            if tlo >= f_beta[d]:
                stats[S_CCUT] += 1
                ret = tlo
                sp -= 1
                continue
            f_tlo[d] = tlo
            f_thi[d] = thi
            f_x[d] = 0.0
            f_i[d] = 0
            pc = SEARCH_STEP
        if pc == SEARCH_AFTER:
            v = ret
            i = f_i[d]
            p = c_prob[d, i]
            if v <= f_ai[d]:
                if i < n - 1:
                    stats[S_CCUT] += 1
                ret = f_x[d] + p * v + f_thi[d]
                sp -= 1
                continue
            if v >= f_bi[d]:
                if i < n - 1:
                    stats[S_CCUT] += 1
                ret = f_x[d] + p * v + f_tlo[d]
                sp -= 1
                continue
            f_x[d] += p * v
            f_i[d] = i + 1
            pc = SEARCH_STEP
        if pc == SEARCH_STEP:
            i = f_i[d]
            if i >= n:
                ret = f_x[d]
                sp -= 1
                continue
            p = c_prob[d, i]
            f_tlo[d] -= p * lo[d, i]
            f_thi[d] -= p * hi[d, i]
            ai = (f_alpha[d] - f_x[d] - f_thi[d]) / p
            bi = (f_beta[d] - f_x[d] - f_tlo[d]) / p
            f_ai[d] = ai
            f_bi[d] = bi
            e = d + 1
            aa = ai if ai > L else L
            bb = bi if bi < U else U
            if not aa < bb:  # closed by float rounding: search exactly (see star1)
                aa = L
                bb = U
            f_alpha[e] = aa
            f_beta[e] = bb
            f_kind[e] = c_kind[d, i]
            f_idx[e] = c_idx[d, i]
            if lazy and not f_pre[d]:
                f_id[e], f_ps[e] = lazy_child(f_id[d], f_ps[d], i, tseed, incremental, r1)
            else:
                f_id[e] = c_id[d, i]
                f_ps[e] = c_ps[d, i]
            f_level[e] = f_level[d] + 1
            f_inprobe[e] = f_inprobe[d]
            f_mode[e] = NORMAL
            if st_has[d, i]:
                stats[S_RESUMED] += 1
                if not research:
                    f_mode[e] = RESUME
                    f_owner[e] = i
            f_pc[e] = ENTER
            f_pc[d] = SEARCH_AFTER
            sp = e
            continue
    return OK, ret, root_bm, -1
