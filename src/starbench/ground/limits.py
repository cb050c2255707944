"""Every size limit starbench enforces, with its default, in one place.

Searches of any size are allowed; these limits only stop work that would run for hours, eat the
machine's memory or never finish, and each one can be raised where it is set.

* ``size_limit`` (10^10 nodes; the run key ``size_limit``): ``starbench run`` refuses, before
  anything runs, a cell whose trees are larger unless ``node_budget`` or ``time_budget`` bounds
  every search.  A game cell is bounded the same way by an estimate from its widest branching and
  its depth (below).
* ``expectimax_limit`` (10^8 nodes; the run key ``expectimax_limit``): ``starbench run`` skips
  expectimax, which visits every node, on larger trees; rows are then verified by agreement.
* ``full_pass_limit`` (10^7 nodes; ``tree.full_pass_limit``): orderings by exact value and
  ``bounds=tree`` need one uncounted pass over the whole generated tree.
* JSON tree files (250 MB and 10^7 nodes; ``starbench solve --max-bytes/--max-nodes``,
  ``load_tree(max_bytes=, max_nodes=)``): larger files are refused with one line.
* ``starbench export`` (10^6 nodes; ``--max-nodes``).
* Counts a command takes (each refused above its limit with one line naming the flag):
  ``match --games`` at most ``MAX_GAMES`` (10^6 games), ``conform --trees`` at most
  ``MAX_CONFORM_TREES`` (10^6 trees, generated one at a time), ``calibrate --positions`` at most
  ``MAX_POSITIONS`` (10^5 positions); ``shards`` above ``trees`` is capped at ``trees`` and never
  listed.  A process count (``n_jobs``, ``match --n-jobs``) above the CPUs this process may use
  is capped at them with one line.

Depths: JSON files are read by Python's ``json`` module, which refuses nesting deeper than about a
thousand brackets (one clear error says so).  The Python engine searches recursively; deeper than
its stack allows, a search ends with one clear error (a row with status ``error`` in
``starbench run``).  The compiled engine has no depth limit of its own.

Exact ranges (refused up front with one line naming the key, never computed and then wrong):

* values: every value a generated tree holds is an integer below ``VALUE_LIMIT`` = 2^53, the
  largest range in which float64 (the compiled engine and float mode) is exact and both engines
  agree: ``tree.resolution`` x the levels (the incremental model's largest path sum) and
  ``tree.resolution`` (uniform) must stay below it; the kernel's integer path sums then stay far
  below 2^63;
* weights: ``tree.chance_arity`` x ``tree.weight_max`` below ``VALUE_LIMIT`` (the sum of a chance
  node's weights, whose ratios are the probabilities);
* counts and sizes stored as integers (``tree.pool``, ``tree.full_pass_limit``, ``node_budget``,
  ``trees``, ``max_trees``) at most ``COUNT_LIMIT`` = 2^62; the ``tree_size`` column is a float64
  (exact below 2^53, the nearest float above), since a tree's size may be any size;
* ``tree.branching`` and ``tree.chance_arity`` at most ``MAX_ARITY`` = 100,000 (the compiled
  engine allocates its stack's rows that wide);
* ``tree.depth`` at most ``MAX_DEPTH`` = 10,000 decision plies, so that the pre-flight (the
  tree's size) answers at once; the Python engine searches much less deep (its recursion), the
  compiled engine any depth up to it;
* an algorithm list (ranges ``k=0..N`` expanded) of at most ``MAX_ALGORITHMS`` = 1,000 entries;
* a transposition table's memory, estimated as ``2**tt`` x 32 bytes (the documented layout; the
  Python engine's list and tuples take more), at most ``table_memory_limit`` (run key and
  ``solve --table-memory-limit``; default ``TABLE_MEMORY_LIMIT`` = 4 GiB);
* an exact oracle's memory while it is computed (pig: ``oracles.pig.memory_needed``), stated
  before it is allocated and at most ``oracle_memory_limit`` (run key, ``oracle`` and ``match
  --oracle-memory-limit``; default ``ORACLE_MEMORY_LIMIT`` = 4 GiB);
* a game cell's size is estimated as the product of the branchings on its first position's
  first path down to the last decision ply (``games.source.size_estimate``); over
  ``size_limit`` it needs a node or time budget, as a generated tree does;
* float underflow: outcome probabilities that underflow to 0 or a subnormal float (a tiny
  ``tree.skew``, a ``"1e-400"`` in a tree file) are refused in float mode, with exact mode
  (``exact=true``, ``solve --exact``) as the remedy.
"""

from __future__ import annotations

VALUE_LIMIT = 2**53
COUNT_LIMIT = 2**62
MAX_DEPTH = 10_000
MAX_ARITY = 100_000
MAX_ALGORITHMS = 1_000
TABLE_MEMORY_LIMIT = 4 * 2**30
ORACLE_MEMORY_LIMIT = 4 * 2**30
SIZE_LIMIT = 10**10
EXPECTIMAX_LIMIT = 10**8
FULL_PASS_LIMIT = 10**7
JSON_MAX_BYTES = 250_000_000
JSON_MAX_NODES = 10**7
EXPORT_MAX_NODES = 10**6
MAX_GAMES = 10**6
MAX_CONFORM_TREES = 10**6
MAX_POSITIONS = 10**5

#: ``starbench solve --game`` says, before it searches, that a game search may visit more nodes
#: than this (the estimate of ``games.source.size_estimate``), and that ``--node-budget`` bounds it.
GAME_NOTE_NODES = 10**6
