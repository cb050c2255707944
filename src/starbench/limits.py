"""Every size limit starbench enforces, with its default, in one place.

Searches of any size are allowed; these limits only stop work that would run for hours, eat the
machine's memory or never finish, and each one can be raised where it is set.

* ``size_limit`` (10^10 nodes; the run key ``size_limit``): ``starbench run`` refuses, before
  anything runs, a cell whose trees are larger unless ``node_budget`` or ``time_budget`` bounds
  every search.  A tree source without a known size (a game) is bounded by an estimate from its
  widest branching and its depth.
* ``expectimax_limit`` (10^8 nodes; the run key ``expectimax_limit``): ``starbench run`` skips
  expectimax, which visits every node, on larger trees; rows are then verified by agreement.
* ``full_pass_limit`` (10^7 nodes; ``tree.full_pass_limit``): orderings by exact value and
  ``bounds=tree`` need one uncounted pass over the whole generated tree.
* JSON tree files (250 MB and 10^7 nodes; ``starbench solve --max-bytes/--max-nodes``,
  ``load_tree(max_bytes=, max_nodes=)``): larger files are refused with one line.
* ``starbench export`` (10^6 nodes; ``--max-nodes``).

Depths: JSON files are read by Python's ``json`` module, which refuses nesting deeper than about a
thousand brackets (one clear error says so).  The Python engine searches recursively; deeper than
its stack allows, a search ends with one clear error (a row with status ``error`` in
``starbench run``).  The compiled engine has no depth limit of its own.
"""

from __future__ import annotations

SIZE_LIMIT = 10**10
EXPECTIMAX_LIMIT = 10**8
FULL_PASS_LIMIT = 10**7
JSON_MAX_BYTES = 250_000_000
JSON_MAX_NODES = 10**7
EXPORT_MAX_NODES = 10**6
