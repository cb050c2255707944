"""What every search shares: node accounting, leaf evaluation, budgets and the debug checks.

A search object runs one search of one tree.  Algorithms subclass ``Search`` and implement
``_search(node, alpha, beta) -> value`` (and ``_root`` where the root needs more).  They enter
every node through ``_enter`` (so every algorithm counts nodes the same way, see
``starbench.search.stats``) and search children through ``_child`` (so debug mode can check the
bound semantics of every windowed result).
"""

from __future__ import annotations

import math
import time
from typing import Any

from starbench.errors import BudgetExceeded, EvaluationError, InputError, short
from starbench.search.arith import Arithmetic, agree, arithmetic, tolerance
from starbench.search.debug_value import full_value
from starbench.search.pystack import with_room
from starbench.search.stats import LevelCounts, SearchResult, SearchStats
from starbench.search.transposition import TranspositionTable
from starbench.trees.protocol import Kind, Tree, has_chance

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF
NEVER = 1 << 62  # a node count no search reaches
LEVEL_ROOM = 32  # the per-level lists' first length (grown as a search goes deeper)


class DecisionState:
    """A decision node part-way through its moves (alpha-beta state that probing can resume).

    ``order``: the moves' order when a transposition table's best move goes first (``children``
    are then in that order, and ``move(m)`` maps position m back to the child's index)."""

    __slots__ = ("node", "is_max", "children", "best", "best_move", "next", "order")

    def __init__(
        self, node: Any, is_max: bool, children: Any, best: Any, order: list[int] | None = None
    ):
        self.node = node
        self.is_max = is_max
        self.children = children if order is None else [children[j] for j in order]
        self.order = order
        self.best = best
        self.best_move: int | None = None
        self.next = 0

    def move(self, m: int | None) -> int | None:
        """The child index of the move searched at position ``m``."""
        return m if m is None or self.order is None else self.order[m]


