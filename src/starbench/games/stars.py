"""Star1, Star2 and Star2.5 on game trees with the tree protocol fused in: the games' fast path.

``starbench.search.star1.Star1`` and ``starbench.search.star2.Star2`` (the references) ask the
tree for each node's kind, children, probabilities and leaf value through ``GameTree``'s methods,
make all of a node's children before searching the first, and enter every node through
``Search._enter`` and ``Search._leaf``: about eight Python calls per leaf.  ``GameStar1`` and
``GameStar2`` run the same procedures (the formulas are the references' docstrings) straight on
the game states' API, as ``starbench.games.expectimax`` does for expectimax:

* a node is classified as ``GameTree.kind`` does (the horizon first, then ``is_terminal``, then
  ``current_player``: on a pyspiel state ``-1`` is a chance node, as OpenSpiel defines
  ``IsChanceNode``) and counted as ``Search._enter`` counts it, every counter included
  (``probe_nodes`` and ``probe_leaves`` while a probing phase is under way; the node and time
  budgets checked at the same node);
* a leaf is evaluated where it is entered, as ``GameTree.evaluate`` and ``Search._leaf`` do
  (``returns()[root_player]`` at a terminal, else the heuristic; a value outside [L, U] or not a
  number raises the reference's error; the leaves' common value is followed on the tree);
* a decision node's child state is made when its move's turn comes (the reference makes them
  all first); a chance node's outcomes are all made first where the probing phase needs their
  kinds (Star2 and Star2.5), one at a time where it does not (Star1, ``k = 0``);
* windows, bounds and sums are computed by the references' expressions in their order, in
  floats, so every probe, cut-off and value is the same to the last bit.

So value, best move and every counter are the references' (``tests/test_games_stars.py``
compares them on pig, Einstein würfelt nicht and backgammon, for every variant and setting).
``GameTree.search_class`` picks these classes for Star1 and the Star2 family on a tree read in
floats, searched in floats without a transposition table or debug checks; everything else runs
the references.
"""

from __future__ import annotations

from typing import Any

from starbench.games.expectimax import CHANCE_PLAYER, _openspiel_state
from starbench.search.arith import tolerance
from starbench.search.star1 import ChanceNode, Star1
from starbench.search.star2 import Star2
from starbench.trees.protocol import Kind

# the kinds as plain ints (an int comparison is cheaper than an IntEnum's)
_MAX, _MIN, _CHANCE, _LEAF = int(Kind.MAX), int(Kind.MIN), int(Kind.CHANCE), int(Kind.LEAF)
NEG_INF, POS_INF = float("-inf"), float("inf")


class Moves:
    """A decision node part-way through its moves (``base.DecisionState`` over a game state):
    its legal actions, the plies left to its children, the running best and the next move."""

    __slots__ = ("state", "nxt", "is_max", "acts", "best", "best_move", "next")

    def __init__(self, state: Any, nxt: int | None, is_max: bool, acts: Any, best: float):
        self.state = state
        self.nxt = nxt
        self.is_max = is_max
        self.acts = acts
        self.best = best
        self.best_move: int | None = None
        self.next = 0


class GameChance(ChanceNode):
    """``ChanceNode`` of a game state: also the ``state``, its ``outcomes`` (OpenSpiel's
    ``(action, probability)`` pairs, in its order), the outcomes' ``kinds`` (``_MAX`` ...) and
    states (``kids``) once made (None until then: Star1 makes each when its turn comes), and
    the plies ``left`` (None: to the end).  Each outcome's bounds start at ``bounds`` (L, U)."""

    __slots__ = ("state", "outcomes", "kinds", "left")

    def __init__(
        self, state: Any, left: int | None, alpha: float, beta: float, bounds: tuple[float, float]
    ):
        outcomes = state.chance_outcomes()
        probs = [float(p) for _, p in outcomes]
        n = len(probs)
        super().__init__(None, probs, alpha, beta, [bounds[0]] * n, [bounds[1]] * n)
        self.state, self.outcomes, self.kinds, self.left = state, outcomes, None, left


