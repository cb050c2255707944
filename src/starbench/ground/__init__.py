"""The ground floor: limits, caches, atomic file writes and digests, the version, the packaged
config folder, override syntax, plain-text tables, a killable worker process (``isolate``) and
the intervals and tests the tables report (``statistics``); it imports nothing of starbench's
but itself and ``starbench.errors``."""