class Search:
    """Base class of every algorithm (one instance = one search)."""

    name = "search"
    exhaustive = False  # returns exact values everywhere and the set of tied best moves

    def __init__(
        self,
        tree: Tree,
        *,
        exact: bool = False,
        debug: bool = False,
        node_budget: int | None = None,
        time_budget: float | None = None,
        tt: int = 0,
        tt_nodes: str = "all",
        tt_depth: str = "equal",
        table: TranspositionTable | None = None,
        **params: Any,
    ):
        if params:
            raise TypeError(f"{self.name} takes no parameter {', '.join(params)}")
        if exact and getattr(tree, "exact", True) is False:
            raise InputError(
                f"{getattr(tree, 'source', 'the tree')}: read with floats; an exact search needs "
                f"the tree read exactly (load_tree(..., exact=True), starbench solve --exact)"
            )
        self.tree = tree
        self.arith: Arithmetic = arithmetic(exact)
        self.num = self.arith.num
        L, U = tree.bounds
        try:
            finite = (
                L < U
                and not any(isinstance(b, float) and not math.isfinite(b) for b in (L, U))
                and (exact or all(abs(float(b)) < float("inf") for b in (L, U)))
            )
        except (TypeError, ValueError, OverflowError):
            finite = False
        if not finite:
            where = getattr(tree, "source", None)
            raise InputError(
                f"{where + ': ' if where else ''}the tree's bounds must be finite numbers with "
                f"L < U, got [{short(L)}, {short(U)}]"
                f"{'' if exact else ' (in floats |x| < 1.8e308; exact arithmetic takes more)'}"
            )
        self.L, self.U = self.num(L), self.num(U)
        self.debug = debug
        self.node_budget = node_budget
        self.time_budget = time_budget
        self._deadline = None
        # ``_enter`` calls ``_over_budget`` once the node count passes this (one comparison per
        # node for both budgets): the node budget, or the next time check (run() sets it)
        self._check_at = NEVER if node_budget is None else node_budget
        # counters (see starbench.search.stats)
        self.nodes = self.leaves = self.max_nodes = self.min_nodes = self.chance_nodes = 0
        self.probe_nodes = self.probe_leaves = 0
        self.chance_cutoffs = self.probe_cutoffs = self.decision_cutoffs = self.resumed = 0
        self.probes = 0
        self.probing = 0  # > 0 while a probing phase is under way above
        self.tt_probes = self.tt_hits = self.tt_cutoffs = 0
        self.shallow_nodes = 0
        # per level (see starbench.search.stats): ``level`` is the level of the node being
        # entered or searched; a child is searched one level down (``_child``, ``_down``)
        self.level = 0
        self._room = LEVEL_ROOM
        self.lv_nodes = [0] * LEVEL_ROOM
        self.lv_leaves = [0] * LEVEL_ROOM
        self.lv_cuts = [0] * LEVEL_ROOM
        self.lv_probes = [0] * LEVEL_ROOM
        self.tt = tt
        self.tt_nodes = tt_nodes
        self.tt_depth = tt_depth
        self.tt_deeper = tt_depth == "deeper"  # an entry searched deeper answers too
        self._tt_chance_nodes = tt_nodes == "all"  # chance nodes looked up and stored too
        self.table: TranspositionTable | None = None
        self._hint: int | None = None  # the table's best move for the node being entered
        self._last_move: int | None = None  # the best move of the decision node just searched
        if tt:
            if not callable(getattr(tree, "transposition", None)):
                raise InputError(
                    f"{self.name}: tt={tt}: {getattr(tree, 'source', 'this tree')} has no "
                    f"transposition keys (a tree needs a transposition(node) method)"
                )
            # ``table``: one kept from earlier searches of the same root (iterative deepening)
            self.table = table if table is not None else TranspositionTable(tt)
            self._search_plain = self._search
            self._search = self._tt_search  # type: ignore[method-assign]
        if debug:
            self._child = self._child_checked  # type: ignore[method-assign]

    @property
    def params(self) -> dict[str, Any]:
        return {"tt": self.tt, "tt_depth": self.tt_depth}

    # ------------------------------------------------------------------ transposition table
    def _tt_search(self, node: Any, alpha: Any, beta: Any) -> Any:
        """``_search`` with the table (``tt > 0``): look the node up first, answer it from a hit
        that decides the window (the node is entered and counted, its subtree is not), else
        search it (the stored best move first) and store the result.  See
        ``starbench.search.transposition`` for the rules."""
        tree = self.tree
        kind = tree.kind(node)
        if kind == LEAF or (kind == CHANCE and not self._tt_chance_nodes):
            return self._search_plain(node, alpha, beta)
        table = self.table
        assert table is not None
        key, depth = tree.transposition(node)
        answer = self._tt_answer(node, key, depth, alpha, beta)
        if answer is not None:
            return answer
        if kind != CHANCE:
            self._hint = table.move(key)  # its best move at this or another depth
        v = self._search_plain(node, alpha, beta)
        self._store(key, depth, alpha, beta, v, None if kind == CHANCE else self._last_move)
        if self.debug:
            self.check_entry(node, key, depth, alpha, beta, v)
        return v

    def _tt_answer(self, node: Any, key: int, depth: int, alpha: Any, beta: Any) -> Any:
        """Look ``node`` up (a probe): the value the table answers for the window, or None.
        An answered node is entered (counted) here."""
        assert self.table is not None
        self.tt_probes += 1
        e = self.table.probe(key, depth, self.tt_deeper)
        if e is None:
            return None
        self.tt_hits += 1
        lower, upper = e[2], e[3]
        if lower == upper or (beta is not None and lower >= beta):
            answer = lower
        elif alpha is not None and upper <= alpha:
            answer = upper
        else:
            return None
        self.tt_cutoffs += 1
        self._enter(node)
        return answer

    def _store(self, key: int, depth: int, alpha: Any, beta: Any, v: Any, move: Any) -> None:
        """Store ``v``, the result of a search with window (alpha, beta), as bounds: the store
        rule of ``starbench.search.transposition`` (nothing when alpha >= beta; a bound kept
        inside [L, U])."""
        assert self.table is not None
        low = alpha is not None and v <= alpha  # an upper bound (fail low), or exact
        high = beta is not None and v >= beta  # a lower bound (fail high), or exact
        if low and high:  # alpha = beta: either reading is possible, no bound is proven
            return
        if v < self.L:  # a float sum a rounding outside [L, U]: every value lies inside
            v = self.L
        elif v > self.U:
            v = self.U
        if low:
            self.table.store(key, depth, self.L, v, move)
        elif high:
            self.table.store(key, depth, v, self.U, move)
        else:
            self.table.store(key, depth, v, v, move)

    def check_entry(self, node: Any, key: int, depth: int, alpha: Any, beta: Any, v: Any) -> None:
        """Debug mode: assert that the table's entry of ``node``, just stored from the result
        ``v`` of a search with window (alpha, beta), holds its value between its bounds (within
        the float tolerance), so an unsound store is named where it happens."""
        assert self.table is not None
        e = self.table.probe(key, depth)
        if e is None:
            return
        true = self.exact_value(node)
        L, U, ex = self.L, self.U, self.arith.exact
        if (e[2] <= true or agree(e[2], true, L, U, ex)) and (
            true <= e[3] or agree(e[3], true, L, U, ex)
        ):
            return
        raise AssertionError(
            f"{self.name}: {self.tree.describe(node)} window ({alpha}, {beta}) returned {v}, "
            f"stored in the table as [{e[2]}, {e[3]}], true value {true}: an unsound entry"
        )

    def _take_hint(self, n: int) -> list[int] | None:
        """The order to search a decision node's ``n`` moves: the table's best move first, the
        others in their order; None for the tree's own order (no table, no hint)."""
        h = self._hint
        self._hint = None
        if h is None or not 0 < h < n:
            return None
        return [h, *range(h), *range(h + 1, n)]

    # ------------------------------------------------------------------ accounting
    def _enter(self, node: Any) -> Kind:
        kind = self.tree.kind(node)
        self.nodes += 1
        self.lv_nodes[self.level] += 1
        if kind == LEAF:
            self.leaves += 1
            self.lv_leaves[self.level] += 1
        elif kind == MAX:
            self.max_nodes += 1
        elif kind == MIN:
            self.min_nodes += 1
        else:
            self.chance_nodes += 1
        if self.probing:
            self.probe_nodes += 1
            if kind == LEAF:
                self.probe_leaves += 1
        if self.nodes > self._check_at:
            self._over_budget()
        return kind

    def _down(self) -> int:
        """Go one level down (to a child's level, before entering it); returns the new level.
        The caller sets ``level`` back when the child is done."""
        lv = self.level + 1
        if lv >= self._room:
            self._grow(lv)
        self.level = lv
        return lv

    def _grow(self, lv: int) -> None:
        """Lengthen the per-level lists (in place) to hold level ``lv``."""
        more = max(lv + 1, 2 * self._room) - self._room
        for counts in (self.lv_nodes, self.lv_leaves, self.lv_cuts, self.lv_probes):
            counts.extend([0] * more)
        self._room += more

    def _cut_decision(self) -> None:
        """A decision node (at ``level``) stops searching its moves: a cut-off."""
        self.decision_cutoffs += 1
        self.lv_cuts[self.level] += 1

    def _cut_chance(self) -> None:
        """A chance node (at ``level``) returns a bound with outcomes unsearched: a cut-off."""
        self.chance_cutoffs += 1
        self.lv_cuts[self.level] += 1

    def by_level(self) -> LevelCounts:
        """The counters per level so far (``starbench.search.stats``)."""
        return LevelCounts.of((self.lv_nodes, self.lv_leaves, self.lv_cuts, self.lv_probes))

    def _over_budget(self) -> None:
        """Raise BudgetExceeded past the node budget, or past the deadline (looked at every
        1,024 nodes); else set the count of the next check."""
        n = self.nodes
        if self.node_budget is not None and n > self.node_budget:
            raise BudgetExceeded(f"node budget of {self.node_budget} nodes exceeded")
        if self._deadline is not None:
            if (n & 1023) == 0 and time.perf_counter() > self._deadline:
                raise BudgetExceeded(f"time budget of {self.time_budget} s exceeded")
            self._check_at = min(NEVER if self.node_budget is None else self.node_budget, n | 1023)

    def _leaf(self, node: Any) -> Any:
        """Evaluate a leaf, refusing NaN and values outside [L, U]."""
        raw = self.tree.evaluate(node)
        try:
            v = self.num(raw)
            ok = self.L <= v <= self.U
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise EvaluationError(
                f"{self.tree.describe(node)}: evaluation {short(raw)} is NaN or outside the "
                f"bounds [{short(self.tree.bounds[0])}, {short(self.tree.bounds[1])}]"
            )
        return v

    def _probs(self, node: Any) -> list[Any]:
        num = self.num
        return [num(p) for p in self.tree.probabilities(node)]

    def stats(self) -> SearchStats:
        return SearchStats(
            nodes=self.nodes,
            leaves=self.leaves,
            max_nodes=self.max_nodes,
            min_nodes=self.min_nodes,
            chance_nodes=self.chance_nodes,
            probe_nodes=self.probe_nodes,
            probe_leaves=self.probe_leaves,
            chance_cutoffs=self.chance_cutoffs,
            probe_cutoffs=self.probe_cutoffs,
            decision_cutoffs=self.decision_cutoffs,
            resumed=self.resumed,
            probes=self.probes,
            tt_probes=self.tt_probes,
            tt_hits=self.tt_hits,
            tt_cutoffs=self.tt_cutoffs,
            shallow_nodes=self.shallow_nodes,
        )

    # ------------------------------------------------------------------ children
    def _child(self, node: Any, alpha: Any, beta: Any) -> Any:
        """Search a child of the node at ``level`` (one level down)."""
        lv = self.level + 1
        if lv >= self._room:
            self._grow(lv)
        self.level = lv
        v = self._search(node, alpha, beta)
        self.level = lv - 1
        return v

    def _child_checked(self, node: Any, alpha: Any, beta: Any) -> Any:
        lv = self._down()
        v = self._search(node, alpha, beta)
        self.level = lv - 1
        self.check_bound(node, alpha, beta, v)
        return v

    def exact_value(self, node: Any) -> Any:
        """The node's value by an uncounted full-window expectimax (debug mode)."""
        return full_value(self.tree, node, self.num)

    def check_bound(self, node: Any, alpha: Any, beta: Any, v: Any) -> None:
        """Assert the fail-soft semantics of a windowed result ``v`` of ``node``."""
        if not alpha < beta:
            raise AssertionError(
                f"{self.name}: {self.tree.describe(node)} searched with the empty window "
                f"({alpha}, {beta})"
            )
        true = self.exact_value(node)
        L, U, ex = self.L, self.U, self.arith.exact
        # In float mode a bound proven at a window edge may land a rounding error inside the
        # window: within the tolerance of an edge, the bound reading is accepted too.
        tol = 0 if ex else tolerance(L, U)
        if v <= alpha + tol and (true <= v or agree(v, true, L, U, ex)):
            return  # an upper bound (or exact)
        if v >= beta - tol and (true >= v or agree(v, true, L, U, ex)):
            return  # a lower bound (or exact)
        if alpha < v < beta:
            ok = agree(v, true, L, U, ex)
            what = "inside the window it must be exact"
        elif v <= alpha:
            ok = False
            what = "at or below alpha it must be an upper bound"
        else:
            ok = False
            what = "at or above beta it must be a lower bound"
        if not ok:
            raise AssertionError(
                f"{self.name}: {self.tree.describe(node)} window ({alpha}, {beta}) returned {v}, "
                f"true value {true}: {what}"
            )

    # ------------------------------------------------------------------ running
    def _search(self, node: Any, alpha: Any, beta: Any) -> Any:
        raise NotImplementedError

    def _root(self) -> tuple[Any, int | None, tuple[int, ...] | None]:
        """Search the root: (value, best move, tied moves or None)."""
        raise NotImplementedError

    def run_window(self, alpha: Any, beta: Any) -> Any:
        """Search the root with the window (``alpha``, ``beta``) instead of the full one and
        return its fail-soft value: exact when strictly inside the window, otherwise a bound on
        the exact value V (a result v <= alpha means V <= v, v >= beta means V >= v).  The
        counters (``stats()``) count this search alone.  ``alpha == beta`` is allowed (a pure
        test of V against one number).  Exhaustive algorithms ignore the window."""
        return with_room(lambda: self._search(self.tree.root, self.num(alpha), self.num(beta)))

    def run(self) -> SearchResult:
        if self.time_budget is not None:
            self._deadline = time.perf_counter() + self.time_budget
            self._check_at = min(self._check_at, self.nodes | 1023)
        t0, c0 = time.perf_counter(), time.process_time()
        root = self.tree.root
        decision = self.table is not None and self.tree.kind(root) in (MAX, MIN)
        if decision:  # the root's best move from an earlier search first (iterative deepening)
            key, depth = self.tree.transposition(root)
            self._hint = self.table.move(key)  # type: ignore[union-attr]
        value, best, tied = with_room(self._root)  # see starbench.search.pystack
        if decision:  # searched with the full window: exact
            self.table.store(key, depth, value, value, best)  # type: ignore[union-attr]
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        return SearchResult(
            self.name,
            self.params,
            value,
            best,
            tied,
            self.stats(),
            self.arith.exact,
            seconds,
            cpu,
            getattr(self, "root_values", None),  # the exhaustive algorithms' (at a decision root)
            self.by_level(),
        )


def refuse_chance(tree: Tree, name: str) -> None:
    """Raise InputError when ``tree`` has a chance node (for minimax and alpha-beta)."""
    finder = getattr(tree, "first_chance", None)
    node = finder() if finder is not None else has_chance(tree)
    if node is not None:
        raise InputError(
            f"{name} does not apply to trees with chance nodes; first chance node: "
            f"{tree.describe(node)} (use expectimax or a star algorithm)"
        )
