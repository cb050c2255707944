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
  exact value.  In floats the edges are widened by the tolerance ``t = 1e-9 * max(1, |L|,
  |U|)``: ``v <= alpha + t`` is an upper bound, ``v >= beta - t`` a lower bound, and a result
  within ``t`` of both edges (a window no wider than the rounding, or ``alpha = beta``) is not
  stored at all; a stored bound is kept inside [L, U].

  Why (issue 72, Star1, Star2 and Star2.5 wrong on rare DAGs, both engines): a chance node's
  fail-soft bound is a float sum, ``X_i + p_i v_i + sum_{j>i} p_j hi_j`` for a fail low, which
  lands within a few units of rounding of the window's edge, on either side.  A fail low that
  lands a rounding above ``alpha`` was stored as exact, and in a window narrower than the
  rounding (a MAX node whose best move is a chance node worth U less a rounding, searching its
  next move with ``(U - 2^-51, U)``) a fail low landing on ``beta`` was stored as a *lower*
  bound: an upper bound read as the opposite claim.  Without a table the misreading stays
  local (the parent's own value is then within the rounding of the window's edge, which the
  float tolerance accepts); a transposition answered from the entry anywhere else, far from
  the truth (3.0 for a node worth 2.62).  The rule is sound because every result of a search
  with window (alpha, beta) is, up to a rounding d far below t (a few units in the last place
  of the values, not amplified: a child's rounding reaches its parent multiplied by p_i): an
  upper bound when ``v <= alpha + d``, a lower bound when ``v >= beta - d``, and exact within d
  otherwise.  Reading within t of an edge as that edge's bound therefore never claims more
  than the search proved; an exact value within t of an edge stored as a bound only loses
  information.  Exactly (fractions) d = 0 and the rule is the plain one.  The lookup, the
  merge and the replacement were sound and are unchanged.
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
