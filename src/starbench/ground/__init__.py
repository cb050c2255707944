"""The ground floor: limits, caches, atomic file writes and digests, the version, the packaged
config folder, override syntax and plain-text tables; it imports nothing of starbench's but
itself and ``starbench.errors``."""
