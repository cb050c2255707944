"""The compiled search kernel: every kernel algorithm of the registry as named steps of one numba
function (``AlgorithmInfo.kernel``: exhaustive, windowed, probing).

The kernel runs the same procedures as the readable modules in ``starbench.search`` (which stay
the reference), in float64, with an explicit stack instead of recursion (numba segfaults when it
loads cached, mutually recursive jitted functions).  Every arithmetic expression is written in the
reference's order, so values, best moves and every statistics counter agree exactly with the
Python engine (tests compare them on thousands of trees).

Read it beside the reference: ``search_kernel`` defines its steps as inner functions, which
numba inlines (one function after compilation), each named after its counterpart:

=====================  ===================================================================
kernel                 reference (``starbench.search``)
=====================  ===================================================================
``count``              ``base.Search._enter`` (count a node; the node budget)
``lazy_leaf_value``    ``base.Search._leaf``
``request``,           ``base.Search._child``: every step asks for a child with ``request``;
``push_child``         ``push_child``, called from one place, enters it
``leaf``               ``base.Search._child`` of a leaf: counted and evaluated in place (by
                       ``push_child``, and by ``run_moves`` for a lazy node's leaves in turn)
``expand``             the tree's ``children`` / ``probabilities``
``enter``              ``_search``'s dispatch on the node's kind
``start_moves``        ``alphabeta.AlphaBeta._state`` (or a probed successor's saved state)
``run_moves``          ``alphabeta.AlphaBeta._run_moves`` (MAX and MIN nodes)
``expectimax``         ``expectimax.Expectimax._search`` at a chance node
``start_chance``       ``star2.Star2._chance`` (``star1.Star1._chance`` when k = 0)
``probe_phase``        ``star2.Star2._probe_phase`` with ``_probe_order``, ``_probe``, ``_decided``
``search_phase``       ``star1.Star1._search_phase`` with ``star2.Star2._outcome``
``tt_probe``,          ``base.Search._tt_answer``'s lookup, ``transposition``'s ``probe``,
``tt_move``,           ``move`` and ``store`` (with ``base.Search._store``); the lookup and
``tt_store``           the answer are in ``push_child``, the store where a frame finishes
``by_hint``            ``base.DecisionState.move`` (the table's best move searched first)
``exhaustive_game``    ``expectimax.Expectimax`` over a game's model without a table: the
                       steps above (``expand_game``, ``expand``'s game part, ``count``,
                       ``game_leaf``, ``expectimax``'s sum, ``run_moves``' exhaustive best)
                       in one loop, no step requests
=====================  ===================================================================

The state machine.  The stack holds a frame per node of the current path (arrays ``f_*``
indexed by depth) and its children (arrays ``c_*``, ``lo``/``hi``, ``st_*``: row = depth,
column = child).  A frame's program counter ``f_pc`` names the step that continues it: ``ENTER``
(just pushed), ``DEC_LOOP``/``DEC_AFTER`` (``run_moves``, before the next move / after a move
returned), ``EXP_STEP``/``EXP_AFTER`` (``expectimax``), ``CYC_*``/``SEQ_*`` (``probe_phase``,
cyclic or sequential), ``SEARCH_INIT``/``SEARCH_STEP``/``SEARCH_AFTER`` (``search_phase``).  Each
step returns ``(status, top, value)``: ``PUSH`` to search a child (its ``request`` is written in
the next frame and the main loop hands it to ``push_child``), or ``OK`` with the new top of the
stack (one higher with the frame's value when it is done), or ``BUDGET``/``BAD_EVAL``.  A leaf
child is never pushed: ``push_child`` counts and evaluates it in place and its parent's step
continues with its value.

Two things keep the steps cheap.  The arrays they use are borrowed views (``borrow``): numba
would otherwise update an array's reference count (two atomic operations) each time an inlined
step touches it, a fifth of Star2's time when measured.  And the generator's ``% r1`` and
``% weight_max`` are computed by multiplication (``hashing.fastmod``), not a 64-bit division.

Trees come in two forms: *lazy* generated trees (children computed from the hash at each entry,
orderings that need no full pass) and *array* trees (explicit trees, or generated trees
materialised with ``materialize`` when an ordering or bound needs exact values), children of node
``x`` being ``first[x] .. first[x] + nchild[x] - 1`` in searched order.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

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
    PUSH,
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
    S_PROBES,
    S_RESUMED,
    S_TTC,
    S_TTH,
    S_TTP,
    SEARCH_AFTER,
    SEARCH_INIT,
    SEARCH_STEP,
    SEQ_AFTER,
    SEQ_STEP,
)
from starbench.compiled.contract import (
    call_apply,
    call_heuristic,
    call_key,
    call_move,
    call_n_moves,
    call_n_outcomes,
    call_outcome,
    call_player,
    call_probability,
    call_returns,
)
from starbench.compiled.hashing import child, divisor, increment, leaf_value, weight

#: OpenSpiel's player ids at a chance node and a terminal (``games.models``: a model's
#: ``player``).
G_CHANCE, G_TERMINAL = -1, -4

#: The rows of ``Out.by_level`` (the counters per level, column = level; ``search/stats.py``):
#: inner nodes entered (the engine adds the leaves to make the nodes), leaves, cut-offs, probes.
LV_INNER, LV_LEAVES, LV_CUTS, LV_PROBES = 0, 1, 2, 3

# lazy orderings
ORD_GENERATED, ORD_REVERSED, ORD_STATIC = 0, 1, 2
ORD_STATIC_INTERIOR, ORD_STATIC_MIDDLE = 6, 7  # (the codes 3-5 need exact values: arrays)
OUT_GENERATED, OUT_PROBABLE = 0, 1

#: The frame's rows, one per field of a search frame (one frame per depth): ``frame_int[FI_KIND]``
#: is every depth's node kind, and so on (the fields are described where the frame is made in
#: ``search_kernel``).  The float rows carry the reference modules' names: Star1's tails
#: ``tail_lo``/``tail_hi`` and thresholds ``alpha_i``/``beta_i`` (``search/star1.py``), the probe
#: phase's sums ``sum_lo``/``sum_hi`` (``search/star2.py``).
FI_KIND = 0
FI_IDX = 1
FI_PS = 2
FI_LEVEL = 3
FI_PC = 4
FI_MODE = 5
FI_OWNER = 6
FI_STOP = 7
FI_INPROBE = 8
FI_N = 9
FI_BM = 10
FI_NEXT = 11
FI_M = 12
FI_I = 13
FI_R = 14
FI_T = 15
FI_PROG = 16
FI_NT = 17
FI_PRE = 18
FI_HINT = 19
FI_TT = 20
FI_CK = 21
FI_SUMMED = 22
FRAME_INT_ROWS = 23
FU_ID = 0
FU_KEY = 1
FRAME_UINT_ROWS = 2
FF_ALPHA = 0
FF_BETA = 1
FF_BEST = 2
FF_X = 3
FF_TAIL_LO = 4
FF_TAIL_HI = 5
FF_SUM_LO = 6
FF_SUM_HI = 7
FF_ALPHA_I = 8
FF_BETA_I = 9
FRAME_FLOAT_ROWS = 10


@intrinsic
def borrow(typingctx, array):
    """The same array with no reference count (a null meminfo, as numba gives a view of foreign
    memory): numba then updates no count when a step uses it, where an owned array costs two
    atomic operations per use in a step (measured: a fifth of Star2's time).  The caller keeps
    the owner alive for as long as the view is used."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(src, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


@njit(cache=True)
def keep(*owners):
    """A use of ``owners`` that numba cannot drop: they live (and their borrowed views stay
    valid) until this call."""
    return len(owners)


@njit(cache=True)
def static_level(ordering, level, levels):
    """``models.static_at`` for the interior static orderings (codes 6 and 7): are the moves of
    a decision node at ``level`` sorted by path sum?"""
    if level + 1 >= levels:
        return False
    return ordering == ORD_STATIC_INTERIOR or (ordering == ORD_STATIC_MIDDLE and level > 0)


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
    version,
    tseed,
    incremental,
    r1d,
    ordering,
    outcome,
    dist_random,
    const_probs,
    wd,
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
    """Children of a lazy generated node, in searched order, into the out_* rows; returns n.
    ``version``: the generator version (``trees.generators``); ``r1d``, ``wd``: ``divisor`` of
    the value range (resolution + 1) and of the largest weight."""
    n = level_arity[level]
    kind = level_kind[level]
    ckind = LEAF if level + 1 == levels else level_kind[level + 1]
    for j in range(n):
        cid = child(version, nid, np.uint64(j))
        tmp_id[j] = cid
        if incremental:
            tmp_ps[j] = ps + np.int64(increment(version, tseed, cid, r1d))
        else:
            tmp_ps[j] = 0
        perm[j] = j
    if kind == CHANCE:
        if dist_random:
            total = 0
            for j in range(n):
                w = weight(version, tseed, tmp_id[j], wd)
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
        elif ordering == ORD_STATIC or static_level(ordering, level, levels):
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
def lazy_child(nid, ps, g, version, tseed, incremental, r1d):
    """(id, path sum) of child ``g`` (generated index) of a lazy node."""
    cid = child(version, nid, np.uint64(g))
    if incremental:
        return cid, ps + np.int64(increment(version, tseed, cid, r1d))
    return cid, np.int64(0)


@njit(inline="always")
def count(stats, lv_inner, lv_leaves, per_level, lv, kind, inprobe, budget):
    """Count a node entered at level ``lv`` (``Search._enter``; with ``per_level``, an inner
    node in ``lv_inner`` or a leaf in ``lv_leaves``: the engine adds them into the nodes per
    level); True when that exceeds the node budget."""
    stats[S_NODES] += 1
    if kind == LEAF:
        stats[S_LEAVES] += 1
    elif kind == MAX:
        stats[S_MAX] += 1
    elif kind == MIN:
        stats[S_MIN] += 1
    else:
        stats[S_CHANCE] += 1
    if per_level:
        if kind == LEAF:
            lv_leaves[lv] += 1
        else:
            lv_inner[lv] += 1
    if inprobe:
        stats[S_PNODES] += 1
        if kind == LEAF:
            stats[S_PLEAVES] += 1
    return budget >= 0 and stats[S_NODES] > budget


@njit(inline="always")
def lazy_leaf_value(incremental, version, tseed, r1d, nid, ps):
    """The value of a generated leaf (``Search._leaf``): its path sum, or its hashed value (a
    tree in arrays holds its leaves' values)."""
    if incremental:
        return float(ps)
    return float(np.int64(leaf_value(version, tseed, nid, r1d)))


@njit(cache=True)
def tt_move(t_key, t_depth, t_move, key):
    """``TranspositionTable.move``: the best move stored for ``key`` at any depth, or -1."""
    s = key & np.uint64(len(t_key) - 1)
    if t_depth[s] >= 0 and t_key[s] == key:
        return t_move[s]
    return -1


@njit(cache=True)
def tt_probe(t_key, t_depth, stats, key, depth, deeper):
    """``TranspositionTable.probe`` counted (``Search._tt_answer``'s lookup): the slot of the
    entry of ``key`` at ``depth`` (``deeper``: or deeper, ``tt_depth=deeper``), or -1."""
    stats[S_TTP] += 1
    s = key & np.uint64(len(t_key) - 1)
    if (t_depth[s] == depth or (deeper and t_depth[s] > depth)) and t_key[s] == key:
        stats[S_TTH] += 1
        return np.int64(s)
    return np.int64(-1)


@njit(cache=True)
def tt_store(t_key, t_depth, t_lo, t_hi, t_move, key, depth, alpha, beta, v, move, L, U):
    """``Search._store`` and ``TranspositionTable.store``: v searched with (alpha, beta) as an
    upper bound, a lower bound or the exact value (nothing when alpha >= beta), a bound kept
    inside [L, U]; merge or depth-preferred replace."""
    low = v <= alpha
    high = v >= beta
    if low and high:
        return
    if v < L:
        v = L
    elif v > U:
        v = U
    lower = v
    upper = v
    if low:
        lower = L
    elif high:
        upper = U
    s = key & np.uint64(len(t_key) - 1)
    if t_depth[s] >= 0:
        if t_key[s] == key and t_depth[s] == depth:
            lo2 = lower if lower > t_lo[s] else t_lo[s]
            hi2 = upper if upper < t_hi[s] else t_hi[s]
            if lo2 <= hi2:
                lower = lo2
                upper = hi2
            if move < 0:
                move = t_move[s]
        elif t_depth[s] > depth:
            return
    t_key[s] = key
    t_depth[s] = depth
    t_lo[s] = lower
    t_hi[s] = upper
    t_move[s] = move


@njit(cache=True)
def by_hint(h, m):
    """The child searched at position ``m`` when move ``h`` goes first (``DecisionState``'s
    order: h, then the others in their order)."""
    if h <= 0:
        return m
    if m == 0:
        return h
    if m <= h:
        return m - 1
    return m


#: The kernel's arguments, a few named bundles (numba types each as a tuple of its fields): what
#: the search is (``Options``: ``lazy`` says which tree bundle is the tree), the tree
#: (``LazyTree``, a generated tree searched lazily, and ``ArrayTree``, a tree in arrays: the one
#: not searched is a one-element placeholder), how it probes (``Probe``; k = 0: no probe phase),
#: the transposition table (``Table``, or None) and the outputs (``Out``).  A table given as None
#: is a specialization of its own: numba prunes every step that needs it, so a tree's search
#: without a table compiles no table code.  A game model's kernel always gets a table
#: (``Options.tabled`` False: a one-slot placeholder the search never reads), so one
#: specialization per family serves searches with and without one: a game's kernel compiles in
#: about twice a tree's time, and the run-time test costs nothing measurable next to a game's
#: own steps.  The tree and the probe are run-time values, not specializations: pruning them too
#: saved about a tenth of a compile each while multiplying the kernels to compile by four
#: (measured: 8 specializations took 104 s CPU in all).
Options = namedtuple(
    "Options",
    "algo L U budget lazy levels max_arity max_depth tt_chance probe_by_table decision_only "
    "tt_deeper per_level keep_table tabled",
)
LazyTree = namedtuple(
    "LazyTree",
    "levels level_kind level_arity tseed rid incremental r1 ordering outcome dist_random "
    "const_probs wmax version",
)
ArrayTree = namedtuple("ArrayTree", "kind first nchild prob value key")
Probe = namedtuple("Probe", "k sequential research skip_full")
Table = namedtuple("Table", "key depth lo hi move")
#: A game searched over its model (``games.models``; None for a random or explicit tree): its
#: parameters, the root player, the heuristic's code, the decision plies searched, the states
#: (row = depth, column = child: frame d's state is ``states[d, f_idx[d]]``, the root
#: ``states[0, 0]``) and ``flat`` (the first leaf value, and 1 while every leaf equals it, 2 once
#: one differs: ``GameTree.flat_value``).
Game = namedtuple("Game", "params player code depth states flat")
Out = namedtuple("Out", "stats root_vals by_level")


#: An ``ArrayTree`` for a lazy tree and a ``LazyTree`` for an array tree: the kernel takes both
#: bundles and reads the one its ``Options.lazy`` names.
NO_ARRAYS = ArrayTree(
    np.zeros(1, np.int64),
    np.zeros(1, np.int64),
    np.zeros(1, np.int64),
    np.zeros(1),
    np.zeros(1),
    np.zeros(1, np.uint64),
)
NO_LAZY = LazyTree(
    0,
    np.zeros(1, np.int64),
    np.zeros(1, np.int64),
    np.uint64(0),
    np.uint64(0),
    False,
    np.uint64(1),
    0,
    0,
    False,
    np.zeros(1),
    np.uint64(1),
    1,
)


@njit(cache=True)
def search_kernel(opts, tree, arrays, probe, table, out, game, model):
    """Search the tree from its root with window (-inf, +inf).

    ``opts`` an ``Options``; ``tree`` a ``LazyTree``, ``arrays`` an ``ArrayTree`` (``opts.lazy``
    says which one is searched); ``probe`` a ``Probe``; ``table`` a ``Table`` or None; ``out``
    an ``Out``; ``game`` a ``Game`` (a game's model is the tree: the other two bundles are
    placeholders) or None, and ``model`` its family's value (``contract.family_value``, typed
    by the family, whose calls reach the family's functions) or None.  Returns (status,
    value, best move or -1, bad node); fills ``out.stats`` (STAT_FIELDS order) and, for the
    exhaustive algorithm at a decision root, ``out.root_vals`` with every root child's value.
    """
    # the bundles, unpacked once
    algo, L, U, budget = opts.algo, opts.L, opts.U, opts.budget
    # the levels of a generated tree (lazy or in arrays: the table's depths), 0 for a tree file
    levels, max_arity, max_depth = opts.levels, opts.max_arity, opts.max_depth
    tt_chance, probe_by_table = opts.tt_chance, opts.probe_by_table
    tt_decision_only = opts.decision_only
    tt_deeper = opts.tt_deeper  # an entry searched deeper answers too (tt_depth=deeper)
    per_level = opts.per_level  # count per level (``out.by_level``)
    # search with ``table`` (a game's kernel always gets one, a one-slot placeholder when the
    # request has none, so that one specialization per family serves both: ``Options``)
    tabled = opts.tabled
    # Every array the steps use is a *borrowed* view (``borrow``): numba updates no reference
    # count when a step uses it.  The arguments are owned by the caller; the stack's arrays are
    # rows of a few owner arrays (one per element type and shape), kept alive to the end (``keep``).
    lazy = opts.lazy  # a lazy generated tree (``tree``), else a tree in arrays (``arrays``)
    tseed, rid, incremental, r1 = tree.tseed, tree.rid, tree.incremental, tree.r1
    version = tree.version  # the generator version (``trees.generators``)
    ordering, outcome = tree.ordering, tree.outcome
    dist_random, wmax = tree.dist_random, tree.wmax
    level_kind = borrow(tree.level_kind)
    level_arity = borrow(tree.level_arity)
    const_probs = borrow(tree.const_probs)
    a_kind = borrow(arrays.kind)
    a_first = borrow(arrays.first)
    a_nchild = borrow(arrays.nchild)
    a_prob = borrow(arrays.prob)
    a_value = borrow(arrays.value)
    a_key = borrow(arrays.key)
    k, sequential, research, skip_full = probe.k, probe.sequential, probe.research, probe.skip_full
    stats = borrow(out.stats)
    root_vals = borrow(out.root_vals)
    # the counters per level (a frame's depth is its node's level: the root is frame 0)
    lv_inner = borrow(out.by_level[LV_INNER])
    lv_leaves = borrow(out.by_level[LV_LEAVES])
    lv_cuts = borrow(out.by_level[LV_CUTS])
    lv_probes = borrow(out.by_level[LV_PROBES])
    if table is not None:
        t_key = borrow(table.key)
        t_depth = borrow(table.depth)
        t_lo = borrow(table.lo)
        t_hi = borrow(table.hi)
        t_move = borrow(table.move)
    if game is not None:  # a game's model: its functions, and frame d's state g_states[d, idx]
        g_model = model  # typed by its family: the calls below are the family's own
        g_p = borrow(game.params)
        g_states = borrow(game.states)
        g_flat = borrow(game.flat)
        g_root, g_code = game.player, game.code
    D = max_depth + 1
    A = max_arity if max_arity > 0 else 1
    r1d, wd = divisor(r1), divisor(wmax)  # the value range and the weights: % as multiplication
    # frames (one per depth): the node (kind, array index, lazy id, path sum, level), its window,
    # where it resumes (pc), how it was entered (mode NORMAL/PROBE/RESUME, owner: its index among
    # the parent's children, stop: probe moves up to), inprobe (under a probe), n (children), pre
    # (children precomputed); decision nodes: best, bm (best move), next, m (move searched);
    # chance nodes: x (running sum), i (outcome searched), tail_lo/tail_hi (Star1's tails),
    # alpha_i/beta_i (the outcome's thresholds), sum_lo/sum_hi (probe sums), t/r/prog/nt (the
    # probe order's cursor, round, progress in the round, number of probe targets); the
    # transposition table
    # (``search/transposition.py``): key (the node's), hint (the table's best move searched
    # first, -1: none) and tt (stores its result when done)
    frame_int = np.zeros((FRAME_INT_ROWS, D), np.int64)
    f_kind = borrow(frame_int[FI_KIND])
    f_idx = borrow(frame_int[FI_IDX])
    f_ps = borrow(frame_int[FI_PS])
    f_level = borrow(frame_int[FI_LEVEL])
    f_pc = borrow(frame_int[FI_PC])
    f_mode = borrow(frame_int[FI_MODE])
    f_owner = borrow(frame_int[FI_OWNER])
    f_stop = borrow(frame_int[FI_STOP])
    f_inprobe = borrow(frame_int[FI_INPROBE])
    f_n = borrow(frame_int[FI_N])
    f_bm = borrow(frame_int[FI_BM])
    f_next = borrow(frame_int[FI_NEXT])
    f_m = borrow(frame_int[FI_M])
    f_i = borrow(frame_int[FI_I])
    f_r = borrow(frame_int[FI_R])
    f_t = borrow(frame_int[FI_T])
    f_prog = borrow(frame_int[FI_PROG])
    f_nt = borrow(frame_int[FI_NT])
    f_pre = borrow(frame_int[FI_PRE])
    f_hint = borrow(frame_int[FI_HINT])
    f_tt = borrow(frame_int[FI_TT])
    f_ck = borrow(frame_int[FI_CK])  # the kind of every child (a lazy decision node), or -1
    f_summed = borrow(
        frame_int[FI_SUMMED]
    )  # f_tail_lo, f_tail_hi hold the bounds' sums (start_chance)
    frame_uint = np.zeros((FRAME_UINT_ROWS, D), np.uint64)
    f_id = borrow(frame_uint[FU_ID])
    f_key = borrow(frame_uint[FU_KEY])
    frame_float = np.zeros((FRAME_FLOAT_ROWS, D), np.float64)
    f_alpha = borrow(frame_float[FF_ALPHA])
    f_beta = borrow(frame_float[FF_BETA])
    f_best = borrow(frame_float[FF_BEST])
    f_x = borrow(frame_float[FF_X])
    f_tail_lo = borrow(frame_float[FF_TAIL_LO])
    f_tail_hi = borrow(frame_float[FF_TAIL_HI])
    f_sum_lo = borrow(frame_float[FF_SUM_LO])
    f_sum_hi = borrow(frame_float[FF_SUM_HI])
    f_alpha_i = borrow(frame_float[FF_ALPHA_I])
    f_beta_i = borrow(frame_float[FF_BETA_I])
    for j in range(D):
        f_hint[j] = -1  # no order hint
    # the children of each frame's node (row = depth, column = child), the chance-node bounds
    # lo/hi, the probed successors' decision states st_* and the probe targets
    child_int = np.zeros((9, D, A), np.int64)
    c_idx = borrow(child_int[0])
    c_ps = borrow(child_int[1])
    c_kind = borrow(child_int[2])
    st_has = borrow(child_int[3])
    st_bm = borrow(child_int[4])
    st_next = borrow(child_int[5])
    st_n = borrow(child_int[6])
    st_hint = borrow(child_int[7])
    targets = borrow(child_int[8])
    child_uint = np.zeros((1, D, A), np.uint64)
    c_id = borrow(child_uint[0])
    child_float = np.zeros((4, D, A), np.float64)
    c_prob = borrow(child_float[0])
    lo = borrow(child_float[1])
    hi = borrow(child_float[2])
    st_best = borrow(child_float[3])
    # scratch for lazy children
    scratch_uint = np.zeros((1, A), np.uint64)
    tmp_id = borrow(scratch_uint[0])
    scratch_int = np.zeros((2, A), np.int64)
    tmp_ps = borrow(scratch_int[0])
    perm = borrow(scratch_int[1])
    scratch_float = np.zeros((2, A), np.float64)
    tmp_prob = borrow(scratch_float[0])
    key = borrow(scratch_float[1])

    # the float tolerance 1e-9 * max(1, |L|, |U|), as starbench.search.arith.tolerance
    root_margin = 0.0 if algo == EXHAUSTIVE else 1e-9 * max(1.0, abs(L), abs(U))

    def tt_depth(level, left):
        """The depth of a node's table entries: the levels below it (0 in a tree file, whose
        nodes are all distinct), or in a game the decision plies ``left`` below it
        (``GameTree.transposition``)."""
        if game is not None:
            return left
        return levels - level if levels > 0 else 0

    def game_kind(s, left):
        """A game state's kind with ``left`` decision plies left (``GameTree.kind``): a leaf at
        the horizon or the game's end, else by the player to move."""
        pl = call_player(g_model, g_p, s)
        if left <= 0 or pl == G_TERMINAL:
            return LEAF
        if pl == G_CHANCE:
            return CHANCE
        return MAX if pl == g_root else MIN

    def game_leaf(s):
        """A game leaf's value (``GameTree.evaluate``): the root player's return where the game
        is over, else the heuristic; ``g_flat`` follows whether every leaf is equal."""
        if call_player(g_model, g_p, s) == G_TERMINAL:
            v = call_returns(g_model, g_p, s, g_root)
        else:
            v = call_heuristic(g_model, g_p, s, g_code, g_root)
        if g_flat[1] == 0:
            g_flat[0] = v
            g_flat[1] = 1
        elif g_flat[1] == 1 and v != g_flat[0]:
            g_flat[1] = 2
        return v

    def game_key(d, j):
        """The table key of child ``j`` of frame ``d`` (the model's key of its state)."""
        return np.uint64(call_key(g_model, g_p, g_states[d + 1, j]))

    def request(d, m, alpha, beta, mode, stop):
        """Ask the main loop to search child ``m`` of frame ``d`` with window (alpha, beta), in
        ``mode`` NORMAL, PROBE (its moves up to ``stop``) or RESUME (its saved state); the
        request is written into frame d + 1."""
        e = d + 1
        f_owner[e] = m
        f_alpha[e] = alpha
        f_beta[e] = beta
        f_mode[e] = mode
        f_stop[e] = stop
        return PUSH, d, 0.0

    def leaf(d, cid, cps, cidx, inprobe):
        """A leaf child of frame ``d`` (``Search._child`` of a leaf): counted and evaluated in
        place, returns (OK, d, its value), or BUDGET, or BAD_EVAL (the leaf's index in frame
        d + 1)."""
        if count(stats, lv_inner, lv_leaves, per_level, d + 1, LEAF, inprobe == 1, budget):
            return BUDGET, d, np.nan
        if game is not None:
            v = game_leaf(g_states[d + 1, cidx])
        elif lazy:
            v = lazy_leaf_value(incremental, version, tseed, r1d, cid, cps)
        else:
            v = a_value[cidx]
        if not (L <= v <= U):
            f_idx[d + 1] = cidx
            return BAD_EVAL, d + 1, v
        return OK, d, v

    def push_child(d):
        """Search the child requested by frame ``d`` (``Search._child``).

        A leaf is counted and evaluated here: returns (status, d, its value) and frame ``d``
        continues with it.  Any other child becomes frame d + 1, to be entered: returns
        (OK, d + 1, 0)."""
        e = d + 1
        m = f_owner[e]
        if f_hint[d] > 0 and f_kind[d] != CHANCE:
            m = by_hint(f_hint[d], m)  # the table's best move first
        ckind = f_ck[d] if f_ck[d] >= 0 else c_kind[d, m]
        if lazy and f_pre[d] == 0:
            g = m
            if ordering == ORD_REVERSED and f_kind[d] != CHANCE:
                g = f_n[d] - 1 - m
            cid, cps = lazy_child(f_id[d], f_ps[d], g, version, tseed, incremental, r1d)
        else:
            cid = c_id[d, m]
            cps = c_ps[d, m]
        cidx = c_idx[d, m]
        inprobe = 1 if (f_inprobe[d] == 1 or f_mode[e] == PROBE) else 0
        if ckind == LEAF:
            return leaf(d, cid, cps, cidx, inprobe)
        f_tt[e] = 0
        if table is not None and tabled and not (tt_decision_only and ckind == CHANCE):
            # ``Search._tt_search`` (NORMAL) and ``Star2._outcome`` (RESUME)
            if game is not None:
                ckey = game_key(d, cidx)
            elif lazy:
                ckey = cid
            else:
                ckey = a_key[cidx]
            f_key[e] = ckey
            mode = f_mode[e]
            if mode != PROBE:
                s = tt_probe(t_key, t_depth, stats, ckey, tt_depth(f_level[d] + 1, cps), tt_deeper)
                if s >= 0:
                    lower = t_lo[s]
                    upper = t_hi[s]
                    answer = np.nan
                    if lower == upper or lower >= f_beta[e]:
                        answer = lower
                    elif upper <= f_alpha[e]:
                        answer = upper
                    if answer == answer:  # the table answers: entered, counted, not searched
                        stats[S_TTC] += 1
                        if count(
                            stats,
                            lv_inner,
                            lv_leaves,
                            per_level,
                            d + 1,
                            ckind,
                            inprobe == 1,
                            budget,
                        ):
                            return BUDGET, d, np.nan
                        return OK, d, answer
                f_tt[e] = 1
            if mode == NORMAL or st_has[d, m] == 0:
                f_hint[e] = -1
                if algo != EXHAUSTIVE and ckind != CHANCE:
                    f_hint[e] = tt_move(t_key, t_depth, t_move, ckey)
            else:
                f_hint[e] = st_hint[d, m]
        else:
            f_hint[e] = -1
        f_kind[e] = ckind
        f_idx[e] = cidx
        f_id[e] = cid
        f_ps[e] = cps
        f_level[e] = f_level[d] + 1
        f_inprobe[e] = inprobe
        f_pc[e] = ENTER
        return OK, e, 0.0

    def expand_game(d):
        """``expand`` of a game's node: every child's state made (``g_states`` row d + 1)."""
        s = g_states[d, f_idx[d]]
        chance = f_kind[d] == CHANCE
        n = call_n_outcomes(g_model, g_p, s) if chance else call_n_moves(g_model, g_p, s)
        left = f_ps[d] if chance else f_ps[d] - 1  # chance nodes are free
        for j in range(n):
            out = g_states[d + 1, j]
            if chance:
                call_apply(g_model, g_p, s, call_outcome(g_model, g_p, s, j), out)
                c_prob[d, j] = call_probability(g_model, g_p, s, j)
            else:
                call_apply(g_model, g_p, s, call_move(g_model, g_p, s, j), out)
            c_idx[d, j] = j
            c_ps[d, j] = left
            c_kind[d, j] = game_kind(out, left)
        return n

    def expand(d):
        """The children of frame ``d``'s node into row ``d`` (kinds, probabilities, and what names
        them: array indices, or lazy ids when the order needs them all first); returns n."""
        kind = f_kind[d]
        f_ck[d] = -1  # the children's kinds are in row d of c_kind
        if game is not None:
            return expand_game(d)
        if lazy:
            lv = f_level[d]
            if (kind == CHANCE and (dist_random or outcome != OUT_GENERATED)) or (
                kind != CHANCE and (ordering == ORD_STATIC or static_level(ordering, lv, levels))
            ):
                f_pre[d] = 1
                return lazy_children(
                    lv,
                    f_id[d],
                    f_ps[d],
                    levels,
                    level_kind,
                    level_arity,
                    version,
                    tseed,
                    incremental,
                    r1d,
                    ordering,
                    outcome,
                    dist_random,
                    const_probs,
                    wd,
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
            # children computed one at a time by push_child (no sort needed)
            f_pre[d] = 0
            n = level_arity[lv]
            ck = LEAF if lv + 1 == levels else level_kind[lv + 1]
            if kind != CHANCE:  # one kind for all: not written per child (a cut-off may
                f_ck[d] = ck  # leave most of them unvisited)
                return n
            for j in range(n):
                c_kind[d, j] = ck
                c_prob[d, j] = const_probs[j]
            return n
        x0 = f_idx[d]
        n = a_nchild[x0]
        first = a_first[x0]
        for j in range(n):
            c_idx[d, j] = first + j
            c_prob[d, j] = a_prob[first + j]
            c_kind[d, j] = a_kind[first + j]
        return n

    def start_moves(d, kind, n):
        """A decision node's state (``AlphaBeta._state``), or a probed successor's saved state when
        it is probed again or resumed (star2's ``states[i]``)."""
        mode = f_mode[d]
        if mode == NORMAL or st_has[d - 1, f_owner[d]] == 0:
            f_best[d] = -np.inf if kind == MAX else np.inf
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
        if f_hint[d] >= n:  # ``Search._take_hint``: only a move of this node
            f_hint[d] = -1
        f_pc[d] = DEC_LOOP

    def run_moves(d, ret):
        """``AlphaBeta._run_moves``: after move ``m`` returned, keep it if better; then the next
        move up to ``stop`` with alpha-beta (fail-soft), or done (a cut-off, or no moves left).
        The exhaustive algorithms search every move with an infinite window.  The moves of a
        lazy node whose children are all leaves are evaluated here, one after the other
        (``leaf``, as ``push_child`` would, with no step of the main loop between them)."""
        kind = f_kind[d]
        exhaustive = algo == EXHAUSTIVE
        returned = f_pc[d] == DEC_AFTER
        v = ret
        while True:
            if returned:
                m = f_m[d]
                margin = 0.0
                if d == 0:
                    if exhaustive:
                        root_vals[m] = v
                    margin = root_margin  # see AlphaBeta._root
                if kind == MAX:
                    if v > f_best[d] + margin:
                        f_best[d] = v
                        f_bm[d] = m
                else:
                    if v < f_best[d] - margin:
                        f_best[d] = v
                        f_bm[d] = m
            best = f_best[d]
            m = f_next[d]
            if m >= f_stop[d]:
                break
            if not exhaustive and (
                (kind == MAX and best >= f_beta[d]) or (kind == MIN and best <= f_alpha[d])
            ):
                stats[S_DCUT] += 1
                if per_level:
                    lv_cuts[d] += 1
                break
            f_next[d] = m + 1
            f_m[d] = m
            f_pc[d] = DEC_AFTER
            if f_ck[d] == LEAF:  # a lazy leaf, searched in place (its window is not used)
                mm = by_hint(f_hint[d], m) if f_hint[d] > 0 else m
                g = f_n[d] - 1 - mm if ordering == ORD_REVERSED else mm
                cid, cps = lazy_child(f_id[d], f_ps[d], g, version, tseed, incremental, r1d)
                status, top, v = leaf(d, cid, cps, c_idx[d, mm], f_inprobe[d])
                if status != OK:
                    return status, top, v
                returned = True
                continue
            if exhaustive:
                return request(d, m, -np.inf, np.inf, NORMAL, 0)
            if kind == MAX:
                return request(
                    d, m, f_alpha[d] if f_alpha[d] > best else best, f_beta[d], NORMAL, 0
                )
            return request(d, m, f_alpha[d], f_beta[d] if f_beta[d] < best else best, NORMAL, 0)
        # done: every move up to stop, or a cut-off
        if f_mode[d] != NORMAL:  # a probed successor keeps its state (star2's states[i])
            o = f_owner[d]
            st_has[d - 1, o] = 1
            st_best[d - 1, o] = f_best[d]
            st_bm[d - 1, o] = f_bm[d]
            st_next[d - 1, o] = f_next[d]
            st_n[d - 1, o] = f_n[d]
            st_hint[d - 1, o] = f_hint[d]
        return OK, d - 1, f_best[d]

    def expectimax(d, ret):
        """``Expectimax._search`` at a chance node: the probability-weighted sum of the outcomes."""
        if f_pc[d] == EXP_AFTER:
            f_x[d] += c_prob[d, f_i[d]] * ret
            f_i[d] += 1
        i = f_i[d]
        if i >= f_n[d]:
            return OK, d - 1, f_x[d]
        f_pc[d] = EXP_AFTER
        return request(d, i, -np.inf, np.inf, NORMAL, 0)

    def start_chance(d, n):
        """``Star2._chance`` (``Star1._chance`` when k = 0): bounds L, U for every outcome, then the
        probe phase when a successor can be probed and the window is open (and, with
        ``skip_full``, not the full [L, U]), else the search phase."""
        if algo == EXHAUSTIVE:
            f_x[d] = 0.0
            f_i[d] = 0
            f_pc[d] = EXP_STEP
            return
        nt = 0  # the probe targets (Star2), and the sums of the outcomes' bounds (both)
        sum_lo = 0.0  # Star2._initial_sums (and with probe_by_table Star2._bounds_decide), in
        sum_hi = 0.0  # the order Star1._search_phase sums them too: it starts from these
        for j in range(n):
            lo[d, j] = L
            hi[d, j] = U
            st_has[d, j] = 0
        if table is not None and tabled and tt_chance:  # ``Star1._initial_bounds``: per outcome
            cdepth = tt_depth(f_level[d] + 1, f_ps[d])
            for j in range(n):
                if c_kind[d, j] == LEAF:
                    continue
                if game is not None:
                    ckey = game_key(d, j)
                elif not lazy:
                    ckey = a_key[c_idx[d, j]]
                elif f_pre[d] == 1:
                    ckey = c_id[d, j]
                else:
                    ckey = lazy_child(f_id[d], f_ps[d], j, version, tseed, incremental, r1d)[0]
                s = tt_probe(t_key, t_depth, stats, ckey, cdepth, tt_deeper)
                if s >= 0:
                    if t_lo[s] > L:
                        lo[d, j] = t_lo[s]
                    if t_hi[s] < U:
                        hi[d, j] = t_hi[s]
        for j in range(n):
            sum_lo += c_prob[d, j] * lo[d, j]
            sum_hi += c_prob[d, j] * hi[d, j]
            if k > 0:
                if probe_by_table and lo[d, j] == hi[d, j]:
                    st_has[d, j] = 2  # stored exactly (Star2's Stored): not probed, not searched
                elif c_kind[d, j] == MAX or c_kind[d, j] == MIN:
                    targets[d, nt] = j
                    nt += 1
        f_summed[d] = 0
        if k > 0:  # Star2 and Star2.5 (k = 0 is Star1: no probe phase)
            f_nt[d] = nt
            if probe_by_table and (sum_hi <= f_alpha[d] or sum_lo >= f_beta[d]):
                nt = 0  # decided by the stored bounds: the search phase's first test returns
            full = f_alpha[d] <= L and f_beta[d] >= U  # no cut-off possible but the value
            if nt > 0 and f_alpha[d] < U and f_beta[d] > L and not (skip_full and full):
                stats[S_PROBES] += 1
                if per_level:
                    lv_probes[d] += 1
                f_sum_lo[d] = sum_lo
                f_sum_hi[d] = sum_hi
                f_t[d] = 0
                f_r[d] = 0
                f_prog[d] = 0
                f_pc[d] = SEQ_STEP if sequential else CYC_STEP
                return
        f_summed[d] = 1  # the search phase starts from these sums (no probe changed a bound)
        f_tail_lo[d] = sum_lo
        f_tail_hi[d] = sum_hi
        f_pc[d] = SEARCH_INIT

    def probe_phase(d, ret):
        """``Star2._probe_phase``: after a probe returned, update that successor's bound and test
        the cut-off (``_probe``, ``_decided``); then choose the next probe (``_probe_order``) and
        push it with its window, or go to the search phase."""
        pc = f_pc[d]
        if pc == CYC_AFTER or pc == SEQ_AFTER:  # noqa: SIM109 - numba
            i = targets[d, f_t[d] - 1]
            p = c_prob[d, i]
            b = st_best[d, i]
            if c_kind[d, i] == MAX:
                if b > lo[d, i]:
                    f_sum_lo[d] += p * (b - lo[d, i])
                    lo[d, i] = b
            else:
                if b < hi[d, i]:
                    f_sum_hi[d] += p * (b - hi[d, i])
                    hi[d, i] = b
            if f_sum_lo[d] >= f_beta[d]:
                stats[S_PCUT] += 1
                stats[S_CCUT] += 1
                if per_level:
                    lv_cuts[d] += 1
                return OK, d - 1, f_sum_lo[d]
            if f_sum_hi[d] <= f_alpha[d]:
                stats[S_PCUT] += 1
                stats[S_CCUT] += 1
                if per_level:
                    lv_cuts[d] += 1
                return OK, d - 1, f_sum_hi[d]
            pc = CYC_STEP if pc == CYC_AFTER else SEQ_STEP
        # _probe_order: sequential takes each target once, up to k moves; cyclic makes rounds of one
        # more move per target still open (moves left, window not empty), k rounds at most
        nt = f_nt[d]
        chosen = -1
        stop = 0
        while True:
            if f_t[d] >= nt:
                if pc == SEQ_STEP or f_prog[d] == 0:
                    break
                f_r[d] += 1
                if f_r[d] >= k:
                    break
                f_t[d] = 0
                f_prog[d] = 0
                continue
            i = targets[d, f_t[d]]
            f_t[d] += 1
            if pc == SEQ_STEP:
                chosen = i
                stop = k
                break
            if st_has[d, i] == 1:  # Star2._open
                if st_next[d, i] >= st_n[d, i]:
                    continue
                if c_kind[d, i] == MAX and not lo[d, i] < U:
                    continue
                if c_kind[d, i] == MIN and not hi[d, i] > L:
                    continue
            f_prog[d] = 1
            chosen = i
            stop = (st_next[d, i] if st_has[d, i] == 1 else 0) + 1
            break
        if chosen < 0:
            f_pc[d] = SEARCH_INIT
            return OK, d, 0.0
        # _probe: the successor's window from the chance-level threshold
        i = chosen
        p = c_prob[d, i]
        if c_kind[d, i] == MAX:
            beta_i = (f_beta[d] - (f_sum_lo[d] - p * lo[d, i])) / p
            a = lo[d, i] if probe_by_table else L  # from the stored bound (tt_probe)
            b = beta_i if beta_i < U else U
            if not b > a:  # closed by float rounding (see star2)
                b = U
        else:
            alpha_i = (f_alpha[d] - (f_sum_hi[d] - p * hi[d, i])) / p
            a = alpha_i if alpha_i > L else L
            b = hi[d, i] if probe_by_table else U  # from the stored bound (tt_probe)
            if not a < b:  # closed by float rounding (see star2)
                a = L
        f_pc[d] = CYC_AFTER if pc == CYC_STEP else SEQ_AFTER
        return request(d, i, a, b, PROBE, stop)

    def search_phase(d, ret):
        """``Star1._search_phase`` with the outcomes' bounds lo/hi (L/U unless probed): each outcome
        searched with the window its thresholds allow; a probed successor is resumed from its saved
        state, or searched again with ``after_probe=research`` (``Star2._outcome``)."""
        n = f_n[d]
        pc = f_pc[d]
        if pc == SEARCH_INIT:
            if f_summed[d] == 1:  # summed by start_chance, in this order
                tail_lo = f_tail_lo[d]
                tail_hi = f_tail_hi[d]
            else:  # after probes: the bounds they changed, summed again
                tail_lo = 0.0
                tail_hi = 0.0
                for j in range(n):
                    tail_lo += c_prob[d, j] * lo[d, j]
                    tail_hi += c_prob[d, j] * hi[d, j]
            # the bounds alone may decide (no outcome searched)
            if tail_hi <= f_alpha[d]:
                stats[S_CCUT] += 1
                if per_level:
                    lv_cuts[d] += 1
                return OK, d - 1, tail_hi
            if tail_lo >= f_beta[d]:
                stats[S_CCUT] += 1
                if per_level:
                    lv_cuts[d] += 1
                return OK, d - 1, tail_lo
            f_tail_lo[d] = tail_lo
            f_tail_hi[d] = tail_hi
            f_x[d] = 0.0
            f_i[d] = 0
            pc = SEARCH_STEP
        while True:
            if pc == SEARCH_AFTER:
                v = ret
                i = f_i[d]
                p = c_prob[d, i]
                if v <= f_alpha_i[d]:  # fail low: proven upper bound
                    if i < n - 1:
                        stats[S_CCUT] += 1
                        if per_level:
                            lv_cuts[d] += 1
                    r = f_x[d] + p * v + f_tail_hi[d]
                    return OK, d - 1, r if r <= f_alpha[d] else f_alpha[d]  # never past alpha
                if v >= f_beta_i[d]:  # fail high: proven lower bound
                    if i < n - 1:
                        stats[S_CCUT] += 1
                        if per_level:
                            lv_cuts[d] += 1
                    r = f_x[d] + p * v + f_tail_lo[d]
                    return OK, d - 1, r if r >= f_beta[d] else f_beta[d]  # never below beta
                f_x[d] += p * v
                f_i[d] = i + 1
            i = f_i[d]
            if i >= n:
                return OK, d - 1, f_x[d]
            p = c_prob[d, i]
            f_tail_lo[d] -= p * lo[d, i]
            f_tail_hi[d] -= p * hi[d, i]
            alpha_i = (f_alpha[d] - f_x[d] - f_tail_hi[d]) / p
            beta_i = (f_beta[d] - f_x[d] - f_tail_lo[d]) / p
            f_alpha_i[d] = alpha_i
            f_beta_i[d] = beta_i
            if st_has[d, i] != 2:
                break
            # stored exactly (tt_probe, Star2._outcome): entered, counted, answered
            if count(
                stats,
                lv_inner,
                lv_leaves,
                per_level,
                d + 1,
                c_kind[d, i],
                f_inprobe[d] == 1,
                budget,
            ):
                return BUDGET, d, np.nan
            stats[S_TTC] += 1
            ret = lo[d, i]
            pc = SEARCH_AFTER
        a = alpha_i if alpha_i > L else L
        b = beta_i if beta_i < U else U
        if not a < b:  # closed by float rounding: search exactly (see star1)
            a = L
            b = U
        f_pc[d] = SEARCH_AFTER
        if st_has[d, i] == 1:
            stats[S_RESUMED] += 1
            if not research:
                return request(d, i, a, b, RESUME, 0)
        return request(d, i, a, b, NORMAL, 0)

    def enter(d):
        """Enter frame ``d``'s node: count it, evaluate it (a leaf: only the root gets here) or
        expand it and set up the decision or chance procedure."""
        kind = f_kind[d]
        if count(stats, lv_inner, lv_leaves, per_level, d, kind, f_inprobe[d] == 1, budget):
            return BUDGET, d, np.nan
        if kind == LEAF:
            if game is not None:
                v = game_leaf(g_states[d, f_idx[d]])
            elif lazy:
                v = lazy_leaf_value(incremental, version, tseed, r1d, f_id[d], f_ps[d])
            else:
                v = a_value[f_idx[d]]
            if not (L <= v <= U):
                return BAD_EVAL, d, v
            return OK, d - 1, v
        n = expand(d)
        f_n[d] = n
        if kind == CHANCE:
            start_chance(d, n)
        else:
            start_moves(d, kind, n)
        return OK, d, 0.0

    def open_frame(d):
        """``exhaustive_game``'s frame ``d``, entered: its children made, none searched, its
        value the chance sum's 0 or the worst for its player, no best move yet."""
        f_n[d] = expand_game(d)
        f_i[d] = 0
        f_bm[d] = -1
        f_x[d] = 0.0 if f_kind[d] == CHANCE else (-np.inf if f_kind[d] == MAX else np.inf)

    def exhaustive_game():
        """Expectimax (and minimax) over a game's model without a table, as the main loop's
        steps run it (``expand_game``, ``count``, ``game_leaf``; ``expectimax`` at a chance node,
        ``run_moves`` with the exhaustive window at a decision node), in one loop with no step
        requests between a node and its children: the same nodes in the same order, the same
        counters and the same sums (a game search spends most of its time in its frames' steps,
        and this is the one algorithm whose steps never wait on a window).  The root is frame
        0; returns (status, value), the root's best move in ``f_bm[0]`` as the main loop leaves
        it."""
        d = 0
        if count(stats, lv_inner, lv_leaves, per_level, 0, f_kind[0], False, budget):
            return BUDGET, np.nan
        if f_kind[0] == LEAF:
            v = game_leaf(g_states[0, 0])
            if not (L <= v <= U):
                return BAD_EVAL, v
            return OK, v
        open_frame(0)
        while True:
            i = f_i[d]
            if i < f_n[d]:
                ck = c_kind[d, i]
                e = d + 1
                if count(stats, lv_inner, lv_leaves, per_level, e, ck, False, budget):
                    return BUDGET, np.nan
                if ck != LEAF:  # its frame: entered, expanded, then its children first
                    f_kind[e] = ck
                    f_idx[e] = c_idx[d, i]
                    f_ps[e] = c_ps[d, i]
                    open_frame(e)
                    d = e
                    continue
                v = game_leaf(g_states[e, c_idx[d, i]])
                if not (L <= v <= U):
                    return BAD_EVAL, v
            else:  # frame d done: its value goes to its parent
                v = f_x[d]
                if d == 0:
                    return OK, v
                d -= 1
                i = f_i[d]
            kind = f_kind[d]
            if kind == CHANCE:
                f_x[d] += c_prob[d, i] * v
            else:
                if d == 0:
                    root_vals[i] = v
                if (kind == MAX and v > f_x[d]) or (kind == MIN and v < f_x[d]):
                    f_x[d] = v
                    f_bm[d] = i
            f_i[d] = i + 1

    # ------------------------------------------------------------------ the main loop
    for j in range(N_STATS):
        stats[j] = 0
    for j in range(len(lv_inner)):
        lv_inner[j] = 0
        lv_leaves[j] = 0
        lv_cuts[j] = 0
        lv_probes[j] = 0
    if game is not None:  # the root's state is g_states[0, 0]
        f_ps[0] = game.depth
        f_idx[0] = 0
        f_kind[0] = game_kind(g_states[0, 0], game.depth)
    elif lazy:
        f_kind[0] = level_kind[0] if levels > 0 else LEAF
        f_id[0] = rid
    else:
        f_kind[0] = a_kind[0]
    f_alpha[0] = -np.inf
    f_beta[0] = np.inf
    f_pc[0] = ENTER
    f_mode[0] = NORMAL
    if table is not None and tabled:
        if not opts.keep_table:  # kept: iterative deepening's next iteration (search/deepening)
            for s in range(len(t_depth)):
                t_depth[s] = -1  # an empty table
        # ``Search.run``: a decision root takes the table's best move first and stores its
        # value when done; a chance root is searched through the table (a probe, always a
        # miss: the earlier entries of iterative deepening are shallower) and stored too
        decision_root = f_kind[0] == MAX or f_kind[0] == MIN
        if decision_root or (f_kind[0] == CHANCE and not tt_decision_only):
            if game is not None:
                f_key[0] = np.uint64(call_key(g_model, g_p, g_states[0, 0]))
            elif lazy:
                f_key[0] = rid
            else:
                f_key[0] = a_key[0]
            f_tt[0] = 1
            if decision_root:
                if algo != EXHAUSTIVE:
                    f_hint[0] = tt_move(t_key, t_depth, t_move, f_key[0])
            else:
                stats[S_TTP] += 1
    sp = 0
    ret = 0.0
    # the whole search in one loop, the main loop then having nothing to run; ``game is not
    # None`` tested alone, so that numba drops the branch from a tree's kernel when it compiles
    if game is not None:  # noqa: SIM102 - numba prunes only a lone test of an argument
        if algo == EXHAUSTIVE and not (table is not None and tabled):
            status, ret = exhaustive_game()
            if status != OK:
                return status, ret, -1, -1
            sp = -1
    while sp >= 0:
        pc = f_pc[sp]
        if pc == ENTER:
            status, top, ret = enter(sp)
        elif pc <= DEC_AFTER:
            status, top, ret = run_moves(sp, ret)
        elif pc <= EXP_AFTER:
            status, top, ret = expectimax(sp, ret)
        elif pc <= SEQ_AFTER:
            status, top, ret = probe_phase(sp, ret)
        else:
            status, top, ret = search_phase(sp, ret)
        if status == PUSH:
            status, top, ret = push_child(sp)
        if status == BUDGET:
            return BUDGET, np.nan, -1, -1
        if status == BAD_EVAL:
            return BAD_EVAL, ret, -1, f_idx[top]
        if table is not None and top < sp and f_tt[sp] == 1:  # frame sp done: store its result
            move = -1
            if f_kind[sp] != CHANCE and f_bm[sp] >= 0:
                move = by_hint(f_hint[sp], f_bm[sp])
            tt_store(
                t_key,
                t_depth,
                t_lo,
                t_hi,
                t_move,
                f_key[sp],
                tt_depth(f_level[sp], f_ps[sp]),
                f_alpha[sp],
                f_beta[sp],
                ret,
                move,
                L,
                U,
            )
        sp = top
    root_bm = f_bm[0] if f_kind[0] == MAX or f_kind[0] == MIN else -1
    if root_bm >= 0 and f_hint[0] > 0:
        root_bm = by_hint(f_hint[0], root_bm)  # the searched position's move
    keep(
        frame_int,
        frame_uint,
        frame_float,
        child_int,
        child_uint,
        child_float,
        scratch_uint,
        scratch_int,
        scratch_float,
    )
    return OK, ret, root_bm, -1


@njit(cache=True)
def entry_tree(opts, tree, arrays, probe, out):
    """``search_kernel`` over a tree without a table, called with each bundle as a plain tuple
    of its fields, rebuilt here: numba's dispatcher types a plain tuple in C but a namedtuple in
    Python (measured here: a 3-node search took 8.9 us per call with namedtuples, 2.4 us with
    plain tuples), so the engine calls this (through ``enter``)."""
    o, t, a, p, u = Options(*opts), LazyTree(*tree), ArrayTree(*arrays), Probe(*probe), Out(*out)
    return search_kernel(o, t, a, p, None, u, None, None)


@njit(cache=True)
def entry_table(opts, tree, arrays, probe, table, out):
    """``entry_tree`` with a table."""
    o, t, a, p, u = Options(*opts), LazyTree(*tree), ArrayTree(*arrays), Probe(*probe), Out(*out)
    return search_kernel(o, t, a, p, Table(*table), u, None, None)


@njit(cache=True)
def entry_game(opts, probe, table, out, game, model):
    """``entry_tree`` over a game's model: with a table always (maybe a placeholder:
    ``Options``), the game's bundle, and the model apart from the game's tuple, whose arrays
    numba then types in C (a tuple holding the model was typed in Python: about 90 us a
    call).  The tree bundles are the placeholders, constants here (``NO_LAZY``,
    ``NO_ARRAYS``): not typed per call."""
    o, p, u = Options(*opts), Probe(*probe), Out(*out)
    return search_kernel(o, NO_LAZY, NO_ARRAYS, p, Table(*table), u, Game(*game), model)


#: The kernel's entries, by (with a table, over a game): one compiled function each, so that a
#: specialization compiles only its own ``search_kernel`` (one entry holding the three, its
#: branches on ``table is None`` and ``game is None`` were compiled whatever the argument types:
#: a game family's first compile built all three kernels, 55 s CPU in place of about 20).
ENTRIES = {(False, False): entry_tree, (True, False): entry_table, (True, True): entry_game}


def enter(opts, tree, arrays, probe, table, out, game, model):  # noqa: ANN001, ANN201
    """Search with the entry the arguments call for (``table``, ``game`` and ``model`` None
    where absent; a game comes with a table, and its ``tree`` and ``arrays`` are not passed on:
    ``entry_game`` holds the placeholders): (status, value, best move or -1, bad node)."""
    if game is not None:
        return entry_game(opts, probe, table, out, game, model)
    if table is not None:
        return entry_table(opts, tree, arrays, probe, table, out)
    return entry_tree(opts, tree, arrays, probe, out)