class FusedStar:
    """The fused procedures, shared by ``GameStar1`` (``k = 0``) and ``GameStar2``."""

    # set by Star1 / Star2 and Search
    k: int
    tree: Any
    L: float
    U: float

    def _fused_setup(self) -> None:
        tree = self.tree
        self._codes = _openspiel_state(tree.root[0])
        self._root_player = tree.root_player
        self._heuristic = tree.heuristic
        self._research = getattr(self, "after_probe", "resume") == "research"
        self._sequential = getattr(self, "probing_mode", "cyclic") == "sequential"
        self._full = getattr(self, "probe_full_window", True)
        self._leaf_env = (tree.heuristic, tree.root_player, self.L, self.U, tree)

    # ------------------------------------------------------------------ nodes
    def _classify(self, state: Any, left: int | None) -> int:
        """``GameTree.kind`` as an int."""
        if left is not None and left <= 0:
            return _LEAF
        if state.is_terminal():
            return _LEAF
        if self._codes:  # a pyspiel state: one call tells chance and the player apart
            player = state.current_player()
            if player == CHANCE_PLAYER:
                return _CHANCE
        elif state.is_chance_node():
            return _CHANCE
        else:
            player = state.current_player()
        return _MAX if player == self._root_player else _MIN

    def _count(self, kind: int) -> None:
        """``Search._enter``'s counting, for a node of a known kind."""
        self.nodes += 1
        self.lv_nodes[self.level] += 1
        if kind == _LEAF:
            self.leaves += 1
            self.lv_leaves[self.level] += 1
        elif kind == _MAX:
            self.max_nodes += 1
        elif kind == _MIN:
            self.min_nodes += 1
        else:
            self.chance_nodes += 1
        if self.probing:
            self.probe_nodes += 1
            if kind == _LEAF:
                self.probe_leaves += 1
        if self.nodes > self._check_at:
            self._over_budget()

    def _evaluate(self, state: Any, left: int | None) -> float:
        """An entered leaf's value: ``GameTree.evaluate`` and ``Search._leaf`` in floats."""
        try:
            if state.is_terminal():
                raw = state.returns()[self._root_player]
            else:
                raw = self._heuristic(state)
            v = float(raw)
            ok = self.L <= v <= self.U
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:  # the reference's error (no heuristic, not a number, outside the bounds)
            self._leaf((state, left))
        tree = self.tree
        if not tree.leaves_differ:  # GameTree.evaluate's common value of the leaves (as given)
            if tree.leaf_value is None:
                tree.leaf_value = raw
            elif raw != tree.leaf_value:
                tree.leaves_differ = True
        return v

    def _moves(self, state: Any, left: int | None, kind: int) -> Moves:
        """``AlphaBeta._state`` over the state's legal actions (children made later)."""
        is_max = kind == _MAX
        return Moves(
            state,
            None if left is None else left - 1,
            is_max,
            state.legal_actions(),
            NEG_INF if is_max else POS_INF,
        )

    def _node(self, state: Any, left: int | None, kind: int, alpha: float, beta: float) -> float:
        """The value of an entered (counted) chance or decision node: ``AlphaBeta._search``
        after ``_enter``."""
        if kind == _CHANCE:
            return self._fused_chance(state, left, alpha, beta)
        st = self._moves(state, left, kind)
        self._run(st, alpha, beta, len(st.acts))
        return st.best

    def _enter_and_search(
        self, state: Any, left: int | None, kind: int, alpha: float, beta: float
    ) -> float:
        """``Search._child``: enter the node and search it."""
        self._count(kind)
        if kind == _LEAF:
            return self._evaluate(state, left)
        return self._node(state, left, kind, alpha, beta)

    def _run(self, st: Moves, alpha: float, beta: float, stop: int, margin: float = 0) -> None:
        """``AlphaBeta._run_moves``: moves ``st.next .. stop-1`` with alpha-beta (fail-soft)."""
        state, acts, nxt = st.state, st.acts, st.nxt
        if nxt is not None and nxt <= 0:  # every child is a leaf (the horizon)
            self._run_leaves(st, alpha, beta, stop, margin)
            return
        best = st.best
        lv = self._down()  # the moves' level (st's node is one level up)
        if st.is_max:
            while st.next < stop:
                if best >= beta:
                    self.decision_cutoffs += 1
                    self.lv_cuts[lv - 1] += 1
                    break
                m = st.next
                st.next = m + 1
                child = state.child(acts[m])
                v = self._enter_and_search(
                    child, nxt, self._classify(child, nxt), alpha if alpha > best else best, beta
                )
                if v > best + margin:
                    best = v
                    st.best_move = m
        else:
            while st.next < stop:
                if best <= alpha:
                    self.decision_cutoffs += 1
                    self.lv_cuts[lv - 1] += 1
                    break
                m = st.next
                st.next = m + 1
                child = state.child(acts[m])
                v = self._enter_and_search(
                    child, nxt, self._classify(child, nxt), alpha, beta if beta < best else best
                )
                if v < best - margin:
                    best = v
                    st.best_move = m
        self.level = lv - 1
        st.best = best

    def _add_leaves(self, c: int) -> None:
        """``Search._enter``'s counting of ``c`` leaves (children of the node at ``level``)."""
        self.nodes += c
        self.leaves += c
        self.lv_nodes[self.level + 1] += c
        self.lv_leaves[self.level + 1] += c
        if self.probing:
            self.probe_nodes += c
            self.probe_leaves += c

    def _run_leaves(
        self, st: Moves, alpha: float, beta: float, stop: int, margin: float = 0
    ) -> None:
        """``_run`` where every child is a leaf, with ``_count`` and ``_evaluate`` written in:
        the leaves are counted here and added to the counters when the loop ends, before a
        budget check (which sees the reference's count) or when an evaluation raises."""
        m = st.next
        if m >= stop:
            return
        if self.level + 1 >= self._room:
            self._grow(self.level + 1)
        lv_cuts = self.lv_cuts
        heuristic, root_player, L, U, tree = self._leaf_env
        state, acts = st.state, st.acts
        first, differ = tree.leaf_value, tree.leaves_differ
        best = st.best
        c = 0  # leaves entered and not yet added to the counters
        room = self._check_at - self.nodes
        child = None
        try:
            if st.is_max:
                while m < stop:
                    if best >= beta:
                        self.decision_cutoffs += 1
                        lv_cuts[self.level] += 1
                        break
                    child = state.child(acts[m])
                    m += 1
                    c += 1
                    if c > room:  # a budget check falls here: the reference's count first
                        self._add_leaves(c)
                        c = 0
                        self._over_budget()  # raises, or sets the next check
                        room = self._check_at - self.nodes
                    if child.is_terminal():
                        raw = child.returns()[root_player]
                    else:
                        raw = heuristic(child)
                    v = float(raw)
                    if not L <= v <= U:
                        raise ValueError(v)
                    if not differ:  # GameTree.evaluate's common value of the leaves (as given)
                        if first is None:
                            first = tree.leaf_value = raw
                        elif raw != first:
                            differ = tree.leaves_differ = True
                    if v > best + margin:
                        best = v
                        st.best_move = m - 1
            else:
                while m < stop:
                    if best <= alpha:
                        self.decision_cutoffs += 1
                        lv_cuts[self.level] += 1
                        break
                    child = state.child(acts[m])
                    m += 1
                    c += 1
                    if c > room:
                        self._add_leaves(c)
                        c = 0
                        self._over_budget()
                        room = self._check_at - self.nodes
                    if child.is_terminal():
                        raw = child.returns()[root_player]
                    else:
                        raw = heuristic(child)
                    v = float(raw)
                    if not L <= v <= U:
                        raise ValueError(v)
                    if not differ:
                        if first is None:
                            first = tree.leaf_value = raw
                        elif raw != first:
                            differ = tree.leaves_differ = True
                    if v < best - margin:
                        best = v
                        st.best_move = m - 1
        except (TypeError, ValueError, OverflowError):
            self._add_leaves(c)
            self._leaf((child, st.nxt))  # the reference's error (no heuristic, NaN, bounds)
            raise
        except BaseException:
            self._add_leaves(c)
            raise
        st.next = m
        st.best = best
        self.nodes += c  # _add_leaves, written in
        self.leaves += c
        self.lv_nodes[self.level + 1] += c
        self.lv_leaves[self.level + 1] += c
        if self.probing:
            self.probe_nodes += c
            self.probe_leaves += c

    # ------------------------------------------------------------------ chance nodes
    def _fused_chance(self, state: Any, left: int | None, alpha: float, beta: float) -> float:
        """``Star2._chance`` (``Star1._chance`` at k = 0)."""
        c = GameChance(state, left, alpha, beta, (self.L, self.U))
        if self.k == 0:
            return self._search_phase_fused(c)
        L, U = self.L, self.U
        n = len(c.probs)
        kids = c.kids = [state.child(a) for a, _ in c.outcomes]
        # GameTree.kind of each outcome (its plies are the chance node's: no horizon here)
        if self._codes:
            rp = self._root_player
            kinds = [
                _LEAF
                if s.is_terminal()
                else _CHANCE
                if (player := s.current_player()) == CHANCE_PLAYER
                else _MAX
                if player == rp
                else _MIN
                for s in kids
            ]
        else:
            kinds = [self._classify(k, left) for k in kids]
        c.kinds = kinds
        c.states = [None] * n
        targets = [i for i in range(n) if kinds[i] == _MAX or kinds[i] == _MIN]
        if targets and alpha < U and beta > L and (self._full or alpha > L or beta < U):
            self.probes += 1
            self.lv_probes[self.level] += 1
            self.probing += 1
            try:
                cut = self._probe_phase_fused(c, targets)
            finally:
                self.probing -= 1
            if cut is not None:
                self.probe_cutoffs += 1
                self.chance_cutoffs += 1
                self.lv_cuts[self.level] += 1
                return cut
        return self._search_phase_fused(c)

    def _probe_phase_fused(self, c: GameChance, targets: list[int]) -> float | None:
        """``Star2._probe_phase`` with ``_probe_order`` and ``_probe`` written out: the proven
        bound, or None.  Sequential: one round, each successor up to k moves; cyclic: k rounds
        of one more move of each successor still open (``Star2._open``), a round that probes
        none ending the phase."""
        L, U, k = self.L, self.U, self.k
        kids, kinds, left, probs = c.kids, c.kinds, c.left, c.probs
        alpha, beta, lo, hi, states = c.alpha, c.beta, c.lo, c.hi, c.states
        sum_lo = sum_hi = 0.0  # Star2._initial_sums
        for p, a, b in zip(probs, lo, hi):  # noqa: B905 - equal lengths
            sum_lo += p * a
            sum_hi += p * b
        nxt = None if left is None else left - 1
        leafy = nxt is not None and nxt <= 0
        run = self._run_leaves if leafy else self._run
        sequential = self._sequential
        here = self.level  # the chance node's; its successors are one level down
        below = self._down()
        if leafy and below + 1 >= self._room:
            self._grow(below + 1)
        self.level = here
        lv_nodes, lv_leaves = self.lv_nodes, self.lv_leaves
        for _ in range(1 if sequential else k):
            progressed = False
            for i in targets:
                st = states[i]
                if sequential:
                    stop = k
                elif st is None:
                    stop = 1
                elif st.next < len(st.acts) and (lo[i] < U if st.is_max else hi[i] > L):
                    stop = st.next + 1
                else:
                    continue
                progressed = True
                # Star2._probe: enter successor i (a MAX or MIN node, while probing)
                kind = kinds[i]
                self.nodes += 1  # Search._enter's counting (_count), written in: hot
                lv_nodes[below] += 1
                if kind == _MAX:
                    self.max_nodes += 1
                else:
                    self.min_nodes += 1
                self.probe_nodes += 1
                if self.nodes > self._check_at:
                    self._over_budget()
                if st is None:
                    state = kids[i]
                    is_max = kind == _MAX
                    acts = state.legal_actions()
                    st = states[i] = Moves(state, nxt, is_max, acts, NEG_INF if is_max else POS_INF)
                    if leafy and acts:
                        # its first move is a leaf, searched whatever the window (no cut-off
                        # before a first move): entered and evaluated here, as _run_leaves does
                        child = state.child(acts[0])
                        self.nodes += 1
                        self.leaves += 1
                        lv_nodes[below + 1] += 1
                        lv_leaves[below + 1] += 1
                        self.probe_nodes += 1
                        self.probe_leaves += 1
                        if self.nodes > self._check_at:
                            self._over_budget()
                        st.best = self._evaluate(child, nxt)
                        st.best_move = 0
                        st.next = 1
                p = probs[i]
                n = len(st.acts)
                if stop > n:
                    stop = n
                if st.next < stop:  # moves left to probe: they need the window
                    self.level = below  # the successor's moves are searched from its level
                    if st.is_max:
                        beta_i = (beta - (sum_lo - p * lo[i])) / p
                        b = beta_i if beta_i < U else U
                        run(st, L, b if b > L else U, stop)
                    else:
                        alpha_i = (alpha - (sum_hi - p * hi[i])) / p
                        a = alpha_i if alpha_i > L else L
                        run(st, a if a < U else L, U, stop)
                    self.level = here
                if st.is_max:
                    if st.best > lo[i]:
                        sum_lo += p * (st.best - lo[i])
                        lo[i] = st.best
                elif st.best < hi[i]:
                    sum_hi += p * (st.best - hi[i])
                    hi[i] = st.best
                if sum_lo >= beta:  # Star2._decided
                    return sum_lo
                if sum_hi <= alpha:
                    return sum_hi
            if not progressed:
                return None
        return None

    def _search_phase_fused(self, c: GameChance) -> float:
        """``Star1._search_phase`` with ``Star2._outcome``: the outcomes with their bounds."""
        state, outcomes, kids, kinds, left = c.state, c.outcomes, c.kids, c.kinds, c.left
        probs, alpha, beta, lo, hi, states = c.probs, c.alpha, c.beta, c.lo, c.hi, c.states
        L, U = self.L, self.U
        n = len(probs)
        tail_lo = 0.0
        tail_hi = 0.0
        for j in range(n):
            tail_lo += probs[j] * lo[j]
            tail_hi += probs[j] * hi[j]
        if tail_hi <= alpha:
            self.chance_cutoffs += 1
            self.lv_cuts[self.level] += 1
            return tail_hi
        if tail_lo >= beta:
            self.chance_cutoffs += 1
            self.lv_cuts[self.level] += 1
            return tail_lo
        x = 0.0
        here = self.level  # the chance node's; its outcomes are one level down
        below = self._down()
        self.level = here
        nxt = None if left is None else left - 1
        run = self._run_leaves if nxt is not None and nxt <= 0 else self._run
        for i in range(n):
            p = probs[i]
            tail_lo -= p * lo[i]
            tail_hi -= p * hi[i]
            alpha_i = (alpha - x - tail_hi) / p
            beta_i = (beta - x - tail_lo) / p
            a = alpha_i if alpha_i > L else L
            b = beta_i if beta_i < U else U
            if not a < b:
                a, b = L, U  # see Star1._search_phase
            st = None if states is None else states[i]
            if st is None:
                if kids is None:  # Star1: the outcome is made when its turn comes
                    child = state.child(outcomes[i][0])
                    kind = self._classify(child, left)
                else:
                    child, kind = kids[i], kinds[i]  # type: ignore[index]
                self.level = below
                v = self._enter_and_search(child, left, kind, a, b)
                self.level = here
            else:  # Star2._outcome: a probed successor
                self.resumed += 1
                self.level = below
                if self._research:
                    v = self._enter_and_search(kids[i], left, kinds[i], a, b)  # type: ignore[index]
                else:  # entered again (Search._enter), its moves resumed
                    self.nodes += 1  # _count, written in
                    self.lv_nodes[below] += 1
                    if st.is_max:
                        self.max_nodes += 1
                    else:
                        self.min_nodes += 1
                    if self.probing:
                        self.probe_nodes += 1
                    if self.nodes > self._check_at:
                        self._over_budget()
                    run(st, a, b, len(st.acts))
                    v = st.best
                self.level = here
            if v <= alpha_i:
                if i < n - 1:
                    self.chance_cutoffs += 1
                    self.lv_cuts[here] += 1
                r = x + p * v + tail_hi
                return r if r <= alpha else alpha  # never past alpha (star1.py)
            if v >= beta_i:
                if i < n - 1:
                    self.chance_cutoffs += 1
                    self.lv_cuts[here] += 1
                r = x + p * v + tail_lo
                return r if r >= beta else beta  # never below beta
            x += p * v
        return x

    # ------------------------------------------------------------------ the root
    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:
        """Enter ``node`` and search it (the root of a chance-rooted tree, ``run_window``)."""
        state, left = node
        kind = self._classify(state, left)
        return self._enter_and_search(state, left, kind, alpha, beta)

    def _root(self) -> tuple[Any, int | None, tuple[int, ...] | None]:
        """``AlphaBeta._root``."""
        state, left = self.tree.root
        kind = self._classify(state, left)
        if kind != _MAX and kind != _MIN:
            return self._search(self.tree.root, NEG_INF, POS_INF), None, None
        self._count(kind)
        st = self._moves(state, left, kind)
        self._run(st, NEG_INF, POS_INF, len(st.acts), tolerance(self.L, self.U))
        return st.best, st.best_move, None


class GameStar1(FusedStar, Star1):
    """``Star1`` over a ``GameTree`` (floats, no table, no debug checks)."""

    k = 0

    def __init__(self, tree: Any, **settings: Any):
        super().__init__(tree, **settings)
        self._fused_setup()


class GameStar2(FusedStar, Star2):
    """``Star2`` and Star2.5 over a ``GameTree`` (floats, no table, no debug checks)."""

    def __init__(self, tree: Any, **settings: Any):
        super().__init__(tree, **settings)
        self._fused_setup()


#: the reference class -> its fused class
FUSED_STARS: dict[type, type] = {Star1: GameStar1, Star2: GameStar2}
