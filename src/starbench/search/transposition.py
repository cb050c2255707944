"""A transposition table for search with chance nodes: both bounds, the depth, the best move.

The table has ``2**tt`` slots (the algorithm parameter ``tt``; 0 = no table, the default).  An
entry is ``(key, depth, lower, upper, move)``: a node's transposition key (``tree.transposition``:
equal keys are one subtree), the levels (or, in games, decision plies) left below it, proven
bounds ``lower <= value <= upper`` of the node's value searched to that depth, and the best move
found there (a child index; ``None`` at chance nodes and where none is known).  Slot
``key mod 2**tt``.  Layout and memory: a key (8 bytes), two float64 bounds (16), the depth and
the move (4 + 4): ``BYTES_PER_ENTRY = 32`` bytes per slot, so ``tt=22`` is 128 MiB, the table
Hauk et al. used (the Python engine keeps tuples and needs more; the figure is the layout's).

Rules (the same in every algorithm, see ``base.Search``):

* **Lookup** (``probe``): an entry is a *hit* only when its key and its depth both equal the
  node's.  A value searched to another depth is another quantity (a deeper search of a game
  position is not its depth-limited value), so using it would change results; iterative
  deepening still profits from shallower entries through their best move.
* **Store** (``base.Search._store``): after a node is searched with window ``(alpha, beta)``
  and returned ``v``: ``v <= alpha`` stores ``(L, v)`` (an upper bound), ``v >= beta`` stores
  ``(v, U)`` (a lower bound), otherwise ``(v, v)`` (exact); a full-window search stores an
  exact value, a search with ``alpha >= beta`` (a zero-width test) stores nothing, and a stored
  bound is kept inside [L, U] (a float sum can land a rounding outside).

  This reads a result by its place in the window, which is sound only if every search keeps
  the fail-soft invariant *exactly*: a result <= alpha is an upper bound, >= beta a lower
  bound, strictly inside the window the exact value.  Up to 0.2.0 a chance node's fail-soft
  bound broke it in floats (issue 72: Star1, Star2 and Star2.5 with a table wrong on rare DAGs,
  both engines agreeing): its fail-low bound ``X_i + p_i v_i + sum_{j>i} p_j hi_j`` is a float
  sum that lands within a rounding of alpha, on either side.  One that landed a rounding above
  alpha was stored as exact; in a window narrower than the rounding (a MAX node whose best move
  is a chance node worth U less a rounding searches its next move with ``(U - 2^-51, U)``) one
  that landed on beta was stored as a *lower* bound, the opposite claim.  Without a table the
  misreading stayed local (the parent's value is then within a rounding of its window's edge,
  which the float tolerance accepts); with one, a transposition answered from the entry
  anywhere else, far from the truth (3.0 for a node worth 2.62).  The fix is at the source, not
  in the store: a chance node returns ``min(bound, alpha)`` for a fail low and ``max(bound,
  beta)`` for a fail high (``star1.Star1._search_phase``, the kernel's ``search_phase``, the
  fused game searches).  That changes nothing exactly and, in floats, moves a bound by at most
  the rounding it already carried, so the invariant holds in both arithmetics: by induction, a
  chance node's fail-low result <= alpha is an upper bound (its sum was proven at most alpha up
  to that rounding), a completed one is the exact sum; a decision node's best is <= alpha only
  when every move's result was (upper bounds), >= beta only from a move's lower bound, and
  strictly inside from a move's exact value; a table's answer is a stored bound on its side of
  the window, or an exact value.  The lookup, the merge and the replacement were sound and are
  unchanged, and an exact value that lands within a rounding of an edge is still stored as the
  bound on that side (sound, and what 0.2.0 did).
* **Replacement**: an entry of the same key and depth is merged (the tighter of each bound; the
  new move, else the old); otherwise the new entry replaces the slot's unless the slot holds a
  deeper one (depth-preferred: nodes nearer the root, whose subtrees are larger, stay).  In
  floats a merge whose bounds cross by rounding keeps the new entry as it is.
* Leaves are never stored or looked up (their evaluation is what the table would save).
"""

from __future__ import annotations

import hashlib
from typing import Any

BYTES_PER_ENTRY = 32
#: The largest ``tt`` accepted (2**30 slots, 32 GiB in the documented layout).
MAX_BITS = 30

Entry = tuple[int, int, Any, Any, int | None]  # (key, depth, lower, upper, move)


class TranspositionTable:
    """``2**bits`` slots of ``Entry`` (see the module docstring for the rules)."""

    __slots__ = ("bits", "mask", "slots")

    def __init__(self, bits: int):
        self.bits = bits
        self.mask = (1 << bits) - 1
        self.slots: list[Entry | None] = [None] * (1 << bits)

    def probe(self, key: int, depth: int, deeper: bool = False) -> Entry | None:
        """The entry of ``key`` searched to exactly ``depth`` (``deeper``: or deeper, the rule
        ``tt_depth=deeper``, which makes a fixed-depth search inexact), or None."""
        e = self.slots[key & self.mask]
        if e is not None and e[0] == key and (e[1] == depth or (deeper and e[1] > depth)):
            return e
        return None

    def move(self, key: int) -> int | None:
        """The best move stored for ``key`` at any depth (a move-ordering hint), or None."""
        e = self.slots[key & self.mask]
        return e[4] if e is not None and e[0] == key else None

    def store(self, key: int, depth: int, lower: Any, upper: Any, move: int | None) -> None:
        i = key & self.mask
        old = self.slots[i]
        if old is not None:
            if old[0] == key and old[1] == depth:
                lo = lower if lower > old[2] else old[2]
                hi = upper if upper < old[3] else old[3]
                if lo <= hi:
                    lower, upper = lo, hi
                if move is None:
                    move = old[4]
            elif old[1] > depth:
                return
        self.slots[i] = (key, depth, lower, upper, move)


def text_key(text: str) -> int:
    """A 64-bit transposition key of a node's text (the same in every process: Python's own
    ``hash`` of a string changes with each interpreter)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
