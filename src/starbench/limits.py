"""Every size limit starbench enforces, with its default, in one place.

Searches of any size are allowed; these limits only stop work that would run for hours, eat the
machine's memory or never finish, and each one can be raised where it is set.

===================  ============  ===================================================================
limit                default       what it guards (where to change it)
===================  ============  ===================================================================
``size_limit``       10^10 nodes   ``starbench run``: a cell whose trees are larger is refused before
                                   anything runs unless ``node_budget`` or ``time_budget`` bounds
                                   every search (``size_limit=...`` raises it).  A tree source
                                   without a known size (a game) is bounded by an estimate of its
                                   size from its widest branching and its depth.
``expectimax_limit`` 10^8 nodes    ``starbench run``: expectimax (which visits every node) is
                                   skipped on larger trees; rows are then verified by agreement.
``full_pass_limit``  10^7 nodes    generated trees: orderings by exact value and ``bounds=tree``
                                   need one uncounted pass over the whole tree
                                   (``tree.full_pass_limit``).
JSON tree files      250 MB,       ``starbench solve``: larger files are refused before they are
                     10^7 nodes    read (``--max-bytes``, ``--max-nodes``); ``load_tree`` takes
                                   ``max_bytes`` and ``max_nodes``.
export               10^6 nodes    ``starbench export`` (``--max-nodes``).
===================  ============  ===================================================================

Depths: JSON files are read by Python's ``json`` module, which refuses nesting deeper than about
a thousand brackets (a tree about 300 levels deep; one clear error says so).  The Python engine
searches recursively and stops with one clear error on trees deeper than about 900 levels (the
interpreter's recursion limit); the compiled engine has no depth limit of its own.
"""

from __future__ import annotations

SIZE_LIMIT = 10**10
EXPECTIMAX_LIMIT = 10**8
FULL_PASS_LIMIT = 10**7
JSON_MAX_BYTES = 250_000_000
JSON_MAX_NODES = 10**7
EXPORT_MAX_NODES = 10**6
